"""MemoryStore mixin: recall_pack, auto_context_pack. (Being implemented.)"""

from __future__ import annotations


def extract_key_phrases(task: str, max_phrases: int = 3) -> list[str]:
    raise NotImplementedError


class PackingMixin:
    """recall_pack, auto_context_pack."""
