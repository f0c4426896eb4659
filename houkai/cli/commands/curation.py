"""``houkai edit``, ``tag`` and ``bump``: change a memory in place (journaled, undoable)."""

from __future__ import annotations

import os
from typing import Any

import click

from .. import Context, pass_ctx
from ..output import output_options, report, resolve_id, short_id
from ._ops import arguments, operation_options
from .remember import parse_expires_at, read_text

_HELP = (
    "# Edit the fields, and the text below the dashed line; save and quit to apply. "
    "'#' lines are ignored."
)


def _load(ctx: Context, memory_id: str) -> dict[str, Any]:
    """The memory (service shape) for a full id or a unique prefix."""
    return dict(ctx.call("get", resolve_id(ctx.reader(), memory_id)))


def editor_document(memory: dict[str, Any]) -> str:
    return (
        f"{_HELP}\n"
        f"type: {memory['type']}\n"
        f"importance: {memory['importance']}\n"
        f"tags: {', '.join(memory.get('tags') or [])}\n"
        f"source: {memory.get('source') or ''}\n"
        f"polarity: {memory.get('polarity') or 0}\n"
        f"---\n{memory['text']}\n"
    )


def parse_editor_document(raw: str) -> dict[str, Any]:
    """The edited fields; raises ``click.UsageError`` on a malformed document."""
    if "\n---" not in "\n" + raw:
        raise click.UsageError("the edited file lost its '---' line; nothing changed")
    head, _, body = ("\n" + raw).partition("\n---")
    body = body.split("\n", 1)[1] if "\n" in body else ""
    fields: dict[str, Any] = {"text": body.strip()}
    for line in head.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            raise click.UsageError(f"cannot read line {line!r} (expected 'key: value')")
        if key == "type":
            fields["type"] = value
        elif key == "importance":
            try:
                fields["importance"] = float(value)
            except ValueError:
                raise click.UsageError(f"importance must be a number — got {value!r}") from None
        elif key == "tags":
            fields["tags"] = [t.strip() for t in value.split(",") if t.strip()]
        elif key == "source":
            fields["source"] = value or None
        elif key == "polarity":
            try:
                fields["polarity"] = int(value)
            except ValueError:
                raise click.UsageError(f"polarity must be -1, 0 or 1 — got {value!r}") from None
        else:
            raise click.UsageError(f"unknown field {key!r} in the edited file")
    return fields


def _editor() -> str:
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


@click.command("edit")
@operation_options(
    "edit",
    arguments=("memory_id",),
    aliases={"type": ("-t",), "tags": ("-g",), "importance": ("-i",)},
    overrides={"expires_at": {"type": click.STRING}},
)
@output_options
@pass_ctx
def edit(ctx: Context, memory_id: str, **values: Any) -> None:
    """Change a memory in place: same id and links; the text is re-embedded if it changed.

    --text '-' reads stdin; --source '' clears the source; --expires-at takes epoch or
    ISO-8601 ('0' clears the expiry). Without any option: open $EDITOR."""
    memory = _load(ctx, memory_id)
    changes = arguments(values)
    if changes.get("clear_source") is False:
        del changes["clear_source"]  # --no-clear-source is not a change
    if "text" in changes:
        changes["text"] = read_text(changes["text"])
    if "source" in changes:
        changes["source"] = changes["source"] or None
    expiry = changes.pop("expires_at", None)  # --ttl gave a timestamp already (a float)
    if isinstance(expiry, str):
        expiry = parse_expires_at(expiry)
    if expiry is not None:
        changes["expires_at"] = expiry
    if not changes:
        edited = click.edit(editor_document(memory), editor=_editor(), extension=".md")
        if edited is None:
            report(
                ctx.fmt,
                {"id": memory["id"], "changed": False},
                f"No changes to {short_id(memory['id'])}.",
            )
            return
        changes = parse_editor_document(edited)
    if "source" in changes and not changes["source"]:
        del changes["source"]  # unset arguments are dropped: clearing is a flag
        changes["clear_source"] = True
    result = ctx.call("edit", memory["id"], **changes)
    updated = result["memory"]
    changed = updated != memory
    if ctx.fmt == "json":
        report(ctx.fmt, {**result, "changed": changed}, "")
        return
    if not changed:
        click.echo(f"No changes to {short_id(memory['id'])}.")
    elif updated["text"] != memory["text"]:
        click.echo(f"Updated {short_id(memory['id'])} (text re-embedded).")
    else:
        click.echo(f"Updated {short_id(memory['id'])}.")


@click.command("tag")
@operation_options("tag")
@output_options
@pass_ctx
def tag(ctx: Context, memory_id: str, **values: Any) -> None:
    """Add or remove tags (metadata only; the vector is untouched)."""
    full = resolve_id(ctx.reader(), memory_id)
    updated = ctx.call("retag", full, **arguments(values))
    report(
        ctx.fmt,
        updated,
        f"{short_id(updated['id'])} tags: {', '.join(updated['tags']) or '(none)'}",
    )


@click.command("bump", context_settings={"ignore_unknown_options": True})
@operation_options("bump")
@output_options
@pass_ctx
def bump(ctx: Context, memory_id: str, delta: str) -> None:
    """Adjust importance: +0.2, -0.1, or =0.9 (clamped to 0..1)."""
    full = resolve_id(ctx.reader(), memory_id)
    updated = ctx.call("bump", full, delta.strip())
    report(
        ctx.fmt,
        updated,
        f"{short_id(updated['id'])} importance: "
        f"{updated['before']:.2f} → {updated['importance']:.2f}",
    )


def register(cli: click.Group) -> None:
    cli.add_command(edit)
    cli.add_command(tag)
    cli.add_command(bump)
