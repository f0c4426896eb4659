"""Refusing to open a collection whose data still waits in the pre-0079 key layout.

Kept apart from :mod:`houkai.db.layout_migration` (which needs the schema) so the schema
can ask without an import cycle.
"""

from __future__ import annotations

from typing import Any

from ..domain.errors import Unavailable
from .decode import as_text
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


def legacy_collections(client: Any, prefix: str) -> list[str]:
    """The registered collections whose data still waits in the older layout (one EXISTS
    each, pipelined): what ``houkai up`` names at start instead of leaving the user to
    meet a 503 per request."""
    names = sorted(as_text(c) for c in client.smembers(Keys.registry(prefix)))
    if not names:
        return []
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.exists(Keys(prefix, name).legacy("coll"))
    return [name for name, found in zip(names, pipe.execute(), strict=True) if found]


def legacy_notice(client: Any, prefix: str) -> str | None:
    """One line for a start banner when collections wait for the layout migration."""
    waiting = legacy_collections(client, prefix)
    if not waiting:
        return None
    shown = ", ".join(waiting[:5]) + (f" and {len(waiting) - 5} more" if len(waiting) > 5 else "")
    return (
        f"{len(waiting)} collection(s) still in an older houkai's key layout ({shown}): run "
        "`houkai redis migrate-layout` once; until then they answer 503"
    )
