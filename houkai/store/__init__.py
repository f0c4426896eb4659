"""``MemoryStore``: the seed's library API on Redis Stack, composed of small mixins.

Each mixin module owns one concern and builds on the primitives of
:class:`~houkai.store.core.CoreStore`.
"""

from __future__ import annotations

from .conflicts import ConflictsMixin
from .core import CoreStore, coerce_remember_item
from .expiry import ExpiryMixin
from .graph import GraphMixin
from .history import HistoryMixin
from .observability import ObservabilityMixin
from .packing import PackingMixin
from .portability import PortabilityMixin
from .recall import RecallMixin


class MemoryStore(
    PackingMixin,
    RecallMixin,
    GraphMixin,
    ConflictsMixin,
    ExpiryMixin,
    HistoryMixin,
    PortabilityMixin,
    ObservabilityMixin,
    CoreStore,
):
    """Long-term memory for one collection, backed by Redis Stack.

    ``MemoryStore(path=None, collection="ai_houkai", ...)`` keeps the seed's
    constructor: *path* is the data directory of the embedded Redis Stack
    (used when no ``REDIS_URL`` / ``redis_url`` is configured).
    """


__all__ = ["CoreStore", "MemoryStore", "coerce_remember_item"]
