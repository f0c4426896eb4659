"""``houkai bench folds``: does folding recall counts stall the server?"""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import output_options
from .bench_report import Progress, report


@click.command("folds")
@click.option("--n", "n", type=click.IntRange(100), default=20_000, show_default=True)
@click.option("--rounds", type=click.IntRange(1, 20), default=3, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the result as JSON.")
@output_options
@pass_ctx
def bench_folds(ctx: Context, n: int, rounds: int, out: str | None) -> None:
    """Fold one pending access per memory into N identical memories, into the memory hash
    (0.1) and into access documents, alternating: each fold's latency and how long a PING
    from another client waited meanwhile (medians of rounds, old/new ratios)."""
    from ...bench import folds

    progress = Progress()
    result = folds.run(ctx.settings, n=n, rounds=rounds, progress=progress)
    report(ctx, result, folds.lines, out, progress)


def register(cli: click.Group) -> None:
    """Add this benchmark to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_folds)
