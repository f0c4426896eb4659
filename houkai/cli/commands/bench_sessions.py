"""``houkai bench sessions``: conversations in, memories out, measured."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import output_options
from .bench_report import Progress, report

PARTS = ("quality", "rest")


@click.command("sessions")
@click.option(
    "--data",
    type=click.Path(exists=True, dir_okay=True),
    help="locomo10.zip, a folder of its JSON files, or locomo10.json (for the quality part).",
)
@click.option("--parts", default="quality,rest", show_default=True, help="quality and/or rest.")
@click.option("--conversations", default=None, help="LoCoMo conversations, e.g. 0-1 (all).")
@click.option("--mode", default="hybrid", show_default=True, help="The recall mode asked.")
@click.option("--clients", type=click.IntRange(1, 64), default=16, show_default=True)
@click.option("--seconds", type=click.FloatRange(1, 600), default=20.0, show_default=True)
@click.option(
    "--rate", type=click.FloatRange(0, 1000), default=2.0, show_default=True,
    help="Messages a second each client sends in the paced phase (0: skip it).",
)  # fmt: skip
@click.option(
    "--probes", type=click.IntRange(1, 100), default=8, show_default=True,
    help="Messages timed from POST to recallable memory.",
)  # fmt: skip
@click.option(
    "--rounds", type=click.IntRange(1, 20), default=3, show_default=True,
    help="Paced rounds; the round with the median p99 is reported, with every round's.",
)  # fmt: skip
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the result as JSON.")
@output_options
@pass_ctx
def bench_sessions(
    ctx: Context,
    data: str | None,
    parts: str,
    conversations: str | None,
    mode: str,
    clients: int,
    seconds: float,
    rate: float,
    probes: int,
    rounds: int,
    out: str | None,
) -> None:
    """LoCoMo's conversations fed as sessions through the configured extractor, then its
    questions asked against what was extracted (a hit: a memory whose provenance names an
    evidence turn), beside storing every turn; then message POST latency under --clients
    while a worker extracts, messages accepted per second, and the time from a message to
    its recallable memory."""
    from ...bench import sessions
    from ...bench.locomo import MODES

    wanted = [p.strip() for p in parts.split(",") if p.strip()]
    if not wanted or set(wanted) - set(PARTS):
        raise click.BadParameter(f"one or more of {', '.join(PARTS)}", param_hint="--parts")
    if mode not in MODES:
        raise click.BadParameter(f"one of {', '.join(MODES)}", param_hint="--mode")
    if "quality" in wanted and not data:
        raise click.BadParameter("the quality part needs LoCoMo's data", param_hint="--data")
    progress = Progress()
    result: dict = {}
    if "quality" in wanted:
        result["quality"] = sessions.quality(
            ctx.settings, str(data), conversations=conversations, mode=mode, progress=progress
        )
    if "rest" in wanted:
        result["rest"] = sessions.rest(
            ctx.settings,
            clients=clients,
            seconds=seconds,
            rate=rate,
            probes=probes,
            rounds=rounds,
            progress=progress,
        )
    report(ctx, result, sessions.lines, out, progress)


def register(cli: click.Group) -> None:
    """Add this benchmark to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_sessions)
