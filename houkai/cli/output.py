"""How the CLI prints: rich tables for people, TSV for pipes, JSON on request.

The renderer is chosen at call time (``sys.stdout.isatty()`` and ``NO_COLOR``),
never at import time, so redirecting a command's output switches it to TSV.
Tables show 8-character id prefixes; TSV and JSON keep full ids so scripts can
join on them. :func:`resolve_id` turns such a prefix back into a full id.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import click

from ..db.keys import prefix_pattern
from ..domain.model import Memory, ValidationError

MIN_PREFIX = 4
SHORT_ID = 8


class ConfirmationRequired(click.ClickException):
    """A destructive command ran without ``--yes`` where nobody can answer a prompt."""


# --------------------------------------------------------------------------- format
def is_tty() -> bool:
    """True when stdout is a terminal and the user did not ask for NO_COLOR."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty and not os.environ.get("NO_COLOR")


def resolve_format(fmt: str | None) -> str:
    """``auto`` → ``table`` on a terminal, ``tsv`` otherwise; others pass through."""
    fmt = FORMAT_ALIASES.get(fmt or "auto", fmt)
    if fmt in ("table", "tsv", "json"):
        return fmt
    return "table" if is_tty() else "tsv"


def _set_format(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value:
        from . import Context

        obj = ctx.find_object(Context)
        if obj is not None:
            obj.output_format = (
                "json" if param.name == "as_json" else FORMAT_ALIASES.get(value, value)
            )
    return value


# The seed's spellings: ``rich`` is the table renderer, ``text`` (pack) the default view.
FORMAT_ALIASES = {"rich": "table", "text": "auto"}


#: The attribute marking where a command's click parameter was declared:
#: ``"output"`` here (every command's presentation), else the registry operation's name
#: (:func:`houkai.cli.commands._ops.operation_options`).
DECLARED_BY = "houkai_declared_by"


def output_options(f: Callable) -> Callable:
    """Per-command ``--format``/``-f`` and ``--json`` (the seed's spellings), overriding the
    global one; ``rich`` and ``text`` are the seed's names for the table and default views."""
    before = len(getattr(f, "__click_params__", ()))
    f = _output_options(f)
    for param in f.__click_params__[before:]:  # type: ignore[attr-defined]
        setattr(param, DECLARED_BY, "output")
    return f


def _output_options(f: Callable) -> Callable:
    f = click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        is_eager=False,
        callback=_set_format,
        help="Print JSON (same as --format json).",
    )(f)
    f = click.option(
        "--format",
        "-f",
        "fmt",
        type=click.Choice(["auto", "table", "tsv", "json", "rich", "text"]),
        expose_value=False,
        callback=_set_format,
        help="Output format (default: the global --format).",
    )(f)
    return f


# --------------------------------------------------------------------------- values
def short_id(memory_id: str) -> str:
    return memory_id[:SHORT_ID]


