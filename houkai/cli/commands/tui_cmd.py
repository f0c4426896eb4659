"""``houkai tui``: browse and search a collection in the terminal."""

from __future__ import annotations

import click

from .. import Context, pass_ctx


@click.command("tui")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True)
@pass_ctx
def tui(ctx: Context, limit: int) -> None:
    """Browse and search memories in a terminal UI (needs houkai[tui])."""
    try:
        from ..tui import HoukaiTui
    except ImportError:
        raise click.ClickException(
            "the terminal UI needs Textual: pip install 'houkai[tui]'"
        ) from None
    HoukaiTui(ctx.reader(), limit=limit).run()


def register(cli: click.Group) -> None:
    cli.add_command(tui)
