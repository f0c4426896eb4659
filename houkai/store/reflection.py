"""Reflection engine: condense clusters of similar episodic memories into semantic ones
(README "Reflection").

Clustering is the seed's greedy, seed-first single linkage: episodic memories
(ready, not superseded, not expired) are visited by importance descending; each
one not yet claimed starts a cluster and absorbs every unclaimed memory whose
cosine similarity *to that seed* is at least ``similarity_threshold``. Clusters
never overlap; those smaller than ``min_cluster_size`` are dropped. Polarity is
respected as in the seed: a memory of the opposite sign to the cluster's
polarity (the first non-zero one absorbed) is left out, so a success and a
failure about the same event never blend into one summary.

It scales by letting Redis do the geometry: seeds stream through an aggregate
cursor sorted by importance, and each seed's neighbours come from a vector
RANGE query over the HNSW index (radius ``1 − threshold`` in cosine distance),
restricted to the same episodic filter. Python only holds the current batch
of seeds and the set of claimed ids, never every vector at once.

Each qualifying cluster becomes one semantic memory tagged ``reflection`` (plus
the union of the sources' tags) with the mean importance and a ``derived_from``
link to each source. ``consolidate=True`` then supersedes the sources,
``consolidate="hard"`` deletes them. Writes are journaled with the actor
``reflection``, and one ``reflect`` entry per summary lists its sources.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Literal

import redis

from ..db.decode import as_text
from ..db.filters import filter_expr
from ..db.schema import SEARCH_FIELDS
from ..domain.model import MAX_TAGS, Memory, MemoryNotFound, ValidationError, new_id
from ..engines.summarizers import Summarizer, build_summarizer, extractive_summarizer
from . import codec
from .search import search, total

if TYPE_CHECKING:
    from . import MemoryStore

log = logging.getLogger(__name__)

Consolidate = bool | Literal["hard"]
REFLECTION_TAG = "reflection"
DEFAULT_BATCH_SIZE = 256
NEIGHBOUR_PAGE = 1000
# Float32 distances from the index vs. the float64 threshold: a hair of tolerance
# so a pair sitting exactly on the threshold is not lost to rounding.
_TOLERANCE = 1e-6
# HNSW range queries are approximate; a wider search boundary costs a little
# time and buys recall.
_RANGE_EPSILON = 0.05


#: The seed's name for the extractive summarizer: the same object ``build_summarizer`` returns.
_default_summarizer: Summarizer = extractive_summarizer


def _threshold(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationError(f"similarity_threshold must be a number in [-1, 1] — got {value!r}")
    if not -1.0 <= value <= 1.0:
        raise ValidationError(f"similarity_threshold must be in [-1, 1] — got {value!r}")
    return float(value)


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"{name} must be an integer >= 1 — got {value!r}")
    return value


def _consolidate(value: object) -> Consolidate:
    if value is True or value is False:
        return value
    if value == "hard":
        return "hard"
    raise ValidationError(f"consolidate must be False, True or 'hard' — got {value!r}")


class ReflectionEngine:
    """Clusters episodic memories and writes one semantic reflection per cluster."""

    def __init__(
        self,
        store: MemoryStore,
        similarity_threshold: float = 0.75,
        min_cluster_size: int = 2,
        summarizer: Summarizer | str | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        """*summarizer* is any ``Callable[[list[Memory]], str]`` or a spec string
        for :func:`~houkai.engines.summarizers.build_summarizer` (default: extractive)."""
        self.store = store
        self.similarity_threshold = _threshold(similarity_threshold)
        self.min_cluster_size = _positive_int(min_cluster_size, "min_cluster_size")
        self.batch_size = _positive_int(batch_size, "batch_size")
        if summarizer is None or isinstance(summarizer, str):
            summarizer = build_summarizer(summarizer)
        elif not callable(summarizer):
            raise ValidationError(
                f"summarizer must be callable or a spec string — got {summarizer!r}"
            )
        self.summarizer: Callable[[list[Memory]], str] = summarizer

    # ------------------------------------------------------------------ clustering
    def clusters(self) -> list[list[Memory]]:
        """Every qualifying cluster, seed first then by similarity; writes nothing."""
        return list(self.iter_clusters())

    def iter_clusters(self, now: float | None = None) -> Iterator[list[Memory]]:
        """Stream the clusters in seed order (highest-importance seed first)."""
        query = filter_expr(type="episodic", state="ready", now=now)
        claimed: set[str] = set()
        for seeds in self._seed_batches(query):
            # One pipelined round trip for the first page of every open seed's
            # neighbours; a seed claimed meanwhile just wastes its page.
            first = self._first_pages(
                query, [s for s in seeds if s.id not in claimed and s.embedding is not None]
            )
            for seed in seeds:
                if seed.id in claimed:
                    continue
                claimed.add(seed.id)
                members = [seed]
                # The cluster's polarity is the first non-zero one absorbed, so a
                # neutral seed cannot bridge a +1 and a -1 into one summary.
                polarity = seed.polarity
                if seed.embedding is not None:
                    for member in self._neighbours(query, seed, first.get(seed.id)):
                        if member.id in claimed:
                            continue
                        if polarity and member.polarity and member.polarity != polarity:
                            continue  # opposite statements are never merged
                        claimed.add(member.id)
                        members.append(member)
                        polarity = polarity or member.polarity
                if len(members) >= self.min_cluster_size:
                    seed.embedding = None  # callers get plain memories, not vectors
                    yield members

    def _seed_batches(self, query: str) -> Iterator[list[Memory]]:
        """Batches of candidate seeds (with vectors), importance descending.

        An aggregate cursor keeps only one batch in flight, whatever the store size.
        """
        store = self.store
        client, index = store.client, store.keys.index
        # SORTBY keeps only MAX rows, and "MAX 0" or no MAX means 10: bound it by
        # the number of matching documents instead.
        matching = total(client, index, query)
        if not matching:
            return
        sort = ["SORTBY", 4, "@importance", "DESC", "@created_at", "ASC", "MAX", matching]
        args: list = ["FT.AGGREGATE", index, query, "LOAD", 1, "@__key", *sort]
        # No query timeout: under the default "return" policy a sort cut short at
        # 500 ms would silently drop seeds on a large collection.
        args += ["WITHCURSOR", "COUNT", self.batch_size, "TIMEOUT", 0, "DIALECT", 2]
        reply, cursor = client.execute_command(*args)
        try:
            while True:
                keys = []
                for row in reply[1:]:
                    pairs = {as_text(row[j]): row[j + 1] for j in range(0, len(row) - 1, 2)}
                    if "__key" in pairs:
                        keys.append(as_text(pairs["__key"]))
                batch = self._load(keys)
                if batch:
                    yield batch
                if not cursor:
                    return
                reply, cursor = client.execute_command(
                    "FT.CURSOR", "READ", index, cursor, "COUNT", self.batch_size
                )
        finally:
            if cursor:
                try:
                    client.execute_command("FT.CURSOR", "DEL", index, cursor)
                except redis.RedisError:
                    pass

    def _load(self, keys: list[str]) -> list[Memory]:
        if not keys:
            return []
        pipe = self.store.client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(key)
        out = []
        for fields in pipe.execute():
            if fields:
                out.append(
                    self.store.from_fields(
                        {k.decode(): v for k, v in fields.items()}, with_vector=True
                    )
                )
        return out

    def _range_query(
        self, query: str, seed: Memory
    ) -> tuple[str, dict[str, str | bytes | int | float]]:
        radius = 1.0 - self.similarity_threshold + _TOLERANCE
        vector_clause = (
            "@vec:[VECTOR_RANGE $radius $vec]=>"
            f"{{$EPSILON: {_RANGE_EPSILON}; $YIELD_DISTANCE_AS: dist}}"
        )
        full = vector_clause if query == "*" else f"({query}) {vector_clause}"
        return full, {"radius": repr(radius), "vec": self.store.vector_blob(seed.embedding or [])}

    def _page_args(self, query: str, seed: Memory, offset: int) -> list:
        full, params = self._range_query(query, seed)
        args: list = ["FT.SEARCH", self.store.keys.index, full]
        args += ["RETURN", len(SEARCH_FIELDS) + 1, *SEARCH_FIELDS, "dist"]
        args += ["SORTBY", "dist", "ASC", "LIMIT", offset, NEIGHBOUR_PAGE]
        args += ["PARAMS", 2 * len(params)]
        for name, value in params.items():
            args += [name, value]
        return [*args, "DIALECT", 2]

    def _first_pages(self, query: str, seeds: list[Memory]) -> dict[str, list[Memory]]:
        """Each seed's first page of neighbours (:meth:`_neighbours`), pipelined."""
        if not seeds:
            return {}
        pipe = self.store.client.pipeline(transaction=False)
        for seed in seeds:
            pipe.execute_command(*self._page_args(query, seed, 0))
        return {
            seed.id: self._parse_page(reply)
            for seed, reply in zip(seeds, pipe.execute(), strict=True)
        }

    def _parse_page(self, reply: list) -> list[Memory]:
        """The hits of one neighbour page within the threshold. Hits come nearest
        first, so a page shorter than ``NEIGHBOUR_PAGE`` after the cut is the last."""
        out: list[Memory] = []
        for i in range(2, len(reply), 2):
            raw = reply[i] or []
            fields = {as_text(raw[j]): raw[j + 1] for j in range(0, len(raw) - 1, 2)}
            dist = fields.get("dist")
            similarity = 1.0 - float(as_text(dist)) if dist is not None else -1.0
            if similarity >= self.similarity_threshold - _TOLERANCE:
                out.append(codec.from_hash(fields))
        return out

    def _neighbours(
        self, query: str, seed: Memory, first: list[Memory] | None = None
    ) -> Iterator[Memory]:
        """Memories matching *query* within the similarity threshold of *seed*, nearest first."""
        offset = 0
        if first is not None:
            yield from first
            if len(first) < NEIGHBOUR_PAGE:
                return
            offset = NEIGHBOUR_PAGE
        full, params = self._range_query(query, seed)
        while True:
            _, hits = search(
                self.store.client,
                self.store.keys.index,
                full,
                params=params,
                return_fields=(*SEARCH_FIELDS, "dist"),
                sortby=("dist", "ASC"),
                offset=offset,
                limit=NEIGHBOUR_PAGE,
            )
            for hit in hits:
                similarity = 1.0 - float(hit.str("dist", "2"))
                if similarity >= self.similarity_threshold - _TOLERANCE:
                    yield codec.from_hash(hit.fields)
            if len(hits) < NEIGHBOUR_PAGE:
                return
            offset += NEIGHBOUR_PAGE

    # ------------------------------------------------------------------ reflecting
    def reflect(self, dry_run: bool = False, consolidate: Consolidate = False) -> list[Memory]:
        """Summarise each cluster into a semantic memory; returns them in cluster order.

        ``dry_run=True`` returns unsaved previews (source ``reflection/dry-run``)
        and writes nothing. ``consolidate=True`` supersedes the sources by the
        summary; ``"hard"`` deletes them instead (no ``derived_from`` links then,
        since their targets are gone; the ``reflect`` journal entry keeps the ids).
        """
        mode = _consolidate(consolidate)
        # Cluster first (ids only), write afterwards: a slow LLM summarizer must not
        # keep the seed cursor open, and writes must not disturb the clustering.
        plan = [[m.id for m in cluster] for cluster in self.iter_clusters()]
        created: list[Memory] = []
        for ids in plan:
            found = self.store.get_many(ids)
            group = [found[i] for i in ids if i in found and not found[i].superseded_by]
            if len(group) < self.min_cluster_size:
                log.info("reflection: cluster of %s changed meanwhile; skipped", ids[0])
                continue
            text = self._summarise(group)
            tags = self._tags(group)
            importance = round(sum(m.importance for m in group) / len(group), 3)
            if dry_run:
                created.append(
                    Memory(
                        id=new_id(),
                        text=text,
                        type="semantic",
                        tags=tags,
                        importance=importance,
                        source="reflection/dry-run",
                        collection=self.store.collection_name,
                    )
                )
                continue
            with self.store.as_actor("reflection"):
                created.append(self._persist(group, text, tags, importance, mode))
        if created:
            log.info(
                "reflection %s %d summaries in %s",
                "previewed" if dry_run else "created",
                len(created),
                self.store.collection_name,
            )
        return created

    def _summarise(self, group: list[Memory]) -> str:
        text = self.summarizer(group)
        if not isinstance(text, str) or not text.strip():
            log.warning("reflection summarizer returned no text; using the extractive summary")
            text = extractive_summarizer(group)
        return text.strip()

    @staticmethod
    def _tags(group: list[Memory]) -> list[str]:
        tags = [REFLECTION_TAG]
        for memory in group:
            for tag in memory.tags:
                if tag not in tags:
                    tags.append(tag)
        if len(tags) > MAX_TAGS:
            log.info("reflection: %d tags trimmed to %d", len(tags), MAX_TAGS)
            tags = tags[:MAX_TAGS]
        return tags

    def _persist(
        self, group: list[Memory], text: str, tags: list[str], importance: float, mode: Consolidate
    ) -> Memory:
        store = self.store
        # The summary is by construction close to its sources: never let the
        # store's conflict policy reject or supersede it.
        summary = store.remember(
            text,
            type="semantic",
            tags=tags,
            importance=importance,
            source="reflection",
            on_conflict="ignore",
        )
        if mode == "hard":
            for memory in group:
                store.forget(memory.id)
        else:
            for memory in group:
                try:
                    store.link(summary.id, memory.id, rel="derived_from")
                    if mode is True:
                        store.supersede(memory.id, summary.id)
                except MemoryNotFound:  # forgotten by someone else since clustering
                    log.info("reflection: source %s vanished; not linked", memory.id)
        summary = store.get(summary.id) or summary
        store.journal_append(
            "reflect",
            summary.id,
            after=summary.to_dict(),
            meta={
                "sources": [m.id for m in group],
                "consolidate": mode,
                "summarizer": getattr(self.summarizer, "spec", None)
                or getattr(self.summarizer, "__name__", type(self.summarizer).__name__),
            },
        )
        return summary


__all__ = ["ReflectionEngine"]
