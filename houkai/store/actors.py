"""Who the journal says made a change: a store's actor, overridden per thread or task.

A store has its own actor (``lib``, ``http``, ``mcp``…). Two things sign for it inside a
block, in the current thread or task only (a threaded server's other requests keep theirs):

* :meth:`~houkai.store.core.CoreStore.as_actor`, for one store ("import", "decay");
* :func:`calling_as`, for every store: the client a door serves ("cli" for the CLI's
  commands sent through a running server), unless the store's own ``as_actor`` says
  otherwise.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType

#: Per thread or task, the actor of each store (by ``id``) inside its ``as_actor``.
_ACTING: contextvars.ContextVar[Mapping[int, str]] = contextvars.ContextVar(
    "houkai_acting", default=MappingProxyType({})
)
#: Per thread or task, the client a door serves (:func:`calling_as`), "" when none.
_CLIENT: contextvars.ContextVar[str] = contextvars.ContextVar("houkai_client", default="")

#: What an actor's name may be when a client names itself (a label, not an identity).
ACTOR_NAME = re.compile(r"^[a-z][a-z0-9_.-]{0,31}$")
#: The names houkai's own jobs sign with: no client may take them, so an audit that
#: looks for what the importer or the decay job changed finds only theirs.
RESERVED_ACTORS = frozenset(
    "import ingest decay purge reflection maintenance worker beat http mcp lib".split()
)


@contextlib.contextmanager
def acting(store_id: int, name: str) -> Iterator[None]:
    """Sign one store's journal entries with *name* inside the block."""
    token = _ACTING.set({**_ACTING.get(), store_id: name})
    try:
        yield
    finally:
        _ACTING.reset(token)


@contextlib.contextmanager
def calling_as(name: str) -> Iterator[None]:
    """Sign every store's journal entries with *name* inside the block (a door's client),
    where no store's own :func:`acting` says otherwise."""
    token = _CLIENT.set(name)
    try:
        yield
    finally:
        _CLIENT.reset(token)


def actor_of(store_id: int, default: str) -> str:
    """The actor a store's journal entry is signed with now."""
    return _ACTING.get().get(store_id) or _CLIENT.get() or default
