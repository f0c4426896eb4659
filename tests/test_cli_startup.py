"""What a CLI process imports before it answers (issue #26: `--version` took 1.1–1.9 s).

``--version`` and ``--help`` never touch the store, Redis, numpy or a model: the root
group imports its commands only when one is asked for (``--help`` lists them, which
needs the operation registry and so pydantic, but not the store behind it).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
from houkai.cli import main
sys.argv = ["houkai", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
names = ("numpy", "redis", "pydantic", "rich", "houkai.store", "houkai.app.service",
         "houkai.app.operations", "torch", "onnxruntime", "transformers")
commands = sorted(m for m in sys.modules if m.startswith("houkai.cli.commands."))
print(json.dumps([m for m in names if m in sys.modules] + commands), file=sys.stderr)
"""


def _imported(*args: str) -> tuple[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120
    )
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])


def test_version_imports_nothing_but_click_and_the_config() -> None:
    out, heavy = _imported("--version")
    assert out.startswith("houkai, version ") and heavy == []


@pytest.mark.parametrize(
    "args", [("--help",), ("recall", "--help"), ("jobs", "--help"), ("bench", "--help")]
)
def test_help_needs_the_registry_but_no_store(args: tuple[str, ...]) -> None:
    out, heavy = _imported(*args)
    assert "Usage: houkai" in out
    assert not {"numpy", "redis", "houkai.store", "houkai.app.service", "torch"} & set(heavy)


def test_the_root_is_a_lazy_group() -> None:
    """Issue #28: ``houkai --help`` lists every command from the manifest, importing no
    command module (nor the registry); a command imports its own module only."""
    out, imported = _imported("--help")
    assert "remember" in out and "ingest" in out
    assert not [m for m in imported if m.startswith("houkai.cli.commands.")]
    assert not {"pydantic", "houkai.app.operations"} & set(imported)
    _, imported = _imported("recall", "--help")
    commands = {m for m in imported if m.startswith("houkai.cli.commands.")}
    assert commands == {"houkai.cli.commands.recall", "houkai.cli.commands._ops"}


def test_the_manifest_is_in_step_with_the_command_modules() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "houkai.cli.manifest", "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_the_lazy_listing_is_clicks_own() -> None:
    """The listing from the manifest is what click prints once every command is loaded."""
    import click

    from houkai.cli import cli

    def listing(format_commands) -> str:
        ctx = click.Context(cli, info_name="houkai")
        formatter = ctx.make_formatter()
        format_commands(ctx, formatter)
        return formatter.getvalue()

    lazy = listing(cli.format_commands)
    loaded = listing(lambda ctx, f: click.Group.format_commands(cli, ctx, f))
    assert lazy == loaded and "maintenance" in lazy


def test_every_subcommand_resolves_through_the_lazy_root() -> None:
    """A fresh process that loads each command lazily (as a user's does) sees the same
    subcommands as the fully loaded tree: a module that adds a subcommand to another
    module's group must be one the manifest loads for that group."""
    script = (
        "import click, json\n"
        "from houkai.cli import cli\n"
        "ctx = click.Context(cli, info_name='houkai')\n"
        "out = {}\n"
        "for name in cli.list_commands(ctx):\n"
        "    cmd = cli.get_command(ctx, name)\n"
        "    out[name] = sorted(getattr(cmd, 'commands', {}) or {})\n"
        "print(json.dumps(out))\n"
    )

    def tree(code: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    eager = "import houkai.cli.manifest as m; m.build()\n" + script  # every module first
    assert tree(script) == tree(eager)
    assert "migrate-layout" in tree(script)["redis"]
