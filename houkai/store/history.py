"""MemoryStore mixin: undo, history, point-in-time replay and journal upkeep
(README "Audit journal, history and undo").

The journal keeps full before/after snapshots, so it doubles as an audit
time machine. Replay is best-effort by design: it sees only what was
journaled (back to the oldest archive), a ``nuke`` resets it, and replayed
memories carry no vector.
"""

from __future__ import annotations

import logging
from typing import Any

from ..db.journal import JournalEntry
from ..domain.errors import NotFound
from ..domain.model import Memory, StateConflict, ValidationError, content_hash
from .conflicts import Conflicts
from .core import CoreStore
from .graph import Graph
from .memories import Memories

log = logging.getLogger(__name__)

# Fields that change without a journaled mutation (recall touches, the
# embedding pipeline), so they do not count as "changed since".
_VOLATILE = ("last_accessed", "access_count", "state", "error", "collection")
_SNAPSHOT_OPS = ("remember", "import", "edit", "supersede", "restore")


def _stable(snapshot: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (snapshot or {}).items() if k not in _VOLATILE}


def _touches(entry: JournalEntry, memory_id: str) -> bool:
    """The entry concerns *memory_id* as subject or as a counterpart in ``meta``."""
    if entry.id == memory_id:
        return True
    meta = entry.meta or {}
    return memory_id in (
        meta.get("dst_id"),
        meta.get("new_id"),
        meta.get("superseder_id"),
        meta.get("src_id"),
        meta.get("old_id"),
    )


def _replay_link(state: dict[str, dict], meta: dict, *, add: bool) -> None:
    src, dst, rel = meta.get("src_id"), meta.get("dst_id"), meta.get("rel")
    if not src or src not in state:
        return
    links = list(state[src].get("links") or [])
    if add:
        if not any(x.get("to") == dst and x.get("rel") == rel for x in links):
            links.append({"to": dst, "rel": rel})
    else:
        rels = meta.get("removed_rels") or ([rel] if rel else None)
        links = [
            x for x in links if not (x.get("to") == dst and (rels is None or x.get("rel") in rels))
        ]
    state[src] = {**state[src], "links": links}


