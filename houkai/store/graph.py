"""Typed links between memories: ``link``, ``unlink``, ``neighbors``, ``subgraph``.

An edge ``src --rel--> dst`` is stored twice:

* in the source memory's ``links`` field (JSON list of ``{"to", "rel"}``), the
  seed's representation, which every reader of a memory sees; and
* in the reverse index, the SET ``keys.incoming(dst)`` holding ``"{src}|{rel}"``,
  so "who points at me?" is one SMEMBERS instead of a scan of the collection.

Both are changed together by one Lua script per operation, which also does the
read-modify-write of the ``links`` field atomically: two clients linking the
same memory at once cannot lose an edge.

Dangling edges: forgetting a memory removes its *outgoing* entries from the
reverse index inside the same Lua script that deletes the hash, reading the
``links`` field there (:func:`houkai.store.scripts.drop_outgoing_lua`), so a link added between a
forget's read and its delete cannot leave a reverse entry from a deleted
memory (both scripts run atomically, one after the other). It leaves edges that other memories hold
*towards* it untouched, so ``undo`` of the forget brings the memory back with
every incoming edge intact. Walkers (``neighbors``, ``subgraph``) therefore
skip targets that do not resolve, and only report an incoming edge when the
source memory still holds it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from ..db.decode import as_text
from ..domain.model import (
    DIRECTIONS,
    LINK_RELS,
    Memory,
    MemoryNotFound,
    ValidationError,
    validate_choice,
)
from ..domain.model import (
    Graph as Subgraph,
)
from .core import CoreStore

log = logging.getLogger(__name__)


def _check_id(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{name} must be a non-empty memory id — got {value!r}")
    return value


def _check_depth(depth: object, lo: int = 1) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < lo:
        raise ValidationError(f"depth must be an integer >= {lo} — got {depth!r}")
    return depth


class Graph:
    """link, unlink, neighbors, subgraph over the links field and the reverse index."""

    def __init__(self, core: CoreStore) -> None:
        self.core = core

    def link_raw(self, src_id: str, dst_id: str, rel: str) -> bool:
        """Add the edge without journaling or counting. True when it is new."""
        validate_choice(rel, LINK_RELS, "rel")
        _check_id(src_id, "src_id")
        _check_id(dst_id, "dst_id")
        if src_id == dst_id:
            if not self.core.exists(src_id):
                raise MemoryNotFound(src_id)  # an unknown id is a 404 whatever else is wrong
            raise ValidationError("cannot link a memory to itself")
        keys = self.core.keys
        result = int(
            self.core.scripts.link(
                keys=[
                    keys.memory(src_id),
                    keys.memory(dst_id),
                    keys.incoming(dst_id),
                    keys.lexstats,
                ],
                args=[dst_id, rel, f"{src_id}|{rel}"],
            )
        )
        if result == -1:
            raise MemoryNotFound(src_id, "src_id")
        if result == -2:
            # A dangling edge would be stored but unreachable by every walker.
            raise MemoryNotFound(dst_id, "dst_id")
        return result == 1

    def unlink_raw(self, src_id: str, dst_id: str, rel: str | None) -> list[str]:
        """Remove matching edges without journaling. Returns the removed rels."""
        if rel is not None:
            validate_choice(rel, LINK_RELS, "rel")
        _check_id(src_id, "src_id")
        _check_id(dst_id, "dst_id")
        keys = self.core.keys
        removed = self.core.scripts.unlink(
            keys=[keys.memory(src_id), keys.incoming(dst_id)],
            args=[dst_id, rel or "", src_id],
        )
        return [as_text(r) for r in removed or []]

    def reindex_links(self, memories: Iterable[Memory], pipe: Any = None) -> None:
        """Record the outgoing edges of *memories* in the reverse index (idempotent).

        For writers that put whole memories back (import, undo of a forget):
        their ``links`` field is restored by the HSET, this restores the SETs.
        """
        own = pipe is None
        pipe = self.core.client.pipeline(transaction=False) if own else pipe
        for memory in memories:
            for x in memory.links:
                pipe.sadd(self.core.keys.incoming(x.to), f"{memory.id}|{x.rel}")
        if own:
            pipe.execute()

    # ------------------------------------------------------------------ writes
    def link(self, src_id: str, dst_id: str, rel: str = "related") -> bool:
        """Add a directed edge src → dst (idempotent). True when the edge is new.

        ``rel`` must be one of ``LINK_RELS``; both memories must exist and differ.
        Only a new edge is journaled (op ``link``) and counted.
        """
        added = self.link_raw(src_id, dst_id, rel)
        if added:
            self.core.count_call("link")
            self.core.journal_append(
                "link", src_id, meta={"src_id": src_id, "dst_id": dst_id, "rel": rel}
            )
        return added

    def unlink(self, src_id: str, dst_id: str, rel: str | None = None) -> int:
        """Remove the edge(s) src → dst; ``rel=None`` removes every rel. Returns how many.

        The journal entry records ``removed_rels`` so undoing a ``rel=None``
        unlink restores each edge it dropped.
        """
        removed = self.unlink_raw(src_id, dst_id, rel)
        if removed:
            self.core.count_call("unlink")
            self.core.journal_append(
                "unlink",
                src_id,
                meta={
                    "src_id": src_id,
                    "dst_id": dst_id,
                    "rel": rel,
                    "removed": len(removed),
                    "removed_rels": removed,
                },
            )
        return len(removed)

    # ------------------------------------------------------------------ reads
    def _incoming_many(self, ids: list[str], rel: str | None) -> dict[str, list[tuple[str, str]]]:
        """Reverse-index entries for several memories in one round trip, sorted."""
        pipe = self.core.client.pipeline(transaction=False)
        for memory_id in ids:
            pipe.smembers(self.core.keys.incoming(memory_id))
        out: dict[str, list[tuple[str, str]]] = {}
        for memory_id, members in zip(ids, pipe.execute(), strict=True):
            edges = []
            for member in members or ():
                src, _, edge_rel = as_text(member).rpartition("|")
                if src and (rel is None or edge_rel == rel):
                    edges.append((src, edge_rel))
            edges.sort()
            out[memory_id] = edges
        return out

    def neighbors(
        self,
        memory_id: str,
        rel: str | None = None,
        direction: str = "both",
        depth: int = 1,
    ) -> list[tuple[Memory, str]]:
        """``(memory, rel)`` pairs reachable from *memory_id* within *depth* hops (BFS).

        One pair per edge (two memories joined by several rels give several
        pairs), while each node is visited and expanded once. Outgoing edges
        come from the memory's ``links``, incoming ones from the reverse index
        (verified against the source's ``links``). Targets that no longer
        exist are skipped. Raises ``MemoryNotFound`` for an unknown start.
        """
        validate_choice(direction, DIRECTIONS, "direction")
        if rel is not None:
            validate_choice(rel, LINK_RELS, "rel")
        depth = _check_depth(depth)
        _check_id(memory_id, "memory_id")
        start = self.core.get(memory_id)
        if start is None:
            raise MemoryNotFound(memory_id)
        want_out = direction in ("out", "both")
        want_in = direction in ("in", "both")
        visited: set[str] = {memory_id}
        frontier: list[Memory] = [start]
        result: list[tuple[Memory, str]] = []
        for _ in range(depth):
            incoming = self._incoming_many([m.id for m in frontier], rel) if want_in else {}
            wanted: list[str] = []
            for node in frontier:
                if want_out:
                    wanted += [
                        x.to
                        for x in node.links
                        if (rel is None or x.rel == rel) and x.to not in visited
                    ]
                if want_in:
                    wanted += [src for src, _ in incoming[node.id] if src not in visited]
            fetched = self.core.get_many(list(dict.fromkeys(wanted))) if wanted else {}
            next_frontier: list[Memory] = []
            for node in frontier:
                if want_out:
                    for x in node.links:
                        if (rel is not None and x.rel != rel) or x.to in visited:
                            continue
                        target = fetched.get(x.to)
                        if target is None:
                            continue  # dangling: the target was forgotten
                        for parallel in node.links:
                            if parallel.to == x.to and (rel is None or parallel.rel == rel):
                                result.append((target, parallel.rel))
                        visited.add(x.to)
                        next_frontier.append(target)
                if want_in:
                    for src_id in dict.fromkeys(src for src, _ in incoming[node.id]):
                        if src_id in visited:
                            continue
                        source = fetched.get(src_id)
                        if source is None:
                            continue
                        rels = [
                            x.rel
                            for x in source.links
                            if x.to == node.id and (rel is None or x.rel == rel)
                        ]
                        if not rels:
                            continue  # stale reverse-index entry
                        result.extend((source, r) for r in rels)
                        visited.add(src_id)
                        next_frontier.append(source)
            frontier = next_frontier
            if not frontier:
                break
        return result

    def subgraph(self, memory_ids: Iterable[str] | str, depth: int = 1) -> Subgraph:
        """The memories reachable from *memory_ids* along outgoing links within *depth* hops.

        Tracks the best remaining hop budget per node rather than a plain
        visited set, so in a diamond a node first reached at the depth limit
        is expanded again when a shorter path reaches it. ``depth=0`` returns
        the start memories alone. Unknown start ids and dangling targets are
        left out; every edge joins two returned nodes.
        """
        if isinstance(memory_ids, str):
            memory_ids = [memory_ids]
        ids = list(memory_ids)
        for memory_id in ids:
            _check_id(memory_id, "memory_ids item")
        depth = _check_depth(depth, lo=0)
        nodes: dict[str, Memory] = {}
        missing: set[str] = set()
        edges: list[tuple[str, str, str]] = []
        edge_set: set[tuple[str, str, str]] = set()
        best: dict[str, int] = {}
        wave: list[tuple[str, int]] = [(mid, depth) for mid in dict.fromkeys(ids)]
        while wave:
            todo = [mid for mid, _ in wave if mid not in nodes and mid not in missing]
            if todo:
                found = self.core.get_many(list(dict.fromkeys(todo)))
                nodes.update(found)
                missing.update(mid for mid in todo if mid not in found)
            next_wave: list[tuple[str, int]] = []
            for mid, remaining in wave:
                if mid in missing or best.get(mid, -1) >= remaining:
                    continue
                best[mid] = remaining
                if remaining == 0:
                    continue
                next_wave += [(x.to, remaining - 1) for x in nodes[mid].links]
            # Resolve the targets first so edges only join existing nodes.
            targets = [t for t, _ in next_wave if t not in nodes and t not in missing]
            if targets:
                found = self.core.get_many(list(dict.fromkeys(targets)))
                nodes.update(found)
                missing.update(t for t in targets if t not in found)
            for mid, remaining in wave:
                if mid in missing or best.get(mid) != remaining or remaining == 0:
                    continue
                for x in nodes[mid].links:
                    edge = (mid, x.to, x.rel)
                    if x.to in nodes and edge not in edge_set:
                        edge_set.add(edge)
                        edges.append(edge)
            wave = [(t, r) for t, r in next_wave if t not in missing]
        return Subgraph(nodes=nodes, edges=edges)
