"""MemoryStore mixin: undo, history, state_at, get_at, journal_tail. (Being implemented.)"""

from __future__ import annotations


class HistoryMixin:
    """undo, history, state_at, get_at, journal_tail."""
