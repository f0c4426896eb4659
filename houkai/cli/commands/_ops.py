"""Click options generated from the operation registry (:mod:`houkai.app.operations`).

A command decorated with :func:`operation_options` takes every parameter its
operation declares — type, bounds, enum choices, default shown in the help,
the short flag declared once in the registry — so a parameter added to the
operation reaches the CLI with no CLI edit. Its callback gets the click values
and hands :func:`arguments` of them to the service, the path REST and MCP take.
*aliases* only keeps the CLI's older spellings (``--budget``, ``-g``) working;
*overrides* sets attributes of a generated parameter where the CLI is more
lenient than the wire (``--expires-at`` also takes ISO-8601, so a string the
command parses; ``TEXT`` optional because stdin can give it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

#: The CLI's historic extra spellings per parameter (the seed's and houkai 0.1's).
LEGACY: Mapping[str, tuple[str, ...]] = {
    "tag": ("-g",),
    "source": ("-s",),
    "token_budget": ("--budget",),
    "tags": ("--tag",),
}


def operation_options(
    operation: str,
    *,
    arguments: tuple[str, ...] = (),
    aliases: Mapping[str, tuple[str, ...]] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the click parameters of *operation* (those in *arguments* as positionals)."""
    from ...app.operations import get
    from ...app.operations.cli import cli_options

    extra = {**LEGACY, **(aliases or {})}
    params = cli_options(get(operation), arguments=arguments)
    for param in params:
        if isinstance(param, click.Option):
            # cli_options passes the name positionally, where click.Option takes
            # show_default: the help already carries the declared default.
            param.show_default = False
            param.opts.extend(a for a in extra.get(param.name or "", ()) if a not in param.opts)
        for attr, value in (overrides or {}).get(param.name or "", {}).items():
            setattr(param, attr, value)

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        memo: list[click.Parameter] = f.__dict__.setdefault("__click_params__", [])
        memo.extend(reversed(params))  # click reverses the list when it builds the command
        return f

    return decorate


def arguments(values: Mapping[str, Any]) -> dict[str, Any]:
    """Click values → operation arguments: unset options (None, empty ``multiple``) dropped,
    so the operation's declared defaults apply, as when REST or MCP omit them."""
    from ...app.operations.cli import collect

    return collect(dict(values))
