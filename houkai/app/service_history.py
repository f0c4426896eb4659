"""The journal's operations: journal_tail, journal_entry, history, state_at, get_at, undo."""

from __future__ import annotations

from typing import Any

from ..domain.coerce import as_timestamp
from ..domain.errors import NotFound
from ..domain.model import MemoryNotFound
from ..domain.timeparse import iso_utc
from .operations import params as params
from .operations.bind import operation
from .service_base import ServiceBase
from .shapes import entry_to_dict, memory_to_dict


class HistoryOps(ServiceBase):
    """Operations over the audit journal (time travel and undo)."""

    # ------------------------------------------------------------------ audit
    @operation("journal_tail")
    def journal_tail(
        self, p: params.JournalTail, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        """Newest-first journal entries ``{ts, op, actor, id, summary, meta}``."""
        store = self.read_store(collection)
        entries = store.journal_tail(n=p.n, op=p.op, since_seconds=p.since_seconds)
        return [entry_to_dict(e, full=False) for e in entries]

    @operation("journal_entry")
    def journal_entry(
        self, p: params.JournalEntryRef, *, collection: str | None = None
    ) -> dict[str, Any]:
        """One journal entry in full (live or archived), by stream id or epoch ts."""
        return entry_to_dict(self.read_store(collection).find_entry(p.entry.strip()))

    @operation("history")
    def history(
        self, p: params.MemoryRef, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        """The memory's full timeline, oldest first; 404 for an id never journaled nor stored."""
        store = self.read_store(collection)
        entries = store.history(p.memory_id)
        if not entries and store.get(p.memory_id) is None:
            raise MemoryNotFound(p.memory_id)
        return [entry_to_dict(e) for e in entries]

    @operation("state_at")
    def state_at(self, p: params.StateAt, *, collection: str | None = None) -> dict[str, Any]:
        stamp = as_timestamp(p.ts, "ts")
        memories = self.read_store(collection).state_at(stamp)
        return {
            "ts": stamp,
            "count": len(memories),
            "memories": [memory_to_dict(m) for m in memories],
        }

    @operation("get_at")
    def get_at(self, p: params.GetAt, *, collection: str | None = None) -> dict[str, Any]:
        """``{ok: true, ts, …memory}`` or ``{ok: false, error}`` when it did not exist then."""
        stamp = as_timestamp(p.ts, "ts")
        memory = self.read_store(collection).get_at(p.memory_id, stamp)
        if memory is None:
            try:
                when = iso_utc(stamp) if stamp is not None else "that time"
            except (ValueError, OverflowError, OSError):  # before year 1 or past 9999
                when = repr(stamp)
            return {"ok": False, "error": f"memory {p.memory_id!r} did not exist at {when}"}
        return {"ok": True, **memory_to_dict(memory), "ts": stamp}

    @operation("undo")
    def undo(self, p: params.Undo, *, collection: str | None = None) -> dict[str, Any]:
        """Reverse one journaled mutation: by journal entry id, else the newest one
        touching *memory_id*, else the newest undoable entry of the collection."""
        store = self.read_store(collection)
        entry: Any
        if p.entry_id is not None:
            entry = store.find_entry(p.entry_id)  # live stream and archives alike
        else:
            entry = self._latest_undoable(store, p.memory_id)
        result = store.undo(entry, strict=True)
        return {
            "ok": bool(result) if isinstance(result, bool) else True,
            "op": entry.op,
            "id": entry.id,
            "ts": entry.ts,
            "actor": entry.actor,
            "entry_id": entry.stream_id,
        }

    @staticmethod
    def _latest_undoable(store: Any, memory_id: str | None) -> Any:
        """The newest entry an undo has not reversed yet, so that undo after undo walks
        back through the history (as an editor's undo does) instead of undoing the undo:
        undo entries are skipped, and so are the entries they reversed and the entry each
        wrote doing it (undoing a remember journals a forget)."""
        reversed_ids: set[str] = set()
        # (memory id, op, the reversed entry's position): what an undo journaled while
        # reversing lies between the entry it reversed and itself (several links, when
        # an unlink that removed several relations is undone)
        side_effects: list[tuple[str, str, tuple[int, ...]]] = []
        for entry in store.journal.tail(500):
            if entry.op == "undo":
                meta = entry.meta or {}
                of = str(meta.get("of_stream_id"))
                reversed_ids.add(of)
                side = _UNDONE_BY.get(str(meta.get("of_op")))
                if side:
                    side_effects.append((entry.id, side, _position(of)))
                continue
            at = _position(entry.stream_id)
            if any(i == entry.id and op == entry.op and at > of for i, op, of in side_effects):
                continue
            if entry.op in ("nuke", "export") or entry.stream_id in reversed_ids:
                continue
            if (
                memory_id is None
                or entry.id == memory_id
                or memory_id in (str(v) for v in (entry.meta or {}).values())
            ):
                return entry
        raise NotFound("no journal entry to undo" + (f" for {memory_id!r}" if memory_id else ""))


def _position(stream_id: str) -> tuple[int, ...]:
    """A journal entry's place in its stream (``"1712345678901-3"`` → ``(1712345678901, 3)``)."""
    try:
        return tuple(int(part) for part in stream_id.split("-"))
    except ValueError:
        return ()


#: The entry an undo of each op journals while reversing it (undoing a remember forgets).
_UNDONE_BY = {
    "remember": "forget",
    "supersede": "restore",
    "restore": "supersede",
    "link": "unlink",
    "unlink": "link",
}
