"""``houkai ingest``: files, folders, globs or stdin into memories, through the service.

Each input is read and chunked once: a preview (``--dry-run``, or the confirmation
on a terminal) shows the very chunks that are then stored; piped JSONL on stdin
streams into the job line by line.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format
from ._ops import arguments, operation_options

#: Chunks shown as examples before the confirmation on a terminal (--dry-run shows all).
PLAN_EXAMPLES = 3
#: The ingest arguments that are not chunking options (each input names its own).
_INPUTS = ("documents", "path")


def _processed(status: dict[str, Any]) -> int:
    return sum(int(status.get(k) or 0) for k in ("done", "failed", "rejected", "skipped"))


def _status(ctx: Context, job_id: str, total: int) -> dict[str, Any]:
    """The job's status (the ``job`` operation); an empty job is settled and gone."""
    from ...domain.errors import NotFound

    try:
        return dict(ctx.call("job", job_id))
    except NotFound:
        return {"id": job_id, "total": total, "state": "done"}


def follow(
    ctx: Context, job_id: str, total: int, *, timeout: float | None = None, quiet: bool = False
) -> dict[str, Any]:
    """Poll a job (the ``job`` operation) until it settles, with a progress bar on a
    terminal (stderr)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    show = not quiet and sys.stderr.isatty()
    last = -1
    with click.progressbar(
        length=max(total, 1), label="embedding", file=sys.stderr, hidden=not show, show_eta=True
    ) as bar:
        while True:
            status = _status(ctx, job_id, total)
            processed = _processed(status)
            if processed != last:
                bar.update(processed - max(last, 0))
                last = processed
            if status.get("state") in ("done", "failed", "cancelled"):
                return status
            if deadline is not None and time.monotonic() > deadline:
                return status
            time.sleep(0.25)


def _stdin_lines() -> Iterator[str]:
    """stdin's lines, read as they are consumed; a usage error when it holds nothing."""
    head: list[str] = []
    for line in sys.stdin:
        head.append(line)
        if line.strip():
            return itertools.chain(head, sys.stdin)
    raise click.UsageError("no input provided on stdin")


def _inputs(
    paths: tuple[str, ...], documents: Any, jsonl: bool, source: str | None
) -> list[tuple[str, dict[str, Any]]]:
    """(label, input) per input: ``documents``, a ``path``, or stdin (its text as one
    document, or with ``--jsonl`` its ``lines``, read as the job consumes them)."""
    inputs: list[tuple[str, dict[str, Any]]] = []
    if documents is not None:
        inputs.append(("--documents", {"documents": documents}))
        if not paths:
            return inputs
    if not paths:
        if sys.stdin.isatty():
            raise click.UsageError("give files, folders or globs to ingest, or '-' to read stdin")
        paths = ("-",)
    stdin: dict[str, Any] | None = None  # '-' twice is stdin once
    for one in paths:
        if one != "-":
            inputs.append((one, {"path": one}))
            continue
        if stdin is None:
            label = source or "ingest:stdin"
            if jsonl:
                stdin = {"lines": _stdin_lines(), "source": label}
            else:
                raw = sys.stdin.read()
                if not raw.strip():
                    raise click.UsageError("no input provided on stdin")
                stdin = {"documents": [{"text": raw, "source": label}]}
        inputs.append(("stdin", stdin))
    return inputs


def _print_plan(
    plan: list[tuple[str, dict]], inputs: int, default_importance: float, *, full: bool
) -> None:
    """What an ingest would store: with *full* (``--dry-run``) every chunk whole, indented
    under its number; else (the confirmation on a terminal) a few one-line examples."""
    shown = plan if full else plan[:PLAN_EXAMPLES]
    for n, (label, item) in enumerate(shown, 1):
        importance = item.get("importance")
        imp = default_importance if importance is None else float(importance)
        text = item["text"]
        if full:
            click.echo(f"  [{n:3}] {imp:.2f}  {label} ({len(text)} chars)")
            for line in text.splitlines() or [""]:
                click.echo(f"          {line}".rstrip())
            continue
        flat = " ".join(text.split())
        click.echo(f"  [{n:3}] {imp:.2f}  {label}: {flat[:70]}{'…' if len(flat) > 70 else ''}")
    if len(plan) > len(shown):
        click.echo(f"  … and {len(plan) - len(shown)} more (--dry-run shows every chunk in full)")
    click.echo(f"\n{len(plan)} chunk(s) from {inputs} input(s).")


