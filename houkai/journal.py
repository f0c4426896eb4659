"""The audit journal: every mutation appended to a Redis Stream per collection.

Entries carry the seed's line format (§18): ``ts, op, actor, id, before, after,
meta``. Appends are best-effort: a journal failure is logged, never raised, so
the memory operation itself always wins.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import redis

log = logging.getLogger(__name__)

JOURNAL_OPS: tuple[str, ...] = (
    "remember", "forget", "edit", "supersede", "restore", "link", "unlink", "reflect",
    "decay", "import", "export", "undo", "nuke",
)


@dataclass
class JournalEntry:
    ts: float
    op: str
    actor: str
    id: str
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    stream_id: str = ""  # the Redis Stream entry id, "" before it is appended

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("stream_id")
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any], stream_id: str = "") -> JournalEntry:
        return cls(
            ts=float(d["ts"]), op=str(d["op"]), actor=str(d.get("actor") or "lib"),
            id=str(d.get("id") or ""), before=d.get("before"), after=d.get("after"),
            meta=dict(d.get("meta") or {}), stream_id=stream_id,
        )


class Journal:
    """Append-only audit log of one collection, kept in a Redis Stream."""

    def __init__(self, client: redis.Redis, key: str, *, maxlen: int = 100_000) -> None:
        self.client = client
        self.key = key
        self.maxlen = maxlen

    def append(self, entry: JournalEntry) -> str | None:
        """Append *entry*; returns its stream id, or None when the write failed (logged)."""
        try:
            stream_id = self.client.xadd(self.key, {"e": entry.to_json()})
        except (redis.RedisError, TypeError, ValueError) as exc:
            log.warning("journal append failed for %s %s: %s", entry.op, entry.id, exc)
            return None
        entry.stream_id = stream_id.decode() if isinstance(stream_id, bytes) else str(stream_id)
        return entry.stream_id

    def entries(self, start: str = "-", end: str = "+", count: int | None = None
                ) -> list[JournalEntry]:
        """Entries oldest → newest between two stream ids."""
        rows = self.client.xrange(self.key, start, end, count=count)
        return [self._decode(sid, data) for sid, data in rows]

    def tail(self, n: int = 20) -> list[JournalEntry]:
        """The newest *n* entries, newest first."""
        rows = self.client.xrevrange(self.key, "+", "-", count=n)
        return [self._decode(sid, data) for sid, data in rows]

    def __len__(self) -> int:
        return int(self.client.xlen(self.key))

    @staticmethod
    def _decode(stream_id: bytes | str, data: dict) -> JournalEntry:
        raw = data.get(b"e") or data.get("e") or b"{}"
        sid = stream_id.decode() if isinstance(stream_id, bytes) else str(stream_id)
        return JournalEntry.from_dict(json.loads(raw), stream_id=sid)


def now() -> float:
    return time.time()
