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


def test_deprecated_private_names_are_the_primitives():
    assert MemoryStore._write is MemoryStore.write
    assert MemoryStore._journal is MemoryStore.journal_append
    assert MemoryStore._find_entry is MemoryStore.find_entry
