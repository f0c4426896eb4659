"""MemoryStore mixin: export / import of portable ``.ahkai`` archives
(README "Export and import"; ADR 0013).

Both directions stream in bounded batches, so a collection of any size moves
without being held in memory. Export order is ``created_at`` ascending, then
id, so two exports of the same store differ only in the header timestamp.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np

from ..db.keys import value_key
from ..domain.model import (
    IMPORT_POLICIES,
    MAX_ID_CHARS,
    MEMORY_TYPES,
    EmbeddingModelMismatch,
    Memory,
    ValidationError,
    new_id,
    validate_choice,
    validate_tags,
)
from . import access, codec
from .archive import (
    EXPORT_FORMAT,
    EXPORT_VERSION,
    EXPORT_VERSION_BASE64,
    VECTOR_FORMATS,
    ArchiveError,
    ArchiveLimits,
    ArchiveWriter,
    ExportSummary,
    ImportConflictError,
    ImportSummary,
    iter_archive,
    read_archive_header,
)
from .chains import STORED, import_cycles, stored_superseders
from .core import CoreStore
from .export_rows import (
    ROW_FIELDS,
    base64_strings,
    batch_blob_length,
    dump_compact,
    encode_row,
    f16_arrays,
    fetch_rows,
    stored_bytes,
)
from .graph import Graph
from .import_rows import row_memory, unicode_ok
from .search import iter_windows
from .updates import link_updates

log = logging.getLogger(__name__)

__all__ = ["ArchiveError", "Portability", "read_archive_header"]


def _export_query(
    *,
    include_superseded: bool,
    types: list[str] | None,
    tags: list[str] | None,
    since: float | None,
) -> str:
    """The RediSearch clause for the export filters (every value validated or hashed)."""
    parts: list[str] = []
    if not include_superseded:
        parts.append("@sup:{0}")
    if types:
        parts.append("@type:{" + "|".join(types) + "}")
    if tags:
        parts.append("@tagk:{" + "|".join(value_key(t) for t in tags) + "}")
    if since is not None:
        parts.append(f"@created_at:[{float(since)!r} +inf]")
    return " ".join(parts) or "*"


_EXPORT_BATCH = 1000  # keys per pipelined HMGET round trip
_EXPORT_READS_AHEAD = 2  # windows being read while one is encoded (memory: three in hand)
_CREATED_THEN_ID = itemgetter(0, 1)  # how a window's encoded rows are ordered


class _Compressor:
    """gzip in one helper thread (zlib releases the GIL) while the caller reads
    and encodes the next rows; at most two chunks wait, so memory stays bounded."""

    def __init__(self, writer: ArchiveWriter) -> None:
        self._writer = writer
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="houkai-export")
        self._pending: deque[Future[None]] = deque()

    def submit(self, blob: bytes) -> None:
        while len(self._pending) >= 2:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(self._writer.write_raw, blob))

    def __enter__(self) -> _Compressor:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            while self._pending:
                self._pending.popleft().result()
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)


class Portability:
    """export, import_."""

    def __init__(self, core: CoreStore, graph: Graph) -> None:
        self.core = core
        self.graph = graph

    # ------------------------------------------------------------------ export
    def export(
        self,
        path: str | os.PathLike[str],
        *,
        include_vectors: bool = True,
        include_superseded: bool = False,
        types: Iterable[str] | None = None,
        tags: Iterable[str] | None = None,
        since: float | None = None,
        vector_format: str = "json",
    ) -> ExportSummary:
        """Stream the collection (filtered) to a gzipped JSONL ``.ahkai`` archive.

        ``vector_format="json"`` (the default) writes the seed's format (version 1);
        ``"base64"`` writes each vector as base64 of its stored bytes (version 2,
        read by this importer only), exact to the bit and a third smaller (ADR 0053).
        """
        started = time.time()
        validate_choice(vector_format, VECTOR_FORMATS, "vector_format")
        encoding = "json"
        if vector_format == "base64" and include_vectors:
            encoding = "base64-float16" if self.core.vector_type == "FLOAT16" else "base64-float32"
        type_list = sorted(set(types)) if types else None
        for t in type_list or ():
            validate_choice(t, MEMORY_TYPES, "types")
        tag_list = sorted(set(validate_tags(tags))) if tags else None
        if since is not None and (isinstance(since, bool) or not isinstance(since, int | float)):
            raise ValidationError(f"since must be a number (epoch seconds) — got {since!r}")
        out = Path(path)
        if out.is_dir():
            raise IsADirectoryError(21, "Is a directory", str(out))
        query = _export_query(
            include_superseded=include_superseded, types=type_list, tags=tag_list, since=since
        )
        self.core.count_call("export")
        options: dict[str, Any] = {
            "include_vectors": bool(include_vectors),
            "include_superseded": bool(include_superseded),
            "types": type_list,
            "tags": tag_list,
            "since": since,
        }
        if encoding != "json":  # the seed's header, byte for byte, when the vectors are JSON
            options["vector_encoding"] = encoding
        header = {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION if encoding == "json" else EXPORT_VERSION_BASE64,
            "exported_at": started,
            "source": {
                "collection": self.core.collection_name,
                "embedding_model": self.core.embedder.name,
                "embedding_dim": int(self.core.index_params.dim) if include_vectors else 0,
                "count": self._count_matching(query),
            },
            "options": options,
        }
        count = 0
        with ArchiveWriter(out) as writer, _Compressor(writer) as compressor:
            writer.write(header)
            for rows, lines in self._export_windows(query, include_vectors, encoding):
                count += rows
                compressor.submit(lines)
        size = out.stat().st_size
        self.core.journal_append(
            "export", "", meta={"path": str(out), "count": count, "bytes": size}
        )
        return ExportSummary(
            path=out,
            count=count,
            bytes=size,
            elapsed=time.time() - started,
            vectors_included=bool(include_vectors),
        )

    def _count_matching(self, query: str) -> int:
        from .search import total

        return total(self.core.client, self.core.keys.index, query)

    def _export_windows(
        self, query: str, with_vector: bool, encoding: str = "json"
    ) -> Iterator[tuple[int, bytes]]:
        """``(rows, archive lines)`` per ``created_at`` window, in (created_at, id) order,
        straight from the hashes.

        The keys come as windows (``search.iter_windows``); the next
        :data:`_EXPORT_READS_AHEAD` windows are read by helper threads while this one is
        encoded here, so Redis always has a request queued. Each window's rows are
        sorted by ``(created_at, id)``: ties never cross a window. Encoding stays in one
        thread: two threads encoding at once contended for the GIL and cost more CPU
        per row (ADR 0063).
        """
        fields = (*ROW_FIELDS, codec.F.VEC) if with_vector else ROW_FIELDS
        pool = ThreadPoolExecutor(
            max_workers=_EXPORT_READS_AHEAD, thread_name_prefix="houkai-export-read"
        )
        ahead: deque[Future[tuple[list[Any], list[Any]]]] = deque()

        def encoded(read: Future[tuple[list[Any], list[Any]]]) -> tuple[int, bytes]:
            rows = self._export_encode(*read.result(), encoding)
            rows.sort(key=_CREATED_THEN_ID)
            return len(rows), b"".join([row[2] for row in rows])

        try:
            windows = iter_windows(
                self.core.client, self.core.keys.index, query, "created_at", _EXPORT_BATCH
            )
            for keys in windows:
                ahead.append(pool.submit(self._export_read, keys, fields))
                if len(ahead) > _EXPORT_READS_AHEAD:
                    yield encoded(ahead.popleft())
            while ahead:
                yield encoded(ahead.popleft())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _export_read(self, keys: list[str], fields: tuple[str, ...]) -> tuple[list[Any], list[Any]]:
        """One window's hash fields (one round trip per :data:`_EXPORT_BATCH` keys), with the
        access documents' counts in place of the hash's own, and the pending counts."""
        replies: list[Any] = []
        ids = [codec.memory_id_from_key(self.core.keys, key) for key in keys]
        docs = [self.core.keys.access_doc(i) for i in ids]
        counts: list[Any] = []
        for start in range(0, len(keys), _EXPORT_BATCH):
            replies += fetch_rows(self.core.client, keys[start : start + _EXPORT_BATCH], fields)
            counts += fetch_rows(
                self.core.client, docs[start : start + _EXPORT_BATCH], access.ACCESS_FIELDS
            )
        at = ROW_FIELDS.index("last_accessed"), ROW_FIELDS.index("access_count")
        for values, (last, count) in zip(replies, counts, strict=True):
            if last is not None:
                values[at[0]] = last
            if count is not None:
                values[at[1]] = count
        pending = self.core.client.hmget(
            self.core.keys.access, [f"{p}:{i}" for i in ids for p in ("n", "t")]
        )
        return replies, pending

    def _export_encode(
        self, replies: list[Any], access: list[Any], encoding: str = "json"
    ) -> list[tuple[float, str, bytes]]:
        """``(created_at, id, line)`` for each key of a batch read by :meth:`_export_read`
        that is still present: :func:`encode_row` writes the meta straight from the hash
        values; the batch's vectors are spelled together."""
        dim = int(self.core.index_params.dim)
        vector_type = self.core.vector_type
        as_is = batch_blob_length(vector_type, dim, encoding)
        width = len(ROW_FIELDS)
        heads: list[tuple[float, str, bytes]] = []
        tails: list[bytes | None] = []
        blobs: list[bytes] = []
        for i, values in enumerate(replies):
            if values[0] is None and values[1] is None:
                continue  # deleted since the key list was read
            heads.append(encode_row(values, access[2 * i], access[2 * i + 1]))
            raw = values[width] if len(values) > width else None
            if not raw:
                tails.append(b"}\n")
            elif len(raw) == as_is:
                blobs.append(raw)
                tails.append(None)  # spelled with the batch's other vectors, below
            elif encoding != "json":
                blobs.append(stored_bytes(raw, vector_type, dim, encoding))
                tails.append(None)
            else:
                vector = codec.vector_from_bytes(raw, vector_type, dim)
                if vector is None:  # pragma: no cover - a non-empty blob always decodes
                    tails.append(b',"vector":null}\n')
                else:
                    tails.append(b',"vector":' + dump_compact(vector.tolist()) + b"}\n")
        # the vector is the row's last key, as json.dumps would put it
        before, after = b',"vector":', b"}\n"
        if encoding == "json":
            vectors = iter(f16_arrays(blobs, dim, before, after))
        else:
            vectors = iter(base64_strings(blobs, before, after))
        return [
            (created_at, memory_id, line + (tail or next(vectors)))
            for (created_at, memory_id, line), tail in zip(heads, tails, strict=True)
        ]

    # ------------------------------------------------------------------ import
    def import_(
        self,
        path: str | os.PathLike[str],
        *,
        on_conflict: str = "skip",
        regenerate_vectors: bool = False,
        dry_run: bool = False,
        batch_size: int = 256,
        limits: ArchiveLimits | None = None,
    ) -> ImportSummary:
        """Load an ``.ahkai`` archive; ids, links, vectors, timestamps and supersede state kept.

        ``on_conflict`` for an id that already exists: ``skip`` · ``overwrite`` ·
        ``rename`` (fresh id; links inside the archive follow it) · ``error``
        (checked for the whole file before anything is written). Vectors from
        another embedding model are refused unless ``regenerate_vectors=True``,
        which re-embeds every row; rows without a vector are embedded in
        batches. Every written memory is journaled as ``import`` by actor
        ``import``. ``dry_run`` counts without writing.

        The whole archive is read and every row validated before the first
        write: a corrupt or oversized archive writes nothing, and a bad row is
        reported as ``(id or line:N, "line N: why")`` and skipped, never half
        applied. An overwrite replaces each memory in one transaction.
        """
        validate_choice(on_conflict, IMPORT_POLICIES, "on_conflict")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValidationError("batch_size must be an integer >= 1")
        limits = limits or ArchiveLimits.from_settings(self.core.settings)
        header = read_archive_header(path)
        source = header.get("source") or {}
        options = header.get("options") or {}
        src_model = source.get("embedding_model")
        src_dim = int(source.get("embedding_dim") or 0)
        has_vectors = bool(options.get("include_vectors", True)) and src_dim > 0
        mismatch = bool(src_model) and (
            src_model != self.core.embedder.name or src_dim != self.core.index_params.dim
        )
        if has_vectors and mismatch and not regenerate_vectors:
            raise EmbeddingModelMismatch(
                f"embedding model mismatch (archive: {src_model!r}, {src_dim} dims; store: "
                f"{self.core.embedder.name!r}, {self.core.index_params.dim} dims) — pass "
                "regenerate_vectors=True to re-embed on import"
            )
        use_vectors = has_vectors and not mismatch and not regenerate_vectors
        dim = int(self.core.index_params.dim) if use_vectors else None
        self.core.count_call("import")
        summary = ImportSummary(dry_run=bool(dry_run))
        refused: set[str] = set()  # rows pass one refused taken together (a cycle)
        if not self._import_validate(path, limits, dim, on_conflict, summary, refused):
            return summary  # nothing valid: skip the second read
        renames: dict[str, str] = {}
        written: list[str] = []
        seen: set[str] = set()
        batch: list[tuple[Memory, np.ndarray | None, bool]] = []
        with self.core.as_actor("import"):
            for memory, vector in self._valid_rows(path, limits, dim, refused):
                batch.append((memory, vector, memory.id in seen))
                seen.add(memory.id)
                if len(batch) >= batch_size:
                    self._import_batch(batch, on_conflict, dry_run, summary, renames, written)
                    batch = []
            if batch:
                self._import_batch(batch, on_conflict, dry_run, summary, renames, written)
            if renames and not dry_run:
                self._remap_imported(written, renames)
        return summary

    def _checked_rows(
        self, path: str | os.PathLike[str], limits: ArchiveLimits, dim: int | None
    ) -> Iterator[tuple[int, Memory | None, np.ndarray | None, str, str]]:
        """``(line, memory, vector, label, error)`` per row; a refused row has no memory."""
        header, rows = iter_archive(path, limits)
        encoding = (header.get("options") or {}).get("vector_encoding", "json")
        for lineno, row in rows:
            if isinstance(row, str):
                yield lineno, None, None, f"line:{lineno}", row
                continue
            try:
                memory, vector = row_memory(row, self.core.collection_name, dim, encoding)
            except ValueError as exc:
                rid = row.get("id")
                ok = isinstance(rid, str) and rid.strip() and unicode_ok(rid)
                label = (
                    rid.strip()[:MAX_ID_CHARS] if ok and isinstance(rid, str) else f"line:{lineno}"
                )
                yield lineno, None, None, label, str(exc)[:300]
                continue
            yield lineno, memory, vector, "", ""

    def _valid_rows(
        self,
        path: str | os.PathLike[str],
        limits: ArchiveLimits,
        dim: int | None,
        refused: set[str],
    ) -> Iterator[tuple[Memory, np.ndarray | None]]:
        for _, memory, vector, _label, _error in self._checked_rows(path, limits, dim):
            if memory is not None and memory.id not in refused:
                yield memory, vector

    def _import_validate(
        self,
        path: str | os.PathLike[str],
        limits: ArchiveLimits,
        dim: int | None,
        on_conflict: str,
        summary: ImportSummary,
        refused: set[str],
    ) -> int:
        """Pass one, before any write: read the whole archive (size caps, gzip
        integrity), validate every row into ``summary.errors`` (bounded), refuse the rows
        whose ``superseded_by`` close a cycle (into *refused*: each would hide the others
        for good), and for ``on_conflict='error'`` find every collision. Returns the valid
        row count."""
        collisions: list[tuple[str, str]] = []
        seen: set[str] = set()
        pending: list[str] = []

        def flush() -> None:
            existing = self.core.get_many(pending)
            for rid in pending:
                if rid in existing:
                    collisions.append((rid, existing[rid].text[:80]))
            pending.clear()

        valid = 0
        superseders: dict[str, str] = {}
        lines: dict[str, int] = {}
        ids: set[str] = set()
        for lineno, memory, _vector, label, error in self._checked_rows(path, limits, dim):
            if memory is None:
                summary.add_error(label, f"line {lineno}: {error}", limits.max_errors)
                continue
            valid += 1
            ids.add(memory.id)
            if memory.superseded_by:
                superseders[memory.id] = memory.superseded_by
                lines[memory.id] = lineno
            if on_conflict != "error":
                continue
            if memory.id in seen:
                collisions.append((memory.id, "(duplicate id within the archive)"))
                continue
            seen.add(memory.id)
            pending.append(memory.id)
            if len(pending) >= 500:
                flush()
        if pending:
            flush()
        for cycle in import_cycles(
            superseders, ids, on_conflict, lambda chunk: stored_superseders(self.core, chunk)
        ):
            names = [f"{i} (stored)" if where == STORED else i for i, where in cycle]
            for at, (rid, where) in enumerate(cycle):
                if where == STORED:
                    continue  # every row on the loop would hide the rest for good: none is written
                loop = " → ".join([*names[at:], *names[:at], names[at]])
                why = f"line {lines[rid]}: superseded_by forms a cycle ({loop})"
                summary.add_error(rid, why, limits.max_errors)
                refused.add(rid)
                valid -= 1
        if collisions:
            raise ImportConflictError(
                f"{len(collisions)} id collision(s) on import, nothing written; first: "
                f"{[c[0] for c in collisions[:10]]}",
                collisions=collisions[: limits.max_errors],
            )
        return valid

    def _import_batch(
        self,
        batch: list[tuple[Memory, np.ndarray | None, bool]],
        on_conflict: str,
        dry_run: bool,
        summary: ImportSummary,
        renames: dict[str, str],
        written: list[str],
    ) -> None:
        existing = self.core.get_many([m.id for m, _, _ in batch])
        to_write: list[tuple[Memory, np.ndarray | None]] = []
        replaced: list[Memory] = []
        for memory, vector, dup_in_file in batch:
            current = existing.get(memory.id)
            collides = current is not None or dup_in_file
            if not collides:
                summary.imported += 1
            elif on_conflict == "skip":
                summary.skipped += 1
                continue
            elif on_conflict == "rename":
                old = memory.id
                memory.id = new_id()
                renames[old] = memory.id
                summary.renamed += 1
            elif on_conflict == "overwrite":
                if current is not None and not dup_in_file:
                    replaced.append(current)
                summary.overwritten += 1
            else:  # "error": the precheck passed, so a collision here is a race
                raise ImportConflictError(
                    f"id {memory.id} appeared during the import",
                    collisions=[(memory.id, "(written concurrently)")],
                )
            to_write.append((memory, vector))
        if dry_run or not to_write:
            return
        dim = int(self.core.index_params.dim)
        vectors = np.zeros((len(to_write), dim), dtype=np.float32)
        missing: list[int] = []
        for i, (_, vector) in enumerate(to_write):
            if vector is None:
                missing.append(i)
            else:
                vectors[i] = vector
        if missing:
            encoded = self.core.encode([to_write[i][0].text for i in missing])
            for position, i in enumerate(missing):
                vectors[i] = encoded[position]
            summary.vectors_regenerated = True
        memories = [m for m, _ in to_write]
        # One MULTI/EXEC: an overwritten memory is replaced whole (the write
        # script rewrites every field) or, on any failure, left as it was.
        pipe = self.core.client.pipeline(transaction=True)
        for stale in replaced:
            pipe.hdel(self.core.keys.access, f"n:{stale.id}", f"t:{stale.id}")
            for link in stale.links:
                pipe.srem(self.core.keys.incoming(link.to), f"{stale.id}|{link.rel}")
        self.core.write(memories, vectors, pipe=pipe)
        self.graph.reindex_links(memories, pipe=pipe)
        pipe.execute()
        link_updates(self.core, memories)  # derived, as the lexical statistics: not in the archive
        regenerated = set(missing)
        for i, memory in enumerate(memories):
            written.append(memory.id)
            self.core.journal_append(
                "import",
                memory.id,
                after=memory.to_dict(),
                meta={"vectors_preserved": i not in regenerated},
            )

    def _remap_imported(self, written: list[str], renames: dict[str, str]) -> None:
        """Point this import's links and superseded_by at the renamed ids."""
        for start in range(0, len(written), 500):
            chunk = written[start : start + 500]
            fetched = self.core.get_many(chunk)
            pipe = self.core.client.pipeline(transaction=False)
            changed: list[tuple[dict, Memory]] = []
            for mid in chunk:
                memory = fetched.get(mid)
                if memory is None:
                    continue
                before = memory.to_dict()
                dirty = False
                for link in memory.links:
                    if link.to in renames:
                        pipe.srem(self.core.keys.incoming(link.to), f"{memory.id}|{link.rel}")
                        link.to = renames[link.to]
                        pipe.sadd(self.core.keys.incoming(link.to), f"{memory.id}|{link.rel}")
                        dirty = True
                if memory.superseded_by in renames:
                    memory.superseded_by = renames[memory.superseded_by]
                    dirty = True
                if dirty:
                    fields = codec.to_hash(memory, vector_type=self.core.vector_type)
                    pipe.hset(self.core.keys.memory(memory.id), mapping=fields)
                    self.core.scripts.mirror(
                        keys=[
                            self.core.keys.memory(memory.id),
                            self.core.keys.access_doc(memory.id),
                        ],
                        args=["0"],
                        client=pipe,
                    )
                    changed.append((before, memory))
            pipe.execute()
            for before, memory in changed:
                self.core.journal_append(
                    "edit",
                    memory.id,
                    before=before,
                    after=memory.to_dict(),
                    meta={"import_remap": True},
                )
