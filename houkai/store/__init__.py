"""``MemoryStore``: the seed's library API on Redis Stack, composed of small mixins."""

from __future__ import annotations

from .core import CoreStore, coerce_remember_item
from .recall import RecallMixin


class MemoryStore(RecallMixin, CoreStore):
    """Long-term memory for one collection, backed by Redis Stack.

    ``MemoryStore(path=None, collection="ai_houkai", ...)`` keeps the seed's
    constructor: *path* is the data directory of the embedded Redis Stack
    (used when no ``REDIS_URL`` / ``redis_url`` is configured).
    """


__all__ = ["CoreStore", "MemoryStore", "coerce_remember_item"]
