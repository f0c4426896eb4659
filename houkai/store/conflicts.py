"""MemoryStore mixin: supersede, restore, find_conflicts, conflict policies. (Being implemented.)"""

from __future__ import annotations


class ConflictsMixin:
    """supersede, restore, find_conflicts, conflict policies."""