def fmt_age(ts: float | None, now: float | None = None) -> str:
    """``just now`` / ``5m ago`` / ``3d ago`` / ``2mo ago`` (``in 3d`` for the future)."""
    if not ts:
        return "—"
    delta = (time.time() if now is None else now) - float(ts)
    future = delta < 0
    delta = abs(delta)
    if delta < 60:
        text = "just now" if not future else "in <1m"
        return text
    for size, unit in (
        (86400 * 365, "y"),
        (86400 * 30, "mo"),
        (86400 * 7, "w"),
        (86400, "d"),
        (3600, "h"),
        (60, "m"),
    ):
        if delta >= size:
            amount = int(delta // size)
            return f"in {amount}{unit}" if future else f"{amount}{unit} ago"
    return "just now"  # pragma: no cover - unreachable


def fmt_importance(value: float) -> str:
    """A five-cell bar: ``███░░`` for 0.6."""
    if not isinstance(value, int | float) or not math.isfinite(value):
        return "?????"
    filled = max(0, min(5, round(float(value) * 5)))
    return "█" * filled + "░" * (5 - filled)


def fmt_ts(ts: float | None) -> str:
    """An epoch as ``2026-01-31 09:30:00Z``; empty for 0 / None."""
    if not ts:
        return ""
    return datetime.fromtimestamp(float(ts), tz=UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def truncate(text: str, width: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def tsv_cell(value: Any) -> str:
    """One TSV field: no tabs or newlines inside, lists comma-joined, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(round(value, 6))
    if isinstance(value, list | tuple):
        return ",".join(tsv_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value).replace("\t", " ").replace("\r", " ").replace("\n", " ")


# --------------------------------------------------------------------------- writers
def dumps(data: Any) -> str:
    """JSON exactly as REST (minus its trailing newline) and MCP serialise a result,
    so ``--format json`` output is byte-identical to theirs."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, default=_json_default)


def echo_json(data: Any) -> None:
    click.echo(dumps(data))


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, set | frozenset):
        return sorted(value)
    return str(value)


def console():
    """A rich Console on the *current* stdout (CliRunner and redirections swap it)."""
    from rich.console import Console

    return Console(
        file=sys.stdout, no_color=bool(os.environ.get("NO_COLOR")), highlight=False, soft_wrap=False
    )


@dataclass(frozen=True)
class Column:
    """One column: the record key, its table header and how a table cell shows it."""

    key: str
    header: str = ""
    show: Callable[[Any], str] | None = None
    justify: str = "left"
    style: str | None = None
    max_width: int | None = None


def print_rows(
    fmt: str,
    rows: Sequence[dict[str, Any]],
    columns: Sequence[Column],
    *,
    title: str | None = None,
    json_data: Any = None,
    empty: str | None = None,
) -> None:
    """Render records as a rich table, TSV (header + full values) or JSON.

    *json_data* replaces *rows* in JSON output when the JSON shape should be
    richer than the table. *empty* goes to stderr for people when there are no rows,
    in every format (before the ``[]`` / TSV header, which scripts still get on stdout).
    """
    if not rows and empty:
        click.echo(empty, err=True)
        if fmt == "table":
            return
    if fmt == "json":
        echo_json(list(rows) if json_data is None else json_data)
        return
    if fmt == "tsv":
        click.echo("\t".join(c.key for c in columns))
        for row in rows:
            click.echo("\t".join(tsv_cell(row.get(c.key)) for c in columns))
        return
    from rich.table import Table

    table = Table(title=title, show_header=True, header_style="bold cyan", expand=False)
    for c in columns:
        table.add_column(
            c.header or c.key.upper(),
            justify=c.justify,  # type: ignore[arg-type]
            style=c.style,
            max_width=c.max_width,
            overflow="fold",
        )
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c.key)
            cells.append(c.show(value) if c.show else ("" if value is None else str(value)))
        table.add_row(*cells, style="dim" if row.get("_dim") else None)
    console().print(table)


def print_mapping(fmt: str, data: dict[str, Any], *, title: str | None = None) -> None:
    """A flat-ish dict: JSON as is, TSV as ``key<TAB>value`` lines, a two-column grid for people."""
    if fmt == "json":
        echo_json(data)
        return
    flat = _flatten(data)
    if fmt == "tsv":
        for key, value in flat:
            click.echo(f"{key}\t{tsv_cell(value)}")
        return
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    for key, value in flat:
        grid.add_row(key, tsv_cell(value) if not isinstance(value, str) else value)
    out = console()
    if title:
        out.rule(title)
    out.print(grid)


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.extend(_flatten(value, name + "."))
        else:
            out.append((name, value))
    return out


def report(fmt: str, payload: dict[str, Any], message: str) -> None:
    """A command's outcome: *payload* as JSON, else the human sentence *message*."""
    if fmt == "json":
        echo_json(payload)
    else:
        click.echo(message)


# --------------------------------------------------------------------------- memories
def memory_record(
    memory: Memory | dict[str, Any],
    score: float | None = None,
    explain: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON shape of a memory on every door (the service's: ``null`` for unset fields)."""
    if isinstance(memory, Memory):
        from ..app.service import memory_to_dict  # a dict (a server's answer) needs none

        return memory_to_dict(memory, score=score, explain=explain)
    record = dict(memory)
    if score is not None:
        record["score"] = round(float(score), 4)
    if explain is not None:
        record["explain"] = explain
    return record


MEMORY_COLUMNS: tuple[Column, ...] = (
    Column("id", "ID", show=short_id, style="dim"),
    Column("type", "TYPE"),
    Column("importance", "IMP", show=fmt_importance),
    Column("tags", "TAGS", show=lambda v: truncate(",".join(v or []), 24)),
    Column("created_at", "CREATED", show=fmt_age),
    Column("text", "TEXT", show=lambda v: truncate(v or "", 70)),
)
#: Which memory supersedes a row, for listings that include superseded ones (the full id
#: piped, the short one in a table).
SUPERSEDED_COLUMN = Column(
    "superseded_by", "SUPERSEDED BY", show=lambda v: short_id(v) if v else ""
)
SCORE_COLUMN = Column(
    "score", "SCORE", show=lambda v: "—" if v is None else f"{v:.3f}", justify="right"
)


def _normalise(items: Iterable[Any]) -> list[dict[str, Any]]:
    """Service dicts, Memory objects or ``(memory, score[, explain])`` tuples → records."""
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, Memory | dict):
            out.append(memory_record(item))
        elif len(item) == 2:
            out.append(memory_record(item[0], item[1]))
        else:
            out.append(memory_record(item[0], item[1], item[2]))
    return out


def print_memories(
    fmt: str,
    items: Iterable[Any],
    *,
    show_score: bool = False,
    empty: str = "No memories found.",
    extra: Sequence[Column] = (),
) -> None:
    """Memories (service dicts, Memory objects or ``(memory, score[, explain])`` tuples)
    in the chosen format; JSON is exactly the records given."""
    records = _normalise(items)
    json_data = [dict(r) for r in records]
    for record in records:
        if record.get("superseded_by"):
            record["_dim"] = True
    if fmt == "tsv":
        columns = [
            Column("id"),
            Column("type"),
            Column("importance"),
            Column("tags"),
            Column("created_at"),
            Column("text"),
        ]
        if show_score:
            columns.append(Column("score"))
        columns.extend(extra)
        tsv_rows = [{**r, "created_at": int(r.get("created_at") or 0)} for r in records]
        print_rows(fmt, tsv_rows, columns, empty=empty)
        return
    columns = list(MEMORY_COLUMNS)
    if show_score:
        columns.insert(3, SCORE_COLUMN)
    columns[-1:-1] = list(extra)
    print_rows(fmt, records, columns, json_data=json_data, empty=empty)


def print_memory_detail(fmt: str, memory: Memory | dict[str, Any]) -> None:
    """One memory, every field: a panel plus a metadata grid for people."""
    m = memory_record(memory)
    if fmt != "table":
        print_mapping(fmt, m)
        return
    from rich.panel import Panel
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    importance = float(m.get("importance") or 0.0)
    grid.add_row("id", m["id"])
    grid.add_row("type", str(m.get("type")))
    grid.add_row("importance", f"{importance:.2f}  {fmt_importance(importance)}")
    grid.add_row("tags", ", ".join(m.get("tags") or []) or "—")
    created = m.get("created_at")
    grid.add_row("created", f"{fmt_ts(created)}  ({fmt_age(created)})")
    grid.add_row("last_accessed", fmt_age(m.get("last_accessed")))
    grid.add_row("access_count", str(m.get("access_count") or 0))
    grid.add_row("source", m.get("source") or "—")
    grid.add_row("polarity", str(m.get("polarity") or 0))
    state = str(m.get("state") or "")
    grid.add_row("state", state + (f" ({m['error']})" if m.get("error") else ""))
    expires = m.get("expires_at")
    if expires:
        expired = " (expired)" if float(expires) <= time.time() else ""
        grid.add_row("expires", f"{fmt_ts(expires)}  ({fmt_age(expires)})" + expired)
    if m.get("superseded_by"):
        grid.add_row("superseded_by", m["superseded_by"])
    for name in ("user_id", "agent_id", "session_id"):  # provenance and scope, when set
        if m.get(name):
            grid.add_row(name, str(m[name]))
    if m.get("message_ids"):
        grid.add_row("message_ids", ", ".join(m["message_ids"]))
    links = m.get("links") or []
    if links:
        grid.add_row("links", "\n".join(f"{x['rel']} → {x['to']}" for x in links))
    out = console()
    out.print(Panel(m.get("text") or "", title=short_id(m["id"]), border_style="cyan"))
    out.print(grid)


# --------------------------------------------------------------------------- safety
def confirm(prompt: str, *, yes: bool = False) -> None:
    """Ask before a destructive action; returns when confirmed.

    On a terminal it prompts. Without one, a piped answer line (``y``/``yes``
    or ``n``/``no``, as in the seed) is read from stdin; with no answer there
    (a script, CI, ``< /dev/null``) it raises :class:`ConfirmationRequired`
    instead of guessing. A "no" prints ``Aborted.`` and ends the command with
    exit status 0, as the seed does: declining is not an error.
    """
    if yes:
        return
    try:
        interactive = sys.stdin.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if interactive:
        answer = click.confirm(prompt, default=False, err=True)
    else:
        try:
            line = sys.stdin.readline()
        except (OSError, ValueError):
            line = ""
        reply = line.strip().lower()
        if reply not in ("y", "yes", "n", "no"):
            raise ConfirmationRequired(
                f"{prompt.rstrip('?')}: refusing without --yes (stdin is not a terminal"
                + (f" and {reply!r} is not y or n)" if reply else ")")
            )
        answer = reply in ("y", "yes")
    if not answer:
        click.echo("Aborted.", err=True)
        raise click.exceptions.Exit(0)


# --------------------------------------------------------------------------- ids
def resolve_id(store: Any, ref: str) -> str:
    """A full memory id from a full id or a unique prefix of at least 4 characters.

    Looks the exact id up first, then SCANs the collection's memory keys with
    ``MATCH <prefix>*`` — streamed by the server, never loading the collection
    into Python. Raises ``ValueError`` when nothing or more than one matches.
    """
    ref = _id_ref(ref, "memory")
    if store.exists(ref):
        return ref
    where = f"collection {store.collection_name!r}"
    _check_prefix(ref, "memory", where)
    prefix = store.keys.memory_prefix
    matches: list[str] = []
    for key in store.client.scan_iter(match=prefix_pattern(prefix + ref), count=5000):
        text = key.decode("utf-8") if isinstance(key, bytes) else str(key)
        matches.append(text[len(prefix) :])
        if len(matches) >= 5:
            break
    return _unique(matches, ref, "memory", "memories", where)


def resolve_job_id(service: Any, collection: str, ref: str) -> str:
    """A full job id of *collection* from a full id or a unique prefix of at least 4
    characters (the same rule and words as :func:`resolve_id`), asked of the service."""
    ref = _id_ref(ref, "job")
    matches = service.job_ids_starting(ref, limit=5, collection=collection)
    if ref in matches:
        return ref
    where = f"collection {collection!r}"
    _check_prefix(ref, "job", where)
    return _unique(matches, ref, "job", "jobs", where)


def _id_ref(ref: Any, what: str) -> str:
    if not isinstance(ref, str) or not ref.strip():
        raise ValidationError(f"{what} id must not be empty")
    return ref.strip()


def _check_prefix(ref: str, what: str, where: str) -> None:
    if len(ref) < MIN_PREFIX:
        raise ValidationError(
            f"{what} not found: no {what} with id {ref!r} in {where} (an id prefix needs at "
            f"least {MIN_PREFIX} characters)"
        )


def _unique(matches: list[str], ref: str, what: str, plural: str, where: str) -> str:
    if not matches:
        raise ValidationError(
            f"{what} not found: no {what} with id or id prefix {ref!r} in {where}"
        )
    if len(matches) > 1:
        more = "+" if len(matches) >= 5 else ""
        shown = ", ".join(sorted(short_id(m) for m in matches))
        raise ValidationError(
            f"ambiguous id prefix {ref!r}: matches {len(matches)}{more} {plural} "
            f"({shown}); type more characters"
        )
    return matches[0]


def resolve_ids(store: Any, refs: Iterable[str]) -> list[str]:
    return [resolve_id(store, ref) for ref in refs]
