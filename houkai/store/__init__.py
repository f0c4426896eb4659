"""``MemoryStore``: the seed's library API on Redis Stack, composed of small mixins.

Each mixin module owns one concern and builds on the primitives of
:class:`~houkai.store.core.CoreStore`.
"""

from __future__ import annotations

from typing import Any

from . import findability
from .conflicts import ConflictsMixin
from .core import CoreStore, coerce_remember_item
from .expiry import ExpiryMixin
from .graph import GraphMixin
from .history import HistoryMixin
from .observability import ObservabilityMixin
from .packing import PackingMixin
from .portability import PortabilityMixin
from .recall import RecallMixin
from .sessions import SessionsMixin


class MemoryStore(
    SessionsMixin,
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

    def check_findable(
        self, sample: int = findability.DEFAULT_SAMPLE, repair: bool = True, text: bool = True
    ) -> dict[str, Any]:
        """Ask a sample of the live memories for by their own vector and text; re-insert
        into the HNSW graph what their vector misses (*repair*). Saves and returns the
        report (see :mod:`houkai.store.findability`)."""
        return findability.check(self, sample=sample, repair=repair, text=text).to_dict()

    def findability(self) -> dict[str, Any] | None:
        """The last saved findability report of this collection, or None."""
        return findability.last_report(self)


__all__ = ["CoreStore", "MemoryStore", "coerce_remember_item"]
