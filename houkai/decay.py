"""DecayEngine (being implemented)."""

from __future__ import annotations


def _not_ready(*_a, **_k):
    raise NotImplementedError("DecayEngine is being implemented")


DecayEngine = _not_ready
