"""MemoryStore mixin: link, unlink, neighbors, subgraph (+ reverse link index, graph-walk helpers). (Being implemented.)"""

from __future__ import annotations


class GraphMixin:
    """link, unlink, neighbors, subgraph (+ reverse link index, graph-walk helpers)."""
