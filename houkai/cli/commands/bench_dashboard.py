"""``houkai bench dashboard``: per-view render time of the web dashboard on a large collection."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format


@click.command("dashboard")
@click.option("--n", "n", type=click.IntRange(min=1), default=100_000, show_default=True)
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--browser", is_flag=True, help="Also time a headless Chromium (needs chromium).")
@click.option("--keep", is_flag=True, help="Keep the benchmark collections for the next run.")
@click.option(
    "--baseline",
    "baseline_n",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Size of the small collection timed in the same run (figures are ratios to it).",
)
@output_options
@pass_ctx
def bench_dashboard(
    ctx: Context, n: int, repeat: int, browser: bool, keep: bool, baseline_n: int
) -> None:
    """Time every /ui view's REST calls (and, with --browser, the rendered page) at N memories."""
    from ...bench.dashboard import run

    as_json = resolve_format(ctx.output_format) == "json"
    result = run(
        ctx.settings,
        n,
        repeat=repeat,
        browser=browser,
        keep=keep,
        baseline_n=baseline_n,
        progress=None if as_json else lambda msg: click.echo(msg, err=True),
    )
    from .bench_cmds import echo_result

    echo_result(result, as_json)


def register(cli: click.Group) -> None:
    """Add these benchmarks to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_dashboard)
