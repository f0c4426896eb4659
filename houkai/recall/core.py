"""What recall needs of a store: the primitives it is written against.

:class:`~houkai.recall.engine.Recall` is constructed with a store and uses only
these (the connection, the collection's keys and index, vectors in and out, reads
by id, the access overlay and the touch write), so any object with them can be
recalled from, and recall reaches into nothing else of the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    import redis

    from ..db.keys import Keys
    from ..db.schema import IndexParams
    from ..domain.config import Settings
    from ..domain.model import Memory


class StoreCore(Protocol):
    """The store primitives recall is built on."""

    client: redis.Redis
    keys: Keys
    settings: Settings
    index_params: IndexParams

    def knn_exact(self) -> bool: ...

    def query_vector(self, query: str) -> np.ndarray: ...

    def vector_blob(self, vector: np.ndarray | Sequence[float]) -> bytes: ...

    def vector_from_blob(self, raw: bytes | None) -> np.ndarray | None: ...

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def get_many(self, ids: Sequence[str], *, with_vector: bool = False) -> dict[str, Memory]: ...

    def overlay_access(self, memories: list[Memory]) -> list[Memory]: ...

    def touch_many(self, memories: Sequence[Memory], now: float | None = None) -> None: ...

    def account_access(self, memories: Sequence[Memory], touch_at: float | None) -> None: ...
