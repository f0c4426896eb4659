"""``houkai remember``: store one memory (text argument or stdin)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ...domain.model import ConflictError
from ...domain.timeparse import is_relative, parse_timestamp
from .. import Context, pass_ctx
from ..output import output_options, report, short_id
from ._ops import arguments, operation_options


def read_text(text: str | None, force_stdin: bool = False) -> str:
    """*text*, or stdin when it is ``-`` / omitted (and stdin is piped) or *force_stdin*."""
    if force_stdin:
        if text is not None and text != "-":
            raise click.UsageError("give the text as an argument or --stdin, not both")
        text = "-"
    if text is not None and text != "-":
        return text
    if text is None and sys.stdin.isatty():
        raise click.UsageError("give the memory text as an argument, or '-' to read stdin")
    body = sys.stdin.read()
    if not body.strip():
        raise click.UsageError("no text on stdin")
    return body


def parse_expires_at(value: str | None) -> float | None:
    """``--expires-at``: epoch or ISO-8601; ``0`` clears / means never."""
    if value is None:
        return None
    if is_relative(value):
        raise click.BadParameter(
            f"{value!r} is a relative span; use --ttl {value} for a relative expiry",
            param_hint="--expires-at",
        )
    try:
        return parse_timestamp(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--expires-at") from None


def conflict_message(conflicts: list) -> str:
    """``--on-conflict raise`` refused the write: say with what, on one line."""
    parts = []
    for c in conflicts[:3]:
        d = c.to_dict() if hasattr(c, "to_dict") else dict(c)
        b = d.get("b")
        other: dict[str, Any] = b if isinstance(b, dict) else {}
        similarity = d.get("similarity")
        sim = f", similarity {float(similarity):.2f}" if similarity is not None else ""
        parts.append(
            f"{d.get('kind', 'conflict')} of {short_id(str(other.get('id', '?')))}"
            f"{sim}: {str(other.get('text', ''))[:60]!r}"
        )
    more = f" (+{len(conflicts) - 3} more)" if len(conflicts) > 3 else ""
    return f"Not stored: {len(conflicts)} conflict(s) — {'; '.join(parts)}{more}"


@click.command("remember")
@operation_options(
    "remember",
    overrides={"text": {"required": False}, "expires_at": {"type": click.STRING}},
)
@output_options
@pass_ctx
def remember(ctx: Context, stdin: bool, **values: Any) -> None:
    """Store a new memory and print its id. TEXT '-' (or none, when piped) reads stdin.

    --expires-at also takes ISO-8601; --ttl a span (--ttl-seconds: seconds)."""
    given = arguments(values)
    given["text"] = read_text(given.get("text"), stdin)
    if "expires_at" in given:
        given["expires_at"] = parse_expires_at(given["expires_at"])
        if "ttl_seconds" in given:
            raise click.UsageError("pass at most one of --ttl and --expires-at")
    try:
        result = ctx.call("remember", **given)
    except ConflictError as exc:
        raise click.ClickException(conflict_message(exc.conflicts)) from None
    report(ctx.fmt, result, result["id"])


def register(cli: click.Group) -> None:
    cli.add_command(remember)
