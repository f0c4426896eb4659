"""``houkai bench cli``: wall time of fresh CLI processes against issue #13's targets."""

from __future__ import annotations

import sys

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format


@click.command("cli")
@click.option(
    "--memories",
    type=click.IntRange(0, 100_000),
    default=300,
    show_default=True,
    help="Memories in the throwaway collection the commands read.",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=7,
    show_default=True,
    help="Timed runs per command (the median is reported).",
)
@click.option(
    "--server/--no-server",
    default=False,
    show_default=True,
    help="Also time list, stats and recall sent to a running `houkai serve` (the data "
    "dir's, else one started for the run).",
)
@output_options
@pass_ctx
def bench_cli(ctx: Context, memories: int, repeat: int, server: bool) -> None:
    """Median wall time of `houkai --version`, `--help`, `list`, `stats` and `recall` as
    fresh in-process processes, against their targets, and which heavy modules each one
    imports; with --server, the same commands through a running server too."""
    from ...bench.cli_wall import run

    show = sys.stderr.isatty()

    def progress(label: str, done: int) -> None:
        if show:
            click.echo(f"\r\033[K{label} {done}/{repeat}", nl=False, err=True)

    result = run(ctx.settings, memories=memories, repeat=repeat, server=server, progress=progress)
    if show:
        click.echo("\r\033[K", nl=False, err=True)
    from .bench_cmds import echo_result

    echo_result(result, resolve_format(ctx.output_format) == "json")


def register(cli: click.Group) -> None:
    """Add these benchmarks to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_cli)
