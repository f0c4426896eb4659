"""``houkai bench scale``: one node at 100k, 300k and 1M memories (bytes, latency, jobs)."""

from __future__ import annotations

import json
import sys

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format
from .bench_recall import int_list


@click.command("scale")
@click.option(
    "--n",
    "n",
    type=click.IntRange(1, 100_000_000),
    default=1_000_000,
    show_default=True,
    help="Largest collection size (the last step).",
)
@click.option(
    "--steps",
    default="100000,300000",
    show_default=True,
    help="Smaller sizes measured on the way to --n (comma-separated; larger ones are ignored).",
)
@click.option(
    "--corpus",
    "corpus_size",
    type=click.IntRange(100, 1_000_000),
    default=20_000,
    show_default=True,
    help="Texts embedded once (cached under DATA_DIR/bench) that every memory derives from.",
)
@click.option(
    "--queries",
    "n_queries",
    type=click.IntRange(1, 10_000),
    default=200,
    show_default=True,
    help="Distinct queries per latency pass.",
)
@click.option(
    "--rest/--no-rest",
    default=True,
    show_default=True,
    help="Also measure GET /recall through the REST app.",
)
@click.option(
    "--jobs",
    default=None,
    help="Maintenance jobs to time (comma-separated; default: all; an unknown name lists them).",
)
@click.option(
    "--job-timeout",
    type=click.FloatRange(1),
    default=1800.0,
    show_default=True,
    help="Seconds before a maintenance job is stopped and reported as timed out.",
)
@click.option(
    "--job-runs",
    type=click.IntRange(1, 9),
    default=3,
    show_default=True,
    help="Times each maintenance job is run; the median run is reported (a job whose "
    "first run takes over 600 s is run once).",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Keep the collection and the figures in --out; load on from its size and take only "
    "the measurements (and failed jobs) missing there.",
)
@click.option("--collection", default="bench-scale", show_default=True)
@click.option("--seed", type=int, default=7, show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the JSON here after every step (and a PNG next to it).",
)
@output_options
@pass_ctx
def bench_scale(
    ctx: Context,
    n: int,
    steps: str,
    corpus_size: int,
    n_queries: int,
    rest: bool,
    jobs: str | None,
    job_timeout: float,
    job_runs: int,
    resume: bool,
    collection: str,
    seed: int,
    out: str | None,
) -> None:
    """Grow one collection to N memories (realistic vectors without the encoder) and measure
    Redis bytes per memory, HNSW recall@10, recall p50/p99 (library, REST) and every
    maintenance job's time and peak RSS at each step. The collection is left in place."""
    from ...bench import scale as bench
    from ...db.keys import validate_collection

    step_list = sorted({x for x in int_list(steps, "--steps") if x < n} | {n})
    given = jobs.split(",") if jobs is not None else bench.JOBS
    job_list = [j.strip() for j in given if j.strip()]
    unknown = sorted(set(job_list) - set(bench.JOBS))
    if unknown:
        raise click.BadParameter(
            f"unknown job(s) {unknown}; choose from {', '.join(bench.JOBS)}", param_hint="--jobs"
        )
    if resume and not out:
        raise click.BadParameter(
            "--resume needs --out (the figures to resume)", param_hint="--resume"
        )
    try:
        validate_collection(collection)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--collection") from None

    def progress(message: str) -> None:
        click.echo(message, err=True)

    result = bench.run(
        ctx.settings,
        step_list,
        corpus_size=corpus_size,
        n_queries=n_queries,
        rest=rest,
        jobs=job_list,
        job_timeout=job_timeout,
        job_runs=job_runs,
        collection=collection,
        seed=seed,
        out=out,
        progress=progress,
        resume=resume,
    )
    result["config"]["command"] = " ".join(["houkai", *sys.argv[1:]])
    if out:
        from pathlib import Path

        Path(out).write_text(json.dumps(result, indent=2) + "\n")
    if resolve_format(ctx.output_format) == "json":
        click.echo(json.dumps(result))
    else:
        for line in bench.lines(result):
            click.echo(line)


def register(cli: click.Group) -> None:
    """Add these benchmarks to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_scale)
