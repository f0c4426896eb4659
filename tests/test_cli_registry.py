"""Every CLI option of an operation command comes from the registry (issue 11, item 1).

Hand-written click options stay only on the process-control commands. Every
other command's parameters must have been declared by
:func:`houkai.cli.commands._ops.operation_options` (the operation's parameters
and its CLI binding: positionals, switches, spans, terminal-only options) or be
the shared ``--format``/``--json`` of :func:`houkai.cli.output.output_options`.
"""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest

from houkai.app.operations import BY_NAME
from houkai.cli import _discover, cli
from houkai.cli.output import DECLARED_BY

#: Commands that run or install processes (and the terminal UI, the MCP server and the
#: config viewer): their options are about the process, not an operation's parameters.
#: ``maintenance run`` is the maintenance loop (``maintenance start`` spawns it).
PROCESS_CONTROL = (
    "up",
    "worker",
    "beat",
    "serve",
    "redis",
    "install",
    "bench",
    "tui",
    "mcp",
    "config",
    "maintenance run",
)


def _commands(
    group: click.Group, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, click.Command]]:
    for name, command in group.commands.items():
        words = (*path, name)
        if isinstance(command, click.Group):
            yield from _commands(command, words)
        else:
            yield " ".join(words), command


def _process_control(words: str) -> bool:
    return any(words == p or words.startswith(p + " ") for p in PROCESS_CONTROL)


_discover()
OPERATION_COMMANDS = sorted(w for w, _ in _commands(cli) if not _process_control(w))


@pytest.mark.parametrize("words", OPERATION_COMMANDS)
def test_no_hand_written_click_parameters(words):
    command = dict(_commands(cli))[words]
    loose = [p.name for p in command.params if not getattr(p, DECLARED_BY, None)]
    assert not loose, f"`houkai {words}` declares {loose} by hand; declare them in the registry"


def test_the_check_sees_a_loose_option():
    """The marker is what the test reads: a plain ``click.option`` has none."""

    @click.command()
    @click.option("--loose")
    def command(loose: str) -> None: ...

    assert not getattr(command.params[0], DECLARED_BY, None)


@pytest.mark.parametrize(
    ("words", "operation"),
    [
        ("prune", "prune"),
        ("reflect", "reflect"),
        ("collections create", "collection_create"),
        ("collections delete", "collection_delete"),
        ("collections copy", "collection_copy"),
        ("collections migrate", "collection_migrate"),
        ("backup", "backup"),
        ("info", "archive_info"),
    ],
)
def test_former_hand_written_commands_are_operations(words, operation):
    command = dict(_commands(cli))[words]
    op = BY_NAME[operation]
    assert op.cli is not None and op.cli.command == words
    declared = {p.name: getattr(p, DECLARED_BY, None) for p in command.params}
    for field in op.fields():
        assert declared.get(field) == operation, field


@pytest.mark.parametrize(
    ("words", "flags"),
    [
        ("purge", ["--show"]),
        ("prune", ["--show", "--apply", "--yes"]),
        ("graph", ["--dot"]),
        ("stats", ["--health", "-H", "--stale-days", "--decay-rate", "--frequency-weight"]),
        ("conflicts", ["--resolve"]),
        ("edit", ["--ttl", "--clear-tags"]),
    ],
)
def test_terminal_flags_are_declared_in_the_binding(words, flags):
    command = dict(_commands(cli))[words]
    opts = {o for p in command.params for o in p.opts if getattr(p, DECLARED_BY, None) != "output"}
    assert set(flags) <= opts