def _label(input_label: str, item: dict[str, Any]) -> str:
    """A chunk's label in the preview: its file name for a path, else the input's."""
    source = str(item.get("source") or "")
    return source.removeprefix("ingest:") if source.startswith("ingest:") else input_label


def _report(ctx: Context, results: list[dict[str, Any]]) -> None:
    if resolve_format(ctx.output_format) == "json":
        click.echo(json.dumps(results if len(results) > 1 else results[0], default=str))
    else:
        for r in results:
            click.echo(
                f"{r['id']}\t{r.get('state', 'queued')}\tdone={r.get('done', 0)}"
                f"\tfailed={r.get('failed', 0)}\ttotal={r['total']}"
            )
        total = sum(int(r.get("total") or 0) for r in results)
        done = sum(int(r.get("done") or 0) for r in results)
        if total == 0:
            click.echo("Nothing to ingest (all chunks below --min-chars?).", err=True)
        elif done == total:
            click.echo(f"Stored {done} memories.", err=True)
        else:
            click.echo(f"Queued {total} memories ({done} stored so far).", err=True)
    if any(r.get("failed") for r in results):
        raise click.exceptions.Exit(1)


@click.command("ingest")
@operation_options(
    "ingest", overrides={"type": {"metavar": "[episodic|semantic|procedural|feedback]"}}
)
@output_options
@pass_ctx
def ingest(
    ctx: Context,
    path: tuple[str, ...],
    jsonl: bool,
    dry_run: bool,
    inline: bool,
    yes: bool,
    **values: Any,
) -> None:
    """Ingest files, folders, globs or stdin ('-' or no path) as memories, one job per path.

    Text is chunked as in the seed: one memory per paragraph (a heading kept
    with its paragraph, long paragraphs split on sentences, chunks under
    --min-chars dropped); --chunking pack fills chunks up to --max-chars.
    --documents takes JSON objects ({"text", "source"?, "tags"?, "type"?}).
    """
    given = arguments(values)
    wait, timeout = given.pop("wait", True), given.pop("timeout", None)
    documents = given.pop("documents", None)
    if inline and not ctx.service_started:
        ctx.settings = replace(ctx.settings, pipeline_mode="inline")
    inputs = _inputs(path, documents, jsonl, given.get("source"))
    service = ctx.service  # in-process: a job is followed here, stdin streams into it
    interactive = not yes and sys.stdin.isatty() and sys.stdout.isatty()
    chunks: list[list[dict[str, Any]]] | None = None
    if dry_run or interactive:
        # Read and chunk every input once; the preview shows what is then stored.
        chunks = service.ingest_preview([what for _, what in inputs], **given)
        plan = [
            (_label(label, i), i) for (label, _), c in zip(inputs, chunks, strict=True) for i in c
        ]
        if not plan:
            click.echo("Nothing to ingest (all chunks below --min-chars?).")
            return
        _print_plan(plan, len(inputs), ctx.settings.default_importance, full=dry_run)
        if dry_run:
            click.echo("Dry-run — nothing written.")
            return
        if not click.confirm(f"Store {len(plan)} memories?", default=False):
            click.echo("Aborted.")
            return
    options = {k: v for k, v in given.items() if k not in _INPUTS}
    results = []
    for n, (label, what) in enumerate(inputs):
        if chunks is not None:
            job = service.ingest_chunks(chunks[n], collection=ctx.collection, **options)
        elif "lines" in what:
            job = service.ingest_stream(
                what["lines"], collection=ctx.collection, **{**options, "source": what["source"]}
            )
        else:
            job = ctx.call("ingest", **given, **what, wait=False)
        click.echo(f"job {job['job_id']}: {job['total']} memories from {label}", err=True)
        if wait:
            status = follow(ctx, job["job_id"], job["total"], timeout=timeout)
        else:
            status = _status(ctx, job["job_id"], job["total"])
        results.append(status)
    _report(ctx, results)


def register(cli: click.Group) -> None:
    cli.add_command(ingest)
