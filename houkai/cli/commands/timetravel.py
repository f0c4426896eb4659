"""``houkai history``, ``state-at``, ``get-at`` and ``metrics``: audit and operations views."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import (
    Column,
    echo_json,
    fmt_ts,
    output_options,
    print_mapping,
    print_memories,
    print_memory_detail,
    print_rows,
    resolve_id,
)
from ._ops import operation_options
from .recall import parse_time_option


def _required_ts(value: str) -> float:
    ts = parse_time_option(value, "TS")
    if ts is None:
        raise click.BadParameter("a timestamp is required", param_hint="TS")
    return ts


@click.command("history")
@operation_options("history", arguments=("memory_id",))
@output_options
@pass_ctx
def history(ctx: Context, memory_id: str) -> None:
    """Every journal entry that touched a memory, oldest first (works after a forget too)."""
    try:
        full = resolve_id(ctx.reader(), memory_id)
    except ValueError:
        full = memory_id  # a forgotten memory is no longer in the keyspace
    entries = ctx.call("history", full)
    print_rows(
        ctx.fmt,
        entries,
        [
            Column("entry_id", "ENTRY", style="dim"),
            Column("ts", "TIME", show=fmt_ts),
            Column("op", "OP"),
            Column("actor", "ACTOR", style="cyan"),
            Column("summary", "SUMMARY"),
        ],
    )


@click.command("state-at")
@operation_options("state_at", arguments=("ts",))
@output_options
@pass_ctx
def state_at(ctx: Context, ts: str) -> None:
    """The collection as it was at TS (epoch, ISO-8601 or a span like 2d), from the journal."""
    state = ctx.call("state_at", _required_ts(ts))
    if ctx.fmt == "json":
        echo_json(state)
        return
    print_memories(ctx.fmt, state["memories"])


@click.command("get-at")
@operation_options("get_at", arguments=("memory_id", "ts"))
@output_options
@pass_ctx
def get_at(ctx: Context, memory_id: str, ts: str) -> None:
    """One memory as it was at TS, reconstructed from the journal."""
    try:
        full = resolve_id(ctx.reader(), memory_id)
    except ValueError:
        full = memory_id
    stamp = _required_ts(ts)
    then = ctx.call("get_at", full, stamp)
    if not then["ok"]:
        raise click.ClickException(f"memory {full!r} did not exist at {fmt_ts(stamp)}")
    print_memory_detail(ctx.fmt, then)


@click.command("metrics")
@operation_options("metrics")
@output_options
@pass_ctx
def metrics(ctx: Context) -> None:
    """Operation counters and recall latency of the collection."""
    print_mapping(ctx.fmt, ctx.call("metrics"))


def register(cli: click.Group) -> None:
    for command in (history, state_at, get_at, metrics):
        cli.add_command(command)
