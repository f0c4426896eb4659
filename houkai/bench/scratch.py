"""The store a benchmark writes into: its own collection, no journal, the ``bench`` actor."""

from __future__ import annotations

from typing import Any

from ..domain.config import Settings
from ..store import MemoryStore


def bench_store(collection: str, settings: Settings, embedder: Any = None) -> MemoryStore:
    """A store on *collection* for a benchmark run: the journal is off (a benchmark's
    writes are no history to undo) and every write is credited to ``bench``."""
    return MemoryStore(
        collection=collection,
        settings=settings,
        embedder=embedder,
        journal_enabled=False,
        actor="bench",
    )
