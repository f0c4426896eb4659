"""The store protocol: explicit hooks, primitives kept out of the memory API."""

from __future__ import annotations

import pytest

from houkai.store import CoreStore, MemoryStore
from houkai.store.async_store import public_methods
from houkai.store.core import PRIMITIVES
from houkai.store.graph import GraphMixin


def test_a_store_without_the_conflict_hooks_cannot_be_built():
    class NoConflicts(GraphMixin, CoreStore):
        pass

    with pytest.raises(TypeError, match="check_conflicts"):
        NoConflicts()  # abstract hooks: never a store that silently skips conflict checks


def test_memory_store_implements_every_hook():
    assert not MemoryStore.__abstractmethods__


def test_primitives_are_public_but_not_wrapped_as_operations():
    for name in PRIMITIVES:
        assert callable(getattr(MemoryStore, name)), name
    assert not PRIMITIVES & set(public_methods())
    assert {"remember", "recall", "forget", "undo"} <= set(public_methods())


def test_no_private_store_calls_outside_the_store():
    """Other layers use the stated primitives, never the store's private methods."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    pattern = re.compile(
        r"\bstore\._(write|journal|encode|vector_blob|vector_from_blob|query_vector|find_entry)\("
    )
    offenders = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("houkai", "api", "workers")
        for path in (root / folder).rglob("*.py")
        if "store" not in path.relative_to(root).parts[:2]
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
