"""The base every store mixin is written against: :class:`~houkai.store.core.CoreStore`.

For the type checker a mixin *is* a ``CoreStore`` (it sees the connection,
the keys, the primitives and the abstract hooks); at run time it is a plain
class, composed with the core in :class:`~houkai.store.MemoryStore`. So the
store protocol a mixin may rely on is exactly what ``CoreStore`` declares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import CoreStore as StoreHost
else:
    StoreHost = object

__all__ = ["StoreHost"]
