"""The store protocol: collaborators over a core, primitives kept out of the memory API."""

from __future__ import annotations

import pytest

from houkai.store import CoreStore, MemoryStore
from houkai.store.async_store import public_methods
from houkai.store.conflicts import Conflicts
from houkai.store.core import PRIMITIVES
from houkai.store.graph import Graph


def test_the_core_calls_no_collaborator():
    """The core is a repository: the conflict policy and link index are the collaborators'
    explicit calls, so the core names none of them."""
    import inspect

    import houkai.store.core as core

    source = inspect.getsource(core)
    for name in ("check_conflicts", "apply_conflict_policy", "reindex_links", "Graph"):
        assert name not in source.split('"""', 2)[2], name


def test_collaborators_share_one_core(store: MemoryStore):
    assert isinstance(store.core, CoreStore)
    assert isinstance(store.graph, Graph) and isinstance(store.conflicts, Conflicts)
    for part in (store.graph, store.conflicts, store.memories, store.timeline, store.observer):
        assert part.core is store.core
    assert store.memories.conflicts is store.conflicts  # one object per concern


def test_the_conflict_policy_runs_through_the_collaborator(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
):
    seen: list[str] = []

    def spy(memory, policy, fn):
        seen.append(policy)
        return []

    monkeypatch.setattr(store.conflicts, "apply_conflict_policy", spy)
    store.remember("Delegation replaces the abstract hooks.", on_conflict="warn")
    assert seen == ["warn"]


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


def test_state_assigned_on_the_store_reaches_the_core(store: MemoryStore):
    """Benchmarks and tests swap a store's query cache or settings: the collaborators,
    which read the core's, must see the new one."""
    from houkai.engines.embeddings import QueryCache

    cache = QueryCache(store.embedder, 8)
    store.query_cache = cache
    assert store.core.query_cache is cache
    store.settings = store.settings.replace(journal_maxlen=1234)
    assert store.core.settings.journal_maxlen == 1234
