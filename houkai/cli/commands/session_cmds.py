"""``houkai session add|show|list|delete|extract|import``: conversations' working memory."""

from __future__ import annotations

from typing import Any

import click

from .. import Context, pass_ctx
from ..output import DECLARED_BY, Column, confirm, echo_json, fmt_age, output_options, report
from ._ops import arguments, operation_options

CHUNK = 1000  # messages per call (the operation's limit)


@click.group("session")
def session_group() -> None:
    """Sessions: recent messages of conversations, extracted into memories by workers."""


def _added(ctx: Context, data: dict[str, Any]) -> None:
    queued = " (extraction queued)" if data.get("extraction_queued") else ""
    report(
        ctx.fmt,
        data,
        f"Session {data['session_id']}: {data['added']} new message(s), "
        f"{data['pending']} pending extraction{queued}",
    )


@session_group.command("add")
@operation_options("add_messages")
@output_options
@pass_ctx
def add(ctx: Context, text: str | None, role: str, file: str | None, **values: Any) -> None:
    """Add messages to SESSION_ID: --text "…" [--role user], --messages JSON (repeat), or
    --file FILE (JSONL or a JSON chat export)."""
    given = arguments(values)
    messages = list(given.pop("messages", []))
    if text is not None:
        messages.append({"role": role, "content": text})
    if file is not None:
        from ...sessions.chat_import import read_messages

        messages += read_messages(file, given["session_id"])[given["session_id"]]
    if not messages:
        raise click.UsageError("give --text, --messages or --file")
    added = 0
    for start in range(0, len(messages), CHUNK):
        data = ctx.call("add_messages", messages=messages[start : start + CHUNK], **given)
        added += data["added"]
    _added(ctx, {**data, "added": added})


_FILE = click.Argument(["file"], type=click.Path(exists=True, dir_okay=False, readable=True))
setattr(_FILE, DECLARED_BY, "add_messages")  # add_messages' --file, as a positional


@session_group.command("import")
@operation_options("add_messages", overrides={"session_id": {"required": False}})
@output_options
@pass_ctx
def import_cmd(ctx: Context, file: str, **values: Any) -> None:
    """Import FILE (JSONL of messages, or a JSON chat export [{"role", "content"}, …]) into
    SESSION_ID (or the session_id field of each line). Importing twice adds nothing."""
    from ...sessions.chat_import import read_messages

    given = arguments(values)
    sessions = read_messages(file, given.pop("session_id", None))
    results = []
    for sid, messages in sessions.items():
        added = 0
        for start in range(0, len(messages), CHUNK):
            data = ctx.call("add_messages", sid, messages=messages[start : start + CHUNK], **given)
            added += data["added"]
        results.append({**data, "added": added})
    if ctx.fmt == "json":
        echo_json(results if len(results) > 1 else results[0])
        return
    for data in results:
        _added(ctx, data)


# FILE replaces add's --text/--role/--file/--messages: the file is the messages
import_cmd.params = [_FILE] + [
    p for p in import_cmd.params if p.name not in ("text", "role", "file", "messages")
]


@session_group.command("show")
@operation_options("session_get")
@output_options
@pass_ctx
def show(ctx: Context, **values: Any) -> None:
    """SESSION_ID as a prompt context: window (what each message became), summary, memories."""
    data = ctx.call("session_get", **arguments(values))
    if ctx.fmt == "json":
        echo_json(data)
        return
    click.echo(data["text"] or "(empty session)")
    click.echo(
        f"\n-- {data['used_tokens']}/{data['budget']} tokens, {len(data['window'])} message(s) "
        f"in the window, {data['pending']} pending extraction",
        err=True,
    )
    for message in data["window"]:
        became = message.get("became")
        if became:
            made = ", ".join(f"{e['action']} {e['id'][:8]}" for e in became)
            click.echo(f"   {message['id']}: {made}", err=True)


@session_group.command("list")
@operation_options("session_list")
@output_options
@pass_ctx
def list_cmd(ctx: Context, **values: Any) -> None:
    """Sessions, most recently active first."""
    from ..output import print_rows

    rows = ctx.call("session_list", **arguments(values))
    print_rows(
        ctx.fmt,
        rows,
        [
            Column("session_id", "SESSION"),
            Column("user_id", "USER"),
            Column("agent_id", "AGENT"),
            Column("updated_at", "ACTIVE", show=fmt_age),
            Column("messages_total", "MESSAGES", justify="right"),
            Column("pending", "PENDING", justify="right"),
            Column("memories", "MEMORIES", justify="right"),
        ],
        empty="(no sessions)",
    )


@session_group.command("delete")
@operation_options("session_delete")
@output_options
@pass_ctx
def delete(ctx: Context, session_id: str, yes: bool) -> None:
    """Forget SESSION_ID's messages and summary (the memories extracted from it stay)."""
    confirm(f"Delete session {session_id!r}?", yes=yes)
    data = ctx.call("session_delete", session_id)
    report(ctx.fmt, data, f"Deleted session {session_id}")


@session_group.command("extract")
@operation_options("session_extract")
@output_options
@pass_ctx
def extract(ctx: Context, session_id: str) -> None:
    """Extract SESSION_ID's pending messages now (queued to a worker when one runs)."""
    data = ctx.call("session_extract", session_id)
    if data.get("queued"):
        report(ctx.fmt, data, f"Extraction of {session_id} queued ({data['task_id']})")
        return
    report(
        ctx.fmt,
        data,
        f"{session_id}: {data.get('messages', 0)} message(s) → {data.get('added', 0)} added, "
        f"{data.get('updated', 0)} updated, {data.get('unchanged', 0)} unchanged",
    )


def register(cli: click.Group) -> None:
    cli.add_command(session_group)
