"""``houkai journal tail|show|undo``: the audit journal of the current collection."""

from __future__ import annotations

from typing import Any

import click

from .. import Context, pass_ctx
from ..output import (
    Column,
    confirm,
    echo_json,
    fmt_ts,
    output_options,
    print_mapping,
    print_rows,
    resolve_id,
    short_id,
)
from ..output import report as say
from ._ops import arguments, operation_options


@click.group("journal")
def journal_group() -> None:
    """Inspect and undo the audit journal."""


@journal_group.command("tail")
@operation_options("journal_tail")
@output_options
@pass_ctx
def tail(ctx: Context, **values: Any) -> None:
    """The newest journal entries, newest first (--since: a span; --since-seconds: seconds)."""
    given = arguments(values)
    rows = ctx.call("journal_tail", **given)
    print_rows(
        ctx.fmt,
        rows,
        [
            Column("entry_id", "ENTRY", style="dim"),
            Column("ts", "TIME", show=fmt_ts),
            Column("op", "OP"),
            Column("actor", "ACTOR", style="cyan"),
            Column("summary", "SUMMARY"),
        ],
        empty="(no journal entries)",
    )


@journal_group.command("show")
@operation_options("journal_entry")
@output_options
@pass_ctx
def show(ctx: Context, entry: str) -> None:
    """One entry in full (before/after snapshots), by entry id or timestamp."""
    data = ctx.call("journal_entry", entry)
    if ctx.fmt == "json":
        echo_json(data)
    else:
        print_mapping(ctx.fmt, data)


@journal_group.command("undo")
@operation_options("undo", overrides={"entry_id": {"metavar": "[ENTRY]"}})
@output_options
@pass_ctx
def undo(ctx: Context, entry_id: str | None, memory_id: str | None, yes: bool) -> None:
    """Reverse one entry (remember → forget, forget → restore, edit → previous version…).

    ENTRY is a journal entry id (see `journal tail`) or its epoch ts; or give
    --memory-id to undo the newest change to that memory; or neither, to undo the
    collection's newest change."""
    if entry_id is not None:
        found = ctx.call("journal_entry", entry_id)
        confirm(f"Undo {found['summary']}?", yes=yes)
        result = ctx.call("undo", entry_id=found["entry_id"])
        say(ctx.fmt, result, f"Undone: {found['summary']}")
        return
    if memory_id is None:
        confirm("Undo the newest change in this collection?", yes=yes)
        result = ctx.call("undo")
        say(ctx.fmt, result, f"Undone: {result.get('op')} of {short_id(str(result.get('id')))}")
        return
    try:
        full = resolve_id(ctx.reader(), memory_id)
    except ValueError:
        full = memory_id  # a forgotten memory is no longer in the keyspace
    confirm(f"Undo the newest change to {short_id(full)}?", yes=yes)
    result = ctx.call("undo", memory_id=full)
    say(ctx.fmt, result, f"Undone: {result.get('op')} of {short_id(full)}")


def register(cli: click.Group) -> None:
    cli.add_command(journal_group)
