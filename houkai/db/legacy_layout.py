"""Refusing to open a collection whose data still waits in the pre-0079 key layout.

Kept apart from :mod:`houkai.db.layout_migration` (which needs the schema) so the schema
can ask without an import cycle.
"""

from __future__ import annotations

from typing import Any

from ..domain.errors import Unavailable
from .keys import Keys


class LegacyLayout(Unavailable):
    """The collection's data is still in the pre-0079 key layout."""


def check_not_legacy(client: Any, keys: Keys) -> None:
    """Raise :class:`LegacyLayout` when the collection has old-layout metadata (one
    EXISTS; callers ask only when the tagged metadata is missing)."""
    if client.exists(keys.legacy("coll")):
        raise LegacyLayout(
            f"collection {keys.collection!r} is stored in the key layout of an older houkai: "
            "run `houkai redis migrate-layout` once (it copies, verifies and then removes the old "
            "keys; see ops/scale-out.md)"
        )
