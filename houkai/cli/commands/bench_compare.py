"""``houkai bench compare``: two ``bench suite`` results, set by set."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import Column, echo_json, output_options, print_rows, resolve_format


@click.command("compare")
@click.argument("before", type=click.Path(exists=True, dir_okay=False))
@click.argument("after", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--mode",
    default="defaults",
    show_default=True,
    help="The mode compared: plain, defaults, -stage / +stage or rrf.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Exit with status 1 when a set costs more than one question's worth.",
)
@output_options
@pass_ctx
def bench_compare(ctx: Context, before: str, after: str, mode: str, check: bool) -> None:
    """Two suite results, set by set: R@5/MRR before and after, and what costs.

    BEFORE and AFTER are JSON files `houkai bench suite --out` wrote, on one split. A
    set holds when neither measure moves by more than one question's worth, gains when
    one rises by more and neither falls, and costs otherwise.
    """
    from ...bench import suite_compare

    try:
        rows = suite_compare.compare(
            suite_compare.load(before), suite_compare.load(after), mode=mode
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    costs = [r["set"] for r in rows if r["verdict"] == "costs"]
    d5, dm = suite_compare.questions_worth(rows)
    fmt = resolve_format(ctx.output_format)
    if fmt == "json":
        echo_json({"mode": mode, "sets": rows, "questions_worth": {"r5": d5, "mrr": dm}})
    else:
        print_rows(
            fmt,
            [
                {
                    "set": r["set"],
                    "n": str(r["questions"]),
                    "r5": f"{r['r5_before']:.3f}→{r['r5_after']:.3f}",
                    "d5": f"{r['delta_r5']:+.3f}",
                    "mrr": f"{r['mrr_before']:.3f}→{r['mrr_after']:.3f}",
                    "dm": f"{r['delta_mrr']:+.3f}",
                    "verdict": r["verdict"],
                }
                for r in rows
            ],
            [
                Column("set"),
                Column("n", header="questions", justify="right"),
                Column("r5", header="R@5"),
                Column("d5", header="ΔR@5", justify="right"),
                Column("mrr", header="MRR"),
                Column("dm", header="ΔMRR", justify="right"),
                Column("verdict"),
            ],
            title=f"{before} → {after} ({mode})",
        )
        click.echo(
            f"{len(rows)} sets: {len(rows) - len(costs)} hold or gain, {len(costs)} cost"
            f"{' (' + ', '.join(costs) + ')' if costs else ''}; summed, in questions: "
            f"R@5 {d5:+.1f}, MRR {dm:+.1f}"
        )
    if check and costs:
        click.get_current_context().exit(1)


def register(cli: click.Group) -> None:
    """Add ``bench compare`` to the ``houkai bench`` group."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_compare)
