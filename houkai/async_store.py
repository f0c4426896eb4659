"""AsyncMemoryStore (being implemented)."""

from __future__ import annotations


def _not_ready(*_a, **_k):
    raise NotImplementedError("AsyncMemoryStore is being implemented")


AsyncMemoryStore = _not_ready
