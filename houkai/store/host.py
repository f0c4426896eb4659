"""The type the recall and packing mixins are written against, until recall is its own package.

For the type checker a recall mixin's ``self`` is a :class:`~houkai.store.core.CoreStore`
(the connection, the keys and the primitives; the facade gives it the same names); at
run time it is a plain class, a base of :class:`~houkai.store.MemoryStore`. Nothing
else in the store uses it: the other concerns are objects built with the core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import CoreStore as StoreHost
else:
    StoreHost = object

__all__ = ["StoreHost"]
