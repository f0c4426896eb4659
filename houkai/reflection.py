"""ReflectionEngine (being implemented)."""

from __future__ import annotations


def _not_ready(*_a, **_k):
    raise NotImplementedError("ReflectionEngine is being implemented")


ReflectionEngine = _not_ready