class History:
    """undo, history, state_at, get_at, journal_tail, archive_journal."""

    def __init__(
        self, core: CoreStore, memories: Memories, graph: Graph, conflicts: Conflicts
    ) -> None:
        self.core = core
        self.memories = memories
        self.graph = graph
        self.conflicts = conflicts

    def archive_journal(self) -> int:
        """Archive journal entries beyond ``settings.journal_maxlen``; returns how many."""
        return self.core.journal.archive(keep=int(self.core.settings.journal_maxlen))

    def journal_tail(
        self, n: int = 20, op: str | None = None, since_seconds: float | None = None
    ) -> list[JournalEntry]:
        """The newest *n* journal entries, newest first, optionally of one op / recent window."""
        return self.core.journal.tail(n, op=op, since_seconds=since_seconds)

    def find_entry(self, ref: JournalEntry | str | float) -> JournalEntry:
        """The journal entry *ref* names (entry, stream id or timestamp), live or archived."""
        if isinstance(ref, JournalEntry):
            return ref
        journal = self.core.journal
        found: JournalEntry | None = None
        if isinstance(ref, str) and "-" in ref:
            found = journal.find(ref.strip())
        elif isinstance(ref, int | float | str) and not isinstance(ref, bool):
            try:
                found = journal.find_by_ts(float(ref))
            except ValueError:
                found = None
        else:
            raise ValidationError(
                f"undo needs a journal entry, stream id or timestamp — got {ref!r}"
            )
        if found is None:
            raise NotFound(f"no journal entry {ref!r}")
        return found

    # ------------------------------------------------------------------ undo
    def undo(self, entry: JournalEntry | str | float, *, strict: bool = False) -> bool:
        """Reverse one journal entry (by entry, stream id or timestamp); True on success.

        Refuses rather than clobbers: when the memory changed or was forgotten
        since, the id exists again, or the op cannot be undone (reflect, decay,
        import, export, nuke, undo), it changes nothing and returns False, as
        the seed does. ``strict=True`` raises ``ValueError`` saying why instead
        (the CLI, REST and MCP doors use it to report the reason). An entry
        reference that matches nothing still raises ``NotFound``.
        """
        e = self.find_entry(entry)
        try:
            handler = getattr(self, f"_undo_{e.op}", None)
            if handler is None:
                raise StateConflict(f"a {e.op!r} entry cannot be undone")
            before, after = handler(e)
        except ValueError as exc:
            if strict:
                raise
            log.info("undo refused: %s", exc)
            return False
        meta = {"of": e.ts, "of_op": e.op, "of_stream_id": e.stream_id}
        self.core.journal_append("undo", e.id, before=before, after=after, meta=meta)
        return True

    def _undo_remember(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        if not self.memories.forget(e.id):
            raise StateConflict(f"cannot undo remember of {e.id}: it was already forgotten")
        return None, None

    def _undo_forget(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        if not e.before:
            raise StateConflict("cannot undo this forget: the entry has no snapshot")
        if self.core.exists(e.id):
            raise StateConflict(f"cannot undo forget of {e.id}: a memory with that id exists again")
        memory = self._revive(e.before)
        return None, memory.to_dict()

    def _undo_edit(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        if not e.before or not e.after:
            raise StateConflict("cannot undo this edit: the entry has no snapshots")
        current = self.core.get(e.id)
        if current is None:
            raise StateConflict(f"cannot undo edit of {e.id}: the memory was forgotten since")
        if _stable(current.to_dict()) != _stable(e.after):
            raise StateConflict(
                f"cannot undo edit of {e.id}: the memory changed since (undo the newer "
                "changes first)"
            )
        restored = Memory.from_dict(e.before)
        restored.access_count, restored.last_accessed = (
            current.access_count,
            current.last_accessed,
        )
        restored.collection = self.core.collection_name
        vector = self.core.encode([restored.text])
        restored.embedding = vector[0].tolist()
        self.core.write([restored], vector)
        return current.to_dict(), restored.to_dict()

    def _undo_supersede(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        current = self.core.get(e.id)
        if current is None:
            raise StateConflict(f"cannot undo supersede of {e.id}: the memory was forgotten since")
        if not current.superseded_by:
            raise StateConflict(f"cannot undo supersede of {e.id}: it is no longer superseded")
        if not self.conflicts.restore(e.id):
            raise StateConflict(f"cannot undo supersede of {e.id}: restore refused")
        return None, None

    def _undo_restore(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        superseder = (e.meta or {}).get("superseder_id")
        if not superseder:
            raise StateConflict("cannot undo this restore: the entry names no superseder")
        if not self.core.exists(e.id):
            raise StateConflict(f"cannot undo restore of {e.id}: the memory was forgotten since")
        if not self.core.exists(superseder):
            raise StateConflict(
                f"cannot undo restore of {e.id}: its superseder {superseder} was forgotten"
            )
        self.conflicts.supersede(e.id, superseder)
        return None, None

    def _link_endpoints(self, e: JournalEntry) -> tuple[str, str]:
        meta = e.meta or {}
        src, dst = str(meta.get("src_id") or e.id), str(meta.get("dst_id") or "")
        for mid in (src, dst):
            if not mid or not self.core.exists(mid):
                raise StateConflict(
                    f"cannot undo {e.op} {src} → {dst}: endpoint {mid or '?'} was forgotten"
                )
        return src, dst

    def _undo_link(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        src, dst = self._link_endpoints(e)
        if not self.graph.unlink(src, dst, (e.meta or {}).get("rel")):
            raise StateConflict(f"cannot undo link {src} → {dst}: the link is already gone")
        return None, None

    def _undo_unlink(self, e: JournalEntry) -> tuple[dict | None, dict | None]:
        src, dst = self._link_endpoints(e)
        meta = e.meta or {}
        rels = meta.get("removed_rels") or [meta.get("rel") or "related"]
        for rel in rels:
            self.graph.link(src, dst, rel)
        return None, None

    def _revive(self, snapshot: dict[str, Any], vector=None) -> Memory:
        """Write a memory back from a snapshot with a vector (re-embedded when not given)."""
        memory = Memory.from_dict(snapshot)
        memory.collection = self.core.collection_name
        memory.content_hash = memory.content_hash or content_hash(memory.text)
        if vector is None:
            vector = self.core.encode([memory.text])
        memory.embedding = vector[0].tolist()
        # MULTI/EXEC: a forget between the HSET and the reverse-index SADDs would
        # otherwise leave reverse entries from a deleted memory.
        pipe = self.core.client.pipeline(transaction=True)
        self.core.write([memory], vector, pipe=pipe)
        self.graph.reindex_links([memory], pipe=pipe)
        pipe.execute()
        return memory

    # ------------------------------------------------------------------ history & replay
    def history(self, memory_id: str, *, include_archives: bool = True) -> list[JournalEntry]:
        """Every journaled event touching *memory_id*, oldest first.

        Includes entries filed under another memory that name this one in
        ``meta`` (a link's ``dst_id``, a supersede's ``new_id``, a restore's
        ``superseder_id``). Store-wide ``nuke`` entries are left out.
        ``include_archives=False`` reads only the live stream (not the gzip
        archives of older entries).
        """
        if not isinstance(memory_id, str) or not memory_id:
            raise ValidationError("memory_id must be a non-empty string")
        journal = self.core.journal
        return [
            e for e in journal.read(include_archives=include_archives) if _touches(e, memory_id)
        ]

    def _replay(
        self, ts: float, only: str | None = None, include_archives: bool = True
    ) -> dict[str, dict]:
        if isinstance(ts, bool) or not isinstance(ts, int | float):
            raise ValidationError(f"timestamp must be a number — got {ts!r}")
        state: dict[str, dict] = {}
        journal = self.core.journal
        for e in journal.read(until=float(ts), include_archives=include_archives):
            if (
                only is not None
                and e.op != "nuke"
                and e.id != only
                and only
                not in (
                    (e.meta or {}).get("src_id"),
                    (e.meta or {}).get("new_id"),
                    (e.meta or {}).get("superseder_id"),
                )
            ):
                continue
            if e.op in _SNAPSHOT_OPS and e.after:
                state[e.id] = dict(e.after)
                # supersede / restore also add / drop the superseder's edge,
                # which is not journaled as a link of its own.
                meta = e.meta or {}
                if e.op == "supersede" and meta.get("new_id"):
                    _replay_link(
                        state,
                        {"src_id": meta["new_id"], "dst_id": e.id, "rel": "supersedes"},
                        add=True,
                    )
                elif e.op == "restore" and meta.get("superseder_id"):
                    _replay_link(
                        state,
                        {"src_id": meta["superseder_id"], "dst_id": e.id, "rel": "supersedes"},
                        add=False,
                    )
            elif e.op == "forget":
                state.pop(e.id, None)
            elif e.op == "nuke":
                state.clear()
            elif e.op in ("link", "unlink"):
                _replay_link(state, e.meta or {}, add=e.op == "link")
            elif e.op == "undo" and e.after:
                # Undo of forget/edit carries the restored snapshot; every other
                # undo is replayed through the op it issued (forget, link, ...).
                state[e.id] = dict(e.after)
        return state

    def state_at(
        self, timestamp: float | None = None, *, include_archives: bool = True, **legacy: Any
    ) -> list[Memory]:
        """Every memory as of *timestamp*, reconstructed by replaying the journal (no vectors).

        ``include_archives=False`` replays only the live stream. ``ts=`` is
        accepted as an older spelling of ``timestamp=``.
        """
        stamp = _timestamp_arg("state_at", timestamp, legacy)
        return [Memory.from_dict(d) for d in self._replay(stamp, None, include_archives).values()]

    def get_at(
        self,
        memory_id: str,
        timestamp: float | None = None,
        *,
        include_archives: bool = True,
        **legacy: Any,
    ) -> Memory | None:
        """One memory as of *timestamp* (see :meth:`state_at`); None if it did not exist then."""
        if not isinstance(memory_id, str) or not memory_id:
            raise ValidationError("memory_id must be a non-empty string")
        stamp = _timestamp_arg("get_at", timestamp, legacy)
        snapshot = self._replay(stamp, memory_id, include_archives).get(memory_id)
        return None if snapshot is None else Memory.from_dict(snapshot)


def _timestamp_arg(method: str, timestamp: Any, legacy: dict[str, Any]) -> Any:
    """The seed's ``timestamp`` argument, also accepted as houkai's earlier ``ts``."""
    if set(legacy) - {"ts"}:
        unknown = sorted(set(legacy) - {"ts"})[0]
        raise TypeError(f"{method}() got an unexpected keyword argument {unknown!r}")
    if "ts" in legacy:
        if timestamp is not None:
            raise TypeError(f"{method}() got both timestamp and ts")
        timestamp = legacy["ts"]
    if timestamp is None:
        raise TypeError(f"{method}() missing required argument: 'timestamp'")
    return timestamp
