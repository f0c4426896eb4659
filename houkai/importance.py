"""score_importance (being implemented)."""

from __future__ import annotations


def _not_ready(*_a, **_k):
    raise NotImplementedError("score_importance is being implemented")


score_importance = _not_ready
