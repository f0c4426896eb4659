"""The audit journal: every mutation appended to a Redis Stream per collection.

Entries carry the seed's journal line format (README "Audit journal, history and
undo"): ``ts, op, actor, id, before, after, meta``. Appends are best-effort: a
journal failure is logged, never raised, so the memory operation itself always wins.

The stream is capped by *archival*, never by silent trimming: :meth:`Journal.archive`
first moves the oldest entries beyond ``keep`` into gzip JSONL files (one entry
per line, the seed's line format plus the stream id as ``sid``), and only then
trims them from Redis with ``XTRIM MINID``. :meth:`Journal.read` yields archived
entries and then live ones, oldest → newest, so history survives trimming.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:  # redis loads with the first Journal: `houkai --help` stays light
    import redis

from ..domain.model import ValidationError
from .decode import as_text
from .lease import Lease

log = logging.getLogger(__name__)

#: What a journal entry records: its ``op``.
JournalOp = Literal[
    "remember",
    "forget",
    "edit",
    "supersede",
    "restore",
    "link",
    "unlink",
    "reflect",
    "decay",
    "import",
    "export",
    "undo",
    "nuke",
    "reindex",  # a vector written again into the HNSW graph (findability repair)
]
JOURNAL_OPS: tuple[str, ...] = get_args(JournalOp)
ARCHIVE_SUFFIX = ".jsonl.gz"
_BATCH = 1000
_SID_RE = re.compile(r"^(\d+)-(\d+)$")


def parse_stream_id(sid: str) -> tuple[int, int] | None:
    """``"1700000000000-3"`` → ``(1700000000000, 3)``; None when it is not a stream id."""
    match = _SID_RE.match(sid.strip()) if isinstance(sid, str) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def _sid_text(raw: bytes | str) -> str:
    return as_text(raw)


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
        """The seed's journal record. Snapshots are shared, not deep-copied
        (``asdict`` would copy every nested value: half of a bulk submit's CPU)."""
        return {
            "ts": self.ts,
            "op": self.op,
            "actor": self.actor,
            "id": self.id,
            "before": self.before,
            "after": self.after,
            "meta": self.meta,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    def to_line(self) -> str:
        """One archive line: the seed's journal line plus the stream id as ``sid``."""
        record = self.to_dict()
        if self.stream_id:
            record["sid"] = self.stream_id
        return json.dumps(record, separators=(",", ":")) + "\n"

    @classmethod
    def from_dict(cls, d: dict[str, Any], stream_id: str = "") -> JournalEntry:
        return cls(
            ts=float(d["ts"]),
            op=str(d["op"]),
            actor=str(d.get("actor") or "lib"),
            id=str(d.get("id") or ""),
            before=d.get("before"),
            after=d.get("after"),
            meta=dict(d.get("meta") or {}),
            stream_id=stream_id or str(d.get("sid") or ""),
        )

    def summary(self) -> str:
        """A short human-readable description (CLI tables, logs)."""
        short = self.id[:8]
        if self.op in ("remember", "edit", "import") and self.after:
            return f"{self.op} {short} «{(self.after.get('text') or '')[:60]}»"
        if self.op == "forget" and self.before:
            return f"forget {short} «{(self.before.get('text') or '')[:60]}»"
        if self.op == "supersede":
            return f"supersede {short} → {str(self.meta.get('new_id', ''))[:8]}"
        if self.op in ("link", "unlink"):
            dst = str(self.meta.get("dst_id", ""))[:8]
            return f"{self.op} {short} → {dst} ({self.meta.get('rel') or 'any'})"
        if self.op == "undo":
            return f"undo {self.meta.get('of_op', '?')} {short}"
        return f"{self.op} {short}".rstrip()


class Journal:
    """Append-only audit log of one collection: a Redis Stream plus gzip archives."""

    def __init__(
        self,
        client: redis.Redis,
        key: str,
        *,
        maxlen: int = 100_000,
        archive_dir: str | os.PathLike[str] | None = None,
        name: str | None = None,
        keep_days: float | None = None,
    ) -> None:
        self.client = client
        self.key = key
        self.maxlen = maxlen
        # The seed's journal_keep_days: archives whose newest entry is older are
        # deleted after each archival (never the newest archive). None keeps all.
        self.keep_days = keep_days
        self.archive_dir: Path | None = Path(archive_dir) if archive_dir else None
        # Archive files are named by collection: the key's hash tag (ADR 0079), else its end.
        tagged = "{" in key and "}" in key
        self.name = name or (key[key.find("{") + 1 : key.find("}")] if tagged else "")
        self.name = self.name or key.rsplit(":", 1)[-1]

    # ------------------------------------------------------------------ writes
    def append(self, entry: JournalEntry) -> str | None:
        """Append *entry*; returns its stream id, or None when the write failed (logged)."""
        import redis

        try:
            stream_id = self.client.xadd(self.key, {"e": entry.to_json()})
        except (redis.RedisError, TypeError, ValueError) as exc:
            log.warning("journal append failed for %s %s: %s", entry.op, entry.id, exc)
            return None
        entry.stream_id = _sid_text(stream_id)
        return entry.stream_id

    # ------------------------------------------------------------------ live reads
    def entries(
        self, start: str = "-", end: str = "+", count: int | None = None
    ) -> list[JournalEntry]:
        """Live entries oldest → newest between two stream ids."""
        rows = self.client.xrange(self.key, start, end, count=count)
        return [self._decode(sid, data) for sid, data in rows]

    def iter_live(
        self, start: str = "-", end: str = "+", *, batch: int = _BATCH
    ) -> Iterator[JournalEntry]:
        """Stream live entries oldest → newest in bounded batches."""
        lower = start
        while True:
            rows = self.client.xrange(self.key, lower, end, count=batch)
            for sid, data in rows:
                yield self._decode(sid, data)
            if len(rows) < batch:
                return
            lower = "(" + _sid_text(rows[-1][0])

    def tail(
        self,
        n: int = 20,
        op: str | None = None,
        since_seconds: float | None = None,
        *,
        actor: str | None = None,
    ) -> list[JournalEntry]:
        """The newest *n* live entries (optionally of one op / actor / recent window),
        newest first."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValidationError(f"n must be an integer >= 0 — got {n!r}")
        if since_seconds is not None and (
            isinstance(since_seconds, bool)
            or not isinstance(since_seconds, int | float)
            or since_seconds < 0
        ):
            raise ValidationError(f"since_seconds must be a number >= 0 — got {since_seconds!r}")
        if n == 0:
            return []
        cutoff = None if since_seconds is None else time.time() - float(since_seconds)
        # Stream ids are millisecond stamps, so the window bounds the scan server-side
        # (a minute of slack absorbs clock skew between this host and Redis).
        low = "-" if cutoff is None or cutoff <= 60 else str(int((cutoff - 60) * 1000))
        out: list[JournalEntry] = []
        upper = "+"
        while len(out) < n:
            rows = self.client.xrevrange(self.key, upper, low, count=_BATCH)
            for sid, data in rows:
                entry = self._decode(sid, data)
                if cutoff is not None and entry.ts < cutoff:
                    continue
                if op is not None and entry.op != op:
                    continue
                if actor is not None and entry.actor != actor:
                    continue
                out.append(entry)
                if len(out) >= n:
                    break
            if len(rows) < _BATCH:
                break
            upper = "(" + _sid_text(rows[-1][0])
        return out

    def __len__(self) -> int:
        return int(self.client.xlen(self.key))

    # ------------------------------------------------------------------ all reads
    def read(
        self,
        *,
        include_archives: bool = True,
        since: float | None = None,
        until: float | None = None,
        op: str | None = None,
        actor: str | None = None,
        memory_id: str | None = None,
        limit: int | None = None,
    ) -> Iterator[JournalEntry]:
        """Every entry matching the filters, archived first, then live; oldest → newest.

        Live entries already present in an archive (a crash between writing the
        archive and trimming the stream) are yielded once.
        """
        yielded = 0
        last_archived: tuple[int, int] | None = None

        def keep(entry: JournalEntry) -> bool:
            if since is not None and entry.ts < since:
                return False
            if until is not None and entry.ts > until:
                return False
            if op is not None and entry.op != op:
                return False
            if actor is not None and entry.actor != actor:
                return False
            return memory_id is None or entry.id == memory_id

        sources: list[Iterator[JournalEntry]] = []
        if include_archives:
            sources.append(self._iter_archives())
        for source in sources:
            for entry in source:
                parsed = parse_stream_id(entry.stream_id)
                if parsed is not None and (last_archived is None or parsed > last_archived):
                    last_archived = parsed
                if keep(entry):
                    yield entry
                    yielded += 1
                    if limit is not None and yielded >= limit:
                        return
        start = "-" if last_archived is None else f"({last_archived[0]}-{last_archived[1]}"
        for entry in self.iter_live(start):
            if keep(entry):
                yield entry
                yielded += 1
                if limit is not None and yielded >= limit:
                    return

    def find(self, stream_id: str) -> JournalEntry | None:
        """The entry with this stream id, live or archived."""
        if parse_stream_id(stream_id) is None:
            return None
        rows = self.client.xrange(self.key, stream_id, stream_id, count=1)
        if rows:
            return self._decode(rows[0][0], rows[0][1])
        for entry in self._iter_archives():
            if entry.stream_id == stream_id:
                return entry
        return None

    def find_by_ts(self, ts: float, *, tol: float = 1e-3) -> JournalEntry | None:
        """The first entry whose timestamp is within *tol* seconds of *ts* (seed CLI)."""
        for entry in self.read(since=ts - tol, until=ts + tol):
            return entry
        return None

    # ------------------------------------------------------------------ archival
    def archives(self, archive_dir: str | os.PathLike[str] | None = None) -> list[Path]:
        """This collection's archive files, oldest first."""
        base = Path(archive_dir) if archive_dir else self.archive_dir
        if base is None or not base.is_dir():
            return []
        found: list[tuple[tuple[int, int], Path]] = []
        for path in base.glob(f"{self.name}~*{ARCHIVE_SUFFIX}"):
            parts = path.name[: -len(ARCHIVE_SUFFIX)].split("~")
            if len(parts) != 5 or parts[0] != self.name:
                continue
            first = parse_stream_id(parts[3])
            if first is not None:
                found.append((first, path))
        return [p for _, p in sorted(found)]

    def _iter_archives(self) -> Iterator[JournalEntry]:
        for path in self.archives():
            try:
                with gzip.open(path, "rt", encoding="utf-8") as handle:
                    for line in handle:
                        line = line.strip()
                        if not line:
                            continue
                        try:
                            yield JournalEntry.from_dict(json.loads(line))
                        except (ValueError, KeyError, TypeError):
                            continue  # a damaged line must not hide the rest
            except (OSError, EOFError) as exc:
                log.warning("journal archive %s unreadable: %s", path, exc)

    def _last_archived(self) -> tuple[int, int] | None:
        paths = self.archives()
        if not paths:
            return None
        return parse_stream_id(paths[-1].name[: -len(ARCHIVE_SUFFIX)].split("~")[4])

    def archive(
        self, archive_dir: str | os.PathLike[str] | None = None, keep: int | None = None
    ) -> int:
        """Move the oldest entries beyond *keep* into a gzip JSONL file, then trim them.

        Returns how many entries were archived. The file is fully written and
        renamed into place before ``XTRIM MINID`` removes anything, so a crash
        loses nothing (at worst entries exist in both places; :meth:`read`
        yields them once). A Redis lock keeps two processes from archiving the
        same range.
        """
        base = Path(archive_dir) if archive_dir else self.archive_dir
        if base is None:
            raise ValidationError("journal archive needs an archive directory")
        keep = self.maxlen if keep is None else keep
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise ValidationError(f"keep must be an integer >= 0 — got {keep!r}")
        self.archive_dir = base
        with Lease(self.client, f"{self.key}:archive-lock").holding() as token:
            if token is None:
                log.info("journal %s is being archived by another process", self.key)
                return 0
            written = self._archive_locked(base, keep)
            self._expire_archives()
            return written

    def _archive_locked(self, base: Path, keep: int) -> int:
        done = self._last_archived()
        if done is not None:  # finish a trim a crash may have interrupted
            self.client.xtrim(self.key, minid=f"{done[0]}-{done[1] + 1}", approximate=False)
        excess = len(self) - keep
        if excess <= 0:
            return 0
        base.mkdir(parents=True, exist_ok=True)
        tmp = base / f".{self.name}~{uuid.uuid4().hex}.tmp"
        first: JournalEntry | None = None
        last: JournalEntry | None = None
        written = 0
        try:
            with open(tmp, "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                    for entry in self.iter_live():
                        if written >= excess:
                            break
                        gz.write(entry.to_line().encode("utf-8"))
                        first = first or entry
                        last = entry
                        written += 1
                raw.flush()
                os.fsync(raw.fileno())
            if not written or first is None or last is None:
                tmp.unlink(missing_ok=True)
                return 0
            final = base / "~".join(
                (
                    self.name,
                    _stamp(first.ts),
                    _stamp(last.ts),
                    first.stream_id,
                    last.stream_id,
                )
            )
            final = final.with_name(final.name + ARCHIVE_SUFFIX)
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        ms, seq = parse_stream_id(last.stream_id) or (0, 0)
        self.client.xtrim(self.key, minid=f"{ms}-{seq + 1}", approximate=False)
        log.info("archived %d journal entries of %s to %s", written, self.key, final)
        return written

    def _expire_archives(self) -> int:
        """Delete archives older than ``keep_days`` (the newest always stays); how many."""
        if self.keep_days is None:
            return 0
        cutoff = time.time() - float(self.keep_days) * 86400
        removed = 0
        for path in self.archives()[:-1]:
            try:
                stamp = path.name[: -len(ARCHIVE_SUFFIX)].split("~")[2]
                last_ts = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
            except (IndexError, ValueError):
                continue
            if last_ts < cutoff:
                path.unlink(missing_ok=True)
                removed += 1
        return removed

    @staticmethod
    def _decode(stream_id: bytes | str, data: dict) -> JournalEntry:
        raw = data.get(b"e") or data.get("e") or b"{}"
        return JournalEntry.from_dict(json.loads(raw), stream_id=_sid_text(stream_id))


def _stamp(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y%m%dT%H%M%SZ")


def now() -> float:
    return time.time()
