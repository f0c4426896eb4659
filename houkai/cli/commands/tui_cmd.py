"""``houkai tui``: browse and search a collection in the terminal."""

from __future__ import annotations

import sys

import click

from .. import Context, pass_ctx


def _require_terminal() -> None:
    """Textual without a terminal never exits (it spins, waiting for keys no one can
    press): refuse before anything loads when stdin or stdout is not a TTY."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        isatty = getattr(stream, "isatty", None)
        if stream is None or isatty is None or not isatty():
            raise click.ClickException(
                f"houkai tui needs a terminal, but {name} is not one: run it in an "
                "interactive shell (for scripts use `houkai list` or `houkai recall`)"
            )


@click.command("tui")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True)
@pass_ctx
def tui(ctx: Context, limit: int) -> None:
    """Browse and search memories in a terminal UI (needs houkai[tui] and a terminal)."""
    _require_terminal()
    try:
        from ..tui import HoukaiTui
    except ImportError:
        raise click.ClickException(
            "the terminal UI needs Textual: pip install 'houkai[tui]'"
        ) from None
    HoukaiTui(ctx.reader(), limit=limit).run()


def register(cli: click.Group) -> None:
    cli.add_command(tui)
