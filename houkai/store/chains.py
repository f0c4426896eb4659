"""Chains of ``superseded_by``: the one a supersede would extend, and the cycles an
archive may hold. A memory superseded in a loop is hidden from recall for good, so both a
supersede (:meth:`~houkai.store.conflicts.Conflicts.supersede`) and an import refuse to
close one."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..domain.model import Memory, ValidationError

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


def supersede_cycles(superseders: Mapping[str, str]) -> list[list[str]]:
    """The cycles of an archive's ``superseded_by`` pointers (id → its superseder), each
    in pointer order: a memory that supersedes itself, or A by B and B by A. Each pointer
    is followed once (every id has at most one superseder), so this is linear."""
    done: set[str] = set()
    cycles: list[list[str]] = []
    for start in superseders:
        path: list[str] = []
        at: dict[str, int] = {}
        node = start
        while node in superseders and node not in done and node not in at:
            at[node] = len(path)
            path.append(node)
            node = superseders[node]
        if node in at:
            cycles.append(path[at[node] :])
        done.update(path)
    return cycles
