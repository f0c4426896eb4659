"""The JSON shapes every door returns, each built once here: a memory, a conflict, a
journal entry, a context pack, a job's status."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain.model import Conflict, ConflictError, Memory
from .operations import params as params


# --------------------------------------------------------------------------- shapes
def memory_to_dict(
    memory: Memory, *, score: float | None = None, explain: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A memory as the REST/MCP JSON shape (the seed's ``_mem_dict`` plus ``state``)."""
    out: dict[str, Any] = {
        "id": memory.id,
        "text": memory.text,
        "type": memory.type,
        "tags": list(memory.tags),
        "importance": memory.importance,
        "source": memory.source,
        "created_at": memory.created_at,
        "last_accessed": memory.last_accessed,
        "access_count": memory.access_count,
        "polarity": memory.polarity,
        "links": [{"to": link.to, "rel": link.rel} for link in memory.links],
        "superseded_by": memory.superseded_by or None,
        "superseded_at": memory.superseded_at or None,
        "expires_at": memory.expires_at or None,
        "collection": memory.collection or None,
        "state": memory.state,
        **memory.scope_dict(),  # user_id, agent_id, session_id, message_ids when set
    }
    if memory.error:
        out["error"] = memory.error
    if score is not None:
        out["score"] = round(float(score), 4)
    if explain is not None:
        out["explain"] = explain
    return out


def conflict_to_dict(conflict: Conflict | Mapping[str, Any]) -> dict[str, Any]:
    """The seed's find_conflicts row ``{kind, reason, similarity, a, b}``."""
    if isinstance(conflict, Mapping):
        return dict(conflict)
    return {
        "kind": conflict.kind,
        "reason": conflict.reason,
        "similarity": round(float(conflict.similarity), 4),
        "a": {"id": conflict.a.id, "text": conflict.a.text[:120], "type": conflict.a.type},
        "b": {"id": conflict.b.id, "text": conflict.b.text[:120], "type": conflict.b.type},
    }


def conflict_payload(exc: ConflictError) -> dict[str, Any]:
    """The seed's refused-remember shape ``{stored: false, conflicts: [...]}``."""
    return {"stored": False, "conflicts": [conflict_to_dict(c) for c in exc.conflicts]}


def _entry_summary(entry: Any) -> str:
    summary = getattr(entry, "summary", None)
    if callable(summary):
        try:
            return str(summary())
        except Exception:  # a summary is cosmetic
            pass
    text = ""
    for snap in (entry.after, entry.before):
        if isinstance(snap, dict) and snap.get("text"):
            text = str(snap["text"])
            break
    head = f"{entry.op} {entry.id[:8]}" if entry.id else entry.op
    return f"{head}: {text[:60]}" if text else head


def entry_to_dict(entry: Any, *, full: bool = True) -> dict[str, Any]:
    """A journal entry as JSON: ``{ts, op, actor, id, [before, after,] meta, summary}``."""
    out: dict[str, Any] = {"ts": entry.ts, "op": entry.op, "actor": entry.actor, "id": entry.id}
    if full:
        out["before"] = entry.before
        out["after"] = entry.after
    out["meta"] = entry.meta
    out["summary"] = _entry_summary(entry)
    if getattr(entry, "stream_id", ""):
        out["entry_id"] = entry.stream_id
    return out


def pack_to_dict(pack: Any) -> dict[str, Any]:
    return {
        "text": pack.text,
        "used_tokens": pack.used_tokens,
        "budget": pack.budget,
        "truncated": pack.truncated,
        "items": [
            {**memory_to_dict(p.memory), "score": round(float(p.score), 4), "tokens": p.tokens}
            for p in pack.items
        ],
        "compressed_groups": [
            {
                "ids": [m.id for m in g.memories],
                "text": g.text,
                "tokens": g.tokens,
                "count": len(g.memories),
            }
            for g in getattr(pack, "compressed_groups", None) or []
        ],
    }


def status_dict(status: Any) -> dict[str, Any]:
    to_dict = getattr(status, "to_dict", None)
    return to_dict() if callable(to_dict) else dict(vars(status))
