"""MemoryStore mixin: export, import_. (Being implemented.)"""

from __future__ import annotations


class PortabilityMixin:
    """export, import_."""
