"""AsyncMemoryStore: the MemoryStore API as coroutines.

Every public method of :class:`~houkai.store.MemoryStore` is exposed as a
coroutine that runs the blocking call on the instance's own single-threaded
executor, so concurrent callers are serialised and the event loop never
blocks. The method list is built by introspection: a method added to the
store appears here without anyone remembering to wrap it (a test pins the
list against an explicit allowlist so additions are noticed).

    async with AsyncMemoryStore(collection="agent") as store:
        memory = await store.remember("Python favours duck typing.")
        hits = await store.recall("typing", k=3)
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..domain.model import ValidationError
from . import MemoryStore
from .core import PRIMITIVES

_T = TypeVar("_T")

# Public store callables that are not per-call operations: context-manager and
# lifecycle plumbing the wrapper handles itself, and the store protocol's primitives.
_NOT_WRAPPED = frozenset({"close", "as_actor"}) | PRIMITIVES


def public_methods(cls: type = MemoryStore) -> list[str]:
    """Names of the public methods of *cls* that the async wrapper exposes."""
    names = []
    for name, value in inspect.getmembers(cls):
        if name.startswith("_") or name in _NOT_WRAPPED:
            continue
        if inspect.isfunction(value) or inspect.ismethod(value):
            names.append(name)
    return sorted(names)


_DONE = object()


def _wrap(name: str) -> Callable[..., Any]:
    method = getattr(MemoryStore, name)

    if inspect.isgeneratorfunction(method):
        # Streaming reads (iter_memories) become async generators: each step
        # runs on the executor, so a large scan never blocks the loop.
        @functools.wraps(method)
        async def agen(self: AsyncMemoryStore, *args: Any, **kwargs: Any) -> Any:
            gen = await self.run(getattr(self.sync, name), *args, **kwargs)
            try:
                while (item := await self.run(next, gen, _DONE)) is not _DONE:
                    yield item
            finally:
                gen.close()

        return agen

    @functools.wraps(method)
    async def coroutine(self: AsyncMemoryStore, *args: Any, **kwargs: Any) -> Any:
        return await self.run(getattr(self.sync, name), *args, **kwargs)

    return coroutine


class AsyncMemoryStore:
    """Coroutine wrapper around :class:`MemoryStore` (seed API parity).

    Takes the same constructor arguments as ``MemoryStore``, or an existing
    store via ``store=``. The wrapped store stays reachable as ``.sync``.
    """

    def __init__(self, *args: Any, store: MemoryStore | None = None, **kwargs: Any) -> None:
        if store is not None and (args or kwargs):
            raise ValidationError("pass either store= or MemoryStore arguments, not both")
        self.sync: MemoryStore = store if store is not None else MemoryStore(*args, **kwargs)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="houkai-async")
        self._closed = False

    def __repr__(self) -> str:
        return f"AsyncMemoryStore({self.sync!r})"

    @property
    def collection_name(self) -> str:
        return self.sync.collection_name

    @property
    def journal(self):
        return self.sync.journal

    def as_actor(self, name: str) -> contextlib.AbstractContextManager[None]:
        """The store's :meth:`~houkai.store.MemoryStore.as_actor`, for a plain ``with``
        around awaited calls (they run in the caller's context)."""
        return self.sync.as_actor(name)

    async def run(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run any synchronous callable on the store's executor and await it, in the
        caller's context (as ``asyncio.to_thread`` does): ``with store.as_actor(…)`` around
        an ``await`` signs what the call journals."""
        if self._closed:
            raise RuntimeError("AsyncMemoryStore is closed")
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await loop.run_in_executor(self._executor, call)

    async def aclose(self) -> None:
        """Finish queued calls, then release the executor (idempotent)."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, functools.partial(self._executor.shutdown, wait=True))
        self.sync.close()

    def close(self) -> None:
        """Synchronous close for non-async teardown: drain the executor first."""
        if self._closed:
            return
        self._closed = True
        self._executor.shutdown(wait=True)
        self.sync.close()

    async def __aenter__(self) -> AsyncMemoryStore:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


for _name in public_methods():
    if not hasattr(AsyncMemoryStore, _name):
        setattr(AsyncMemoryStore, _name, _wrap(_name))

__all__ = ["AsyncMemoryStore", "public_methods"]
