"""Chains of ``superseded_by``: the one a supersede would extend, and the cycles an
import would close. A memory superseded in a loop is hidden from recall for good, so both a
supersede (:meth:`~houkai.store.conflicts.Conflicts.supersede`) and an import refuse to
close one."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from typing import TYPE_CHECKING

from ..domain.model import Memory, ValidationError
from . import codec

if TYPE_CHECKING:
    from .core import CoreStore

#: Hops followed when reading a supersede chain.
MAX_CHAIN = 10_000


def read_chain(get: Callable[[str], Memory | None], old_id: str, new: Memory) -> list[Memory]:
    """The chain from *new* (it, what supersedes it, …), read with *get*; raises when it
    leads back to *old_id*, so that superseding *old_id* by *new* would close a loop.
    The supersede's write checks the same chain again in the step that writes."""
    seen = {new.id}
    chain = [new]
    current: Memory | None = new
    for _ in range(MAX_CHAIN):
        if current is None or not current.superseded_by:
            break
        nxt = current.superseded_by
        if nxt == old_id:
            raise ValidationError(
                f"supersede cycle: {new.id!r} is already superseded by {old_id!r}"
                + ("" if current is new else " through a chain")
            )
        if nxt in seen:
            break
        seen.add(nxt)
        current = get(nxt)
        if current is not None:
            chain.append(current)
    return chain


#: Where a node of :func:`import_cycles` lives after the import: the archive's row (written
#: under its id, or a fresh one on ``rename``) or the memory already stored.
ARCHIVE, STORED = "archive", "stored"


def import_cycles(
    pointers: Mapping[str, str],
    in_archive: Set[str],
    policy: str,
    stored: Callable[[list[str]], Mapping[str, str]],
) -> list[list[tuple[str, str]]]:
    """The ``superseded_by`` cycles an import would close, each as ``(id, ARCHIVE|STORED)``
    nodes in pointer order: loops within the archive, and loops through memories already
    stored (overwrite B, superseded by A, where the stored A is superseded by B).

    *pointers*: each archive row's ``superseded_by``; *in_archive*: every valid row's id;
    *policy*: the import's ``on_conflict``, which decides whether a pointer to an id both
    in the archive and stored reaches the row or the stored memory; *stored(ids)*: of
    *ids*, those stored, each with its ``superseded_by`` ("" for none). The rows and their
    targets are read in one call; a chain running on into the store costs a call per hop.
    Each node is walked once, so this is linear in the nodes reached.
    """
    known: dict[str, str | None] = {}  # id → stored pointer ("" none); None: not stored

    def learn(ids: set[str]) -> None:
        wanted = sorted(i for i in ids if i not in known)
        if wanted:
            found = stored(wanted)
            for i in wanted:
                known[i] = found.get(i)

    def is_stored(i: str) -> bool:
        return known.get(i) is not None

    def target_node(target: str, from_archive: bool) -> tuple[str, str] | None:
        if target in in_archive:
            if policy == "overwrite" or not is_stored(target):
                return (target, ARCHIVE)
            # skip keeps the stored memory; rename writes the row under a fresh id that an
            # archive pointer follows and a stored one cannot know
            return (target, ARCHIVE if from_archive and policy == "rename" else STORED)
        return (target, STORED) if is_stored(target) else None  # dangling: the chain ends

    def successor(node: tuple[str, str]) -> str:
        return pointers.get(node[0], "") if node[1] == ARCHIVE else known.get(node[0]) or ""

    learn(set(pointers) | set(pointers.values()))
    visited: dict[tuple[str, str], int] = {}  # node → the walk that reached it first
    cycles: list[list[tuple[str, str]]] = []
    for n, start in enumerate(pointers):
        if policy == "skip" and is_stored(start):
            continue  # the stored memory stays; the row is not written
        node: tuple[str, str] | None = (start, ARCHIVE)
        path: list[tuple[str, str]] = []
        while node is not None and node not in visited:
            visited[node] = n
            path.append(node)
            target = successor(node)
            if target:
                learn({target})  # only a chain running on into the store reads it
            node = target_node(target, node[1] == ARCHIVE) if target else None
        if node is not None and visited[node] == n:  # back into this walk: a loop
            cycles.append(path[path.index(node) :])
    return cycles


def stored_superseders(core: CoreStore, ids: list[str]) -> dict[str, str]:
    """Of *ids*, those *core* stores, each with its ``superseded_by`` ("" for none): the
    ``stored`` reader of :func:`import_cycles`, 500 ids a round trip."""
    out: dict[str, str] = {}
    for at in range(0, len(ids), 500):
        chunk = ids[at : at + 500]
        pipe = core.client.pipeline(transaction=False)
        for memory_id in chunk:
            pipe.hmget(core.keys.memory(memory_id), codec.F.TEXT, codec.F.SUPERSEDED_BY)
        for memory_id, (text, by) in zip(chunk, pipe.execute(), strict=True):
            if text is not None:
                out[memory_id] = by.decode() if isinstance(by, bytes) else (by or "")
    return out
