"""MemoryStore mixin: metrics, readiness, stats. (Being implemented.)"""

from __future__ import annotations


class ObservabilityMixin:
    """metrics, readiness, stats."""
