"""RediSearch filter clauses built from validated metadata filters."""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .keys import value_key

if TYPE_CHECKING:
    from ..domain.model import Memory

_SCOPE_TAGS = {"user_id": "uidk", "agent_id": "aidk", "session_id": "sidk"}


def _num(value: float) -> str:
    return repr(float(value))


def filter_expr(
    *,
    type: str | None = None,
    tag: str | None = None,
    tags_all: list[str] | None = None,
    min_importance: float | None = None,
    source: str | None = None,
    since: float | None = None,
    until: float | None = None,
    include_superseded: bool = False,
    include_expired: bool = False,
    state: str | None = None,
    now: float | None = None,
    scope: Mapping[str, str] | None = None,
) -> str:
    """A RediSearch query clause for the metadata filters ("*" when there are none).

    Every value that comes from a user is either validated against a vocabulary,
    converted to a number, or hashed, so nothing here can inject query syntax.
    """
    parts: list[str] = []
    if type is not None:
        parts.append(f"@type:{{{type}}}")
    if tag:
        parts.append(f"@tagk:{{{value_key(tag)}}}")
    for t in tags_all or ():
        parts.append(f"@tagk:{{{value_key(t)}}}")
    if source:
        parts.append(f"@srck:{{{value_key(source)}}}")
    for name, value in (scope or {}).items():  # user_id / agent_id / session_id → its TAG
        if value:
            parts.append(f"@{_SCOPE_TAGS[name]}:{{{value_key(value)}}}")
    if min_importance is not None:
        parts.append(f"@importance:[{_num(min_importance)} +inf]")
    if since is not None or until is not None:
        lo = _num(since) if since is not None else "-inf"
        hi = _num(until) if until is not None else "+inf"
        parts.append(f"@created_at:[{lo} {hi}]")
    if not include_superseded:
        parts.append("@sup:{0}")
    if not include_expired:
        cutoff = time.time() if now is None else now
        parts.append(f"-@expires_at:[(0 {_num(cutoff)}]")
    if state is not None:
        parts.append(f"@state:{{{state}}}")
    if not parts:
        return "*"
    return " ".join(parts)


def matches(memory: Memory, **filters: Any) -> bool:
    """Does *memory* pass the filter :func:`filter_expr` writes for the same keyword
    arguments? For hits a query fetched without it (recall's rare-word leg, ADR 0113).
    Tags, sources and scope values compare as the index holds them, hashed and exact."""
    unknown = set(filters) - _FILTER_ARGUMENTS
    if unknown:
        raise TypeError(f"matches() got unexpected filters {sorted(unknown)}")
    kind, tag, source = filters.get("type"), filters.get("tag"), filters.get("source")
    floor, since, until = (filters.get(k) for k in ("min_importance", "since", "until"))
    if kind is not None and memory.type != kind:
        return False
    held = {value_key(t) for t in memory.tags}
    if any(
        value_key(t) not in held
        for t in [*([tag] if tag else []), *(filters.get("tags_all") or ())]
    ):
        return False
    if source and value_key(memory.source or "") != value_key(source):
        return False
    for name, value in (filters.get("scope") or {}).items():
        if value and (getattr(memory, name, "") or "") != value:
            return False
    if floor is not None and not memory.importance >= floor:
        return False
    if (since is not None and memory.created_at < since) or (
        until is not None and memory.created_at > until
    ):
        return False
    if not filters.get("include_superseded") and memory.superseded_by:
        return False
    if not filters.get("include_expired"):
        now = filters.get("now")
        if 0 < memory.expires_at <= (time.time() if now is None else now):
            return False
    state = filters.get("state")
    return state is None or memory.state == state


_FILTER_ARGUMENTS = frozenset(inspect.signature(filter_expr).parameters)
