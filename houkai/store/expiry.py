"""MemoryStore mixin: purge_expired. (Being implemented.)"""

from __future__ import annotations


class ExpiryMixin:
    """purge_expired."""
