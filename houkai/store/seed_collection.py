"""``store.collection``: the collection's name, which also answers the seed's collection calls.

In the seed, ``store.collection`` is the Chroma collection, and seed code reads
and writes memories through it in the seed's flat metadata shape
(:meth:`~houkai.domain.model.Memory.to_metadata`): ``count()``,
``get(ids=…, where=…)`` and ``update(ids=…, metadatas=…, documents=…)`` — for
example to age memories before a decay run, or to restore timestamps when
migrating. In houkai ``store.collection`` is the collection name (a ``str``:
comparisons, hashing, JSON and pickling see only the name); this subclass adds
those three calls on top, and every one goes through the store's public API:

* ``get`` reads with ``get_many`` / ``iter_memories`` and returns the seed's
  ``{"ids", "documents", "metadatas"[, "embeddings"]}`` dict;
* ``update`` writes a new text and the fields a user may edit (type, tags,
  importance, source, polarity, expires_at) with ``store.edit`` (journaled
  ``edit``, undoable), and the fields houkai maintains itself (created_at,
  last_accessed, access_count, links, supersede state) by an overwrite import
  of that memory with its stored vector (journaled ``import``, so ``history``
  and ``state_at`` see the change; like any import it cannot be undone).

``count()`` without arguments is the number of memories; with arguments it is
``str.count``. Everything else Chroma offers (``add``, ``query``, ``delete``,
custom embedding functions) has a houkai counterpart on the store itself.
"""

from __future__ import annotations

import logging
import tempfile
import time
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.model import Memory, MemoryNotFound, ValidationError
from .archive import EXPORT_FORMAT, EXPORT_VERSION, ArchiveWriter

if TYPE_CHECKING:
    from . import MemoryStore

log = logging.getLogger(__name__)

#: Metadata keys ``update`` writes through ``store.edit``.
EDITABLE = ("type", "tags", "importance", "source", "polarity", "expires_at")
#: Metadata keys houkai maintains itself: ``update`` writes them by an overwrite import.
SYSTEM = ("created_at", "last_accessed", "access_count", "links", "superseded_by", "superseded_at")
INCLUDES = ("documents", "metadatas", "embeddings")
_COMPARE = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
    "$in": lambda a, b: a in b,
    "$nin": lambda a, b: a not in b,
}


def matches(meta: dict[str, Any], where: dict[str, Any]) -> bool:
    """Whether a metadata record satisfies a Chroma ``where`` filter."""
    if not isinstance(where, dict):
        raise ValidationError(f"where must be an object — got {where!r}")
    for key, cond in where.items():
        if key in ("$and", "$or"):
            if not isinstance(cond, list):
                raise ValidationError(f"{key} takes a list of filters")
            results = (matches(meta, sub) for sub in cond)
            if not (all(results) if key == "$and" else any(results)):
                return False
            continue
        if key.startswith("$"):
            raise ValidationError(f"unsupported where operator {key!r}")
        ops = cond if isinstance(cond, dict) else {"$eq": cond}
        for op, value in ops.items():
            test = _COMPARE.get(op)
            if test is None:
                raise ValidationError(f"unsupported where operator {op!r}")
            try:
                if key not in meta or not test(meta[key], value):
                    return False
            except TypeError:
                return False
    return True


