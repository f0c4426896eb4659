"""``houkai bench suite``: the agent-memory sets, LoCoMo and LongMemEval in one run."""

from __future__ import annotations

from pathlib import Path

import click

from ...bench.agentsets.common import SUITE_SETS
from .. import Context, pass_ctx
from ..output import Column, echo_json, output_options, print_rows, resolve_format
from .bench_quality import DEFAULT_LOCOMO, require_matplotlib

DEFAULT_OUT = "docs/bench/suite.json"


@click.command("suite")
@click.option(
    "--split",
    type=click.Choice(["dev", "test", "all"]),
    default="dev",
    show_default=True,
    help="Agent sets' questions: decide on dev; test confirms and is never tuned on.",
)
@click.option(
    "--sets",
    default=SUITE_SETS,
    show_default=True,
    help="Agent-memory sets by name or JSON path; heldout is the earlier held-out set; "
    "NAME:sitting is a set written in one sitting, its memories seconds apart; "
    "NAME:typed is a set asked in lower case, as typed into a chat box.",
)
@click.option(
    "--data",
    "data",
    type=click.Path(dir_okay=True),
    default=DEFAULT_LOCOMO,
    show_default=True,
    help="locomo10.zip (all 1,986 questions are asked).",
)
@click.option("--no-locomo", is_flag=True, help="Leave LoCoMo out.")
@click.option("--quick", is_flag=True, help="One LoCoMo conversation instead of ten.")
@click.option(
    "--modes",
    help=(
        "Comma-separated subset of: plain, defaults, -stage / +stage, rrf (default: all);"
        " stages:a+b+c runs exactly those stages."
    ),
)
@click.option(
    "--longmemeval",
    "longmemeval_path",
    type=click.Path(exists=True, dir_okay=False),
    help="A LongMemEval JSON file (S or oracle) on disk: session-level R@5/R@10.",
)
@click.option(
    "--longmemeval-limit", type=click.IntRange(1), help="Only the first N LongMemEval questions."
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=DEFAULT_OUT,
    show_default=True,
    help="Where the JSON result is written.",
)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Write a PNG.")
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False),
    help=(
        "Write the tables as Markdown (per set, per kind or category, per stage); the"
        " manual's copy is rendered from --out's JSON by the docs build."
    ),
)
@click.option(
    "--misses",
    is_flag=True,
    help="Keep each mode's missed questions in the JSON (refused on --split test).",
)
@output_options
@pass_ctx
def bench_suite(
    ctx: Context,
    split: str,
    sets: str,
    data: str,
    no_locomo: bool,
    quick: bool,
    modes: str | None,
    longmemeval_path: str | None,
    longmemeval_limit: int | None,
    out: str,
    plot_path: str | None,
    markdown_path: str | None,
    misses: bool,
) -> None:
    """Every yardstick, every stage on and off: R@5/MRR per set, kind and mode."""
    from ...bench import suite

    if misses and split != "dev":
        raise click.ClickException("--misses reads the dev split only: test is never tuned on")
    locomo_path = None if no_locomo else data
    if locomo_path is not None and not Path(locomo_path).exists():
        raise click.ClickException(f"no LoCoMo data at {locomo_path} (or pass --no-locomo)")
    if plot_path:
        require_matplotlib()
    try:
        result = suite.run(
            sets=sets,
            split=split,
            locomo_path=locomo_path,
            quick=quick,
            modes=modes,
            settings=ctx.settings,
            longmemeval_path=longmemeval_path,
            longmemeval_limit=longmemeval_limit,
            misses=misses,
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    suite.write(result, out)
    if markdown_path:
        Path(markdown_path).parent.mkdir(parents=True, exist_ok=True)
        Path(markdown_path).write_text(suite.markdown(result))
    if plot_path:
        from ...bench import suite_plot

        suite_plot.plot(result, plot_path)
    fmt = resolve_format(ctx.output_format)
    if fmt == "json":
        echo_json(result)
        return
    table = suite.rows(result)
    kinds = list(dict.fromkeys(k for r in table for k in r["kinds"]))
    print_rows(
        fmt,
        [
            {
                "set": r["set"],
                "mode": r["mode"],
                "r5": f"{r['r5']:.3f}",
                "mrr": f"{r['mrr']:.3f}",
                "p50": f"{r['p50_ms']:.1f}",
                **{k: (f"{r['kinds'][k]:.2f}" if k in r["kinds"] else "") for k in kinds},
            }
            for r in table
        ],
        [
            Column("set"),
            Column("mode"),
            Column("r5", header="R@5", justify="right"),
            Column("mrr", header="MRR", justify="right"),
            Column("p50", header="p50 ms", justify="right"),
            *(Column(k, justify="right") for k in kinds),
        ],
        title=f"Suite ({result['split']} split; defaults: {', '.join(result['defaults'])})",
    )
    for v in result["verdicts"]:
        state = "on" if v["default"] else "opt-in"
        mark = "holds" if v["holds"] else "COSTS"
        click.echo(
            f"{v['stage']} ({state}) on {v['set']}: R@5 {v['delta_r5']:+.3f}, "
            f"MRR {v['delta_mrr']:+.3f} → {mark}"
        )
    click.echo(f"wrote {out}")


def register(cli: click.Group) -> None:
    """Add ``bench suite`` to the ``houkai bench`` group."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_suite)
