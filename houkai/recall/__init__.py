"""Recall: the question read once, candidates gathered, scored and selected.

* :mod:`.parameters`: the recall parameters, declared once (the request, the store's
  signature and the registry's ``Recall`` model follow; :mod:`.generate` writes the code);
* :mod:`.request`: :class:`RecallRequest`, one recall asked (frozen, validated once);
* :mod:`.parsed`: :class:`ParsedQuery`, the question read once (terms, statistics,
  parse, vector);
* :mod:`.engine`: :class:`Recall`, gather → score → select over a store's primitives
  (:mod:`.core`);
* :mod:`.candidates`, :mod:`.scoring`, :mod:`.selection`: the three steps' parts;
* :mod:`.stages`: the stage registry and one module per stage;
* :mod:`.packing`: token-budgeted context blocks on top of recall.

Importing the package is light (the operation registry reads the stage names and the
recall parameters from it);
the names below load their module on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .candidates import Candidate
    from .engine import Recall
    from .parsed import ParsedQuery
    from .request import RecallRequest

_LAZY = {
    "Candidate": ".candidates",
    "ParsedQuery": ".parsed",
    "Recall": ".engine",
    "RecallRequest": ".request",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Candidate", "ParsedQuery", "Recall", "RecallRequest"]