class CollectionName(str):
    """The collection name; ``count()``, ``get()`` and ``update()`` as the seed's collection."""

    _store: weakref.ref[MemoryStore]

    def __new__(cls, store: MemoryStore) -> CollectionName:
        obj = super().__new__(cls, store.collection_name)
        obj._store = weakref.ref(store)
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))

    @property
    def name(self) -> str:
        return str(self)

    def store(self) -> MemoryStore:
        store = self._store()
        if store is None:
            raise ValidationError("the store behind this collection name no longer exists")
        return store

    def count(self, *args: Any) -> int:
        """Number of memories (superseded and expired included); ``str.count`` with arguments."""
        if args:
            return str.count(self, *args)
        return self.store().count()

    def get(
        self,
        ids: str | Sequence[str] | None = None,
        where: dict[str, Any] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        include: Iterable[str] = ("metadatas", "documents"),
    ) -> dict[str, Any]:
        """Memories by id (missing ids are left out, as Chroma does) or all, filtered by *where*."""
        include = list(include)
        for item in include:
            if item not in INCLUDES:
                raise ValidationError(f"include must name {', '.join(INCLUDES)} — got {item!r}")
        store = self.store()
        vectors = "embeddings" in include
        if ids is not None:
            wanted = [ids] if isinstance(ids, str) else list(ids)
            found = store.get_many(wanted, with_vector=vectors)
            memories = [found[i] for i in dict.fromkeys(wanted) if i in found]
        else:
            memories = [m for batch in store.iter_memories(with_vector=vectors) for m in batch]
            memories.sort(key=lambda m: (m.created_at, m.id))
        if where:
            memories = [m for m in memories if matches(m.to_metadata(), where)]
        memories = memories[offset or 0 :]
        if limit is not None:
            memories = memories[:limit]
        out: dict[str, Any] = {"ids": [m.id for m in memories]}
        out["documents"] = [m.text for m in memories] if "documents" in include else None
        out["metadatas"] = [m.to_metadata() for m in memories] if "metadatas" in include else None
        out["embeddings"] = [m.embedding for m in memories] if vectors else None
        return out

    def update(
        self,
        ids: str | Sequence[str],
        metadatas: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
        documents: str | Sequence[str] | None = None,
        embeddings: Any = None,
    ) -> None:
        """Merge *metadatas* (the seed's flat shape) and *documents* into existing memories."""
        if embeddings is not None:
            raise ValidationError("houkai embeds texts itself: update documents, not embeddings")
        id_list = [ids] if isinstance(ids, str) else list(ids)
        metas = [metadatas] if isinstance(metadatas, dict) else metadatas
        docs = [documents] if isinstance(documents, str) else documents
        for name, values in (("metadatas", metas), ("documents", docs)):
            if values is not None and len(values) != len(id_list):
                raise ValidationError(f"{name} must have one entry per id")
        store = self.store()
        found = store.get_many(id_list)
        missing = [mid for mid in id_list if mid not in found]
        if missing:
            raise MemoryNotFound(missing[0])
        # decode every record before the first write: a bad one writes nothing
        targets: dict[str, Memory] = {}
        for n, mid in enumerate(id_list):
            if metas is not None and metas[n]:
                merged = {**found[mid].to_metadata(), **metas[n]}
                try:
                    targets[mid] = Memory.from_record(mid, found[mid].text, merged)
                except (TypeError, ValueError) as exc:
                    raise ValidationError(f"bad metadata for {mid}: {exc}") from None
        store.flush_access()  # a buffered access must not land after (and undo) the write
        rewrites: list[Memory] = []
        for n, mid in enumerate(id_list):
            if docs is not None and docs[n] is not None:
                store.edit(mid, text=docs[n])
            if mid in targets:
                memory = _apply(store, mid, targets[mid], set(metas[n]))  # type: ignore[index]
                if memory is not None:
                    rewrites.append(memory)
        if rewrites:
            _overwrite(store, rewrites)


def _apply(store: MemoryStore, mid: str, target: Memory, keys: set[str]) -> Memory | None:
    """Edit the editable fields; the memory to rewrite for the system fields, if any."""
    current = store.get(mid)
    if current is None:
        raise MemoryNotFound(mid)
    changes = {
        k: getattr(target, k)
        for k in EDITABLE
        if k in keys and getattr(target, k) != getattr(current, k)
    }
    if changes:
        current = store.edit(mid, **changes)
    system = [k for k in SYSTEM if k in keys and getattr(target, k) != getattr(current, k)]
    for k in system:
        setattr(current, k, getattr(target, k))
    return current if system else None


def _overwrite(store: MemoryStore, memories: list[Memory]) -> None:
    """Write *memories* whole, with their stored vectors, through one overwrite import."""
    vectors = store.vectors([m.id for m in memories])
    header = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "source": {
            "collection": store.collection_name,
            "embedding_model": store.embedder.name,
            "embedding_dim": int(store.index_params.dim),
            "count": len(memories),
        },
        "options": {"include_vectors": True},
    }
    with tempfile.TemporaryDirectory(prefix="houkai-update-") as tmp:
        path = Path(tmp) / "update.ahkai"
        with ArchiveWriter(path) as writer:
            writer.write(header)
            for memory in memories:
                row: dict[str, Any] = {"id": memory.id, "text": memory.text}
                row["meta"] = memory.to_dict()
                vector = vectors.get(memory.id)
                if vector is not None:  # a memory still pending embeds during the import
                    row["vector"] = [float(x) for x in vector]
                writer.write(row)
        summary = store.import_(path, on_conflict="overwrite")
    if summary.errors:
        label, why = summary.errors[0]
        raise ValidationError(f"update of {label} refused: {why}")
    log.debug("collection.update rewrote %d memories", len(memories))
