"""chunk_text (being implemented)."""

from __future__ import annotations


def _not_ready(*_a, **_k):
    raise NotImplementedError("chunk_text is being implemented")


chunk_text = _not_ready
