"""``houkai remember``: store one memory (text argument or stdin)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ...domain.config import parse_duration
from ...domain.model import CONFLICT_POLICIES, MEMORY_TYPES, ConflictError
from ...domain.timeparse import is_relative, parse_timestamp
from .. import Context, pass_ctx
from ..output import output_options, report, short_id


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


def parse_ttl(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--ttl") from None
    if seconds <= 0:
        raise click.BadParameter("must be > 0", param_hint="--ttl")
    return seconds


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
@click.argument("text", required=False)
@click.option(
    "--type",
    "-t",
    "type_",
    type=click.Choice(MEMORY_TYPES),
    help="Memory type (default: config default_type).",
)
@click.option("--tag", "-g", "tags", multiple=True, help="Tag (repeatable).")
@click.option(
    "--importance",
    "-i",
    type=click.FloatRange(0.0, 1.0),
    help="Importance 0..1 (default: config default_importance).",
)
@click.option(
    "--auto-importance",
    is_flag=True,
    help="Score importance from the text (also: auto_importance = true in config).",
)
@click.option("--source", "-s", help="Provenance string (exact-match filterable).")
@click.option(
    "--polarity",
    type=click.IntRange(-1, 1),
    default=0,
    show_default=True,
    help="-1 negative, 0 neutral, +1 positive statement.",
)
@click.option("--ttl", help="Expire after this span: 90s, 30m, 24h, 7d, 2w.")
@click.option("--expires-at", help="Expire at this instant: epoch seconds or ISO-8601.")
@click.option(
    "--on-conflict",
    type=click.Choice(CONFLICT_POLICIES),
    help="What to do with near-duplicates/contradictions (default: config).",
)
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Wait until the memory is embedded and searchable.",
)
@click.option("--timeout", type=click.FloatRange(min=0.0), help="Seconds to wait at most.")
@click.option("--stdin", "from_stdin", is_flag=True, help="Read the text from stdin.")
@output_options
@pass_ctx
def remember(
    ctx: Context,
    text: str | None,
    type_: str | None,
    tags: tuple[str, ...],
    importance: float | None,
    auto_importance: bool,
    source: str | None,
    polarity: int,
    ttl: str | None,
    expires_at: str | None,
    on_conflict: str | None,
    wait: bool,
    timeout: float | None,
    from_stdin: bool,
) -> None:
    """Store a new memory and print its id. TEXT '-' (or none, when piped) reads stdin."""
    body = read_text(text, from_stdin)
    ttl_seconds = parse_ttl(ttl)
    expiry = parse_expires_at(expires_at)
    if ttl_seconds is not None and expiry is not None:
        raise click.UsageError("pass at most one of --ttl and --expires-at")
    if importance is None and (auto_importance or ctx.settings.auto_importance):
        from ...engines.importance import score_importance

        importance = score_importance(body, type_ or ctx.settings.default_type, list(tags))
    kwargs: dict[str, Any] = dict(
        type=type_,
        tags=list(tags),
        importance=importance,
        source=source,
        on_conflict=on_conflict,
        polarity=polarity,
        expires_at=expiry,
        ttl_seconds=ttl_seconds,
    )
    try:
        result = ctx.call("remember", body, **kwargs, wait=wait, timeout=timeout)
    except ConflictError as exc:
        raise click.ClickException(conflict_message(exc.conflicts)) from None
    report(ctx.fmt, result, result["id"])


def register(cli: click.Group) -> None:
    cli.add_command(remember)
