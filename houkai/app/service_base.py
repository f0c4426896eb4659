"""The plumbing every operation module of :class:`~houkai.app.service.MemoryService`
shares: the stores and pipelines per collection, and the not-found checks."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from ..db.keys import Keys, validate_collection
from ..domain.config import Settings, get_settings
from ..domain.errors import BadRequest, NotFound
from ..domain.model import Memory, MemoryNotFound

log = logging.getLogger(__name__)


class ServiceBase:
    """The stores, pipelines and settings of one service; the operation classes extend it."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        actor: str = "lib",
        store_factory: Callable[[str], Any] | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.actor = actor
        self._store_factory = store_factory
        self._stores: dict[str, Any] = {}
        self._pipelines: dict[str, Any] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ plumbing
    def _collection(self, collection: str | None) -> str:
        name = self.settings.collection if collection in (None, "") else collection
        if not isinstance(name, str):
            raise BadRequest(f"collection: expected a string, got {type(name).__name__}")
        try:
            return validate_collection(name)
        except ValueError as exc:
            raise BadRequest(str(exc)) from None

    def store(self, collection: str | None = None):
        """The store for *collection* (default: the configured one), created once."""
        name = self._collection(collection)
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                if self._store_factory is not None:
                    store = self._store_factory(name)
                else:
                    from ..store import MemoryStore

                    store = MemoryStore(collection=name, settings=self.settings, actor=self.actor)
                self._stores[name] = store
            return store

    def read_store(self, collection: str | None):
        """The store of a collection that must exist: for a read, and for a change to what
        it stores (edit, forget, link, undo…). An unknown non-default collection is a 404,
        not created: a mistyped name leaves nothing behind. Writes that add memories
        (remember, ingest, import) create their collection, through :meth:`store`."""
        name = self._collection(collection)
        if name != self.settings.collection and not self.has_collection(name):
            raise NotFound(f"no collection named {name!r}")
        return self.store(name)

    def has_collection(self, collection: str) -> bool:
        name = self._collection(collection)
        if name in self._stores:
            return True
        client = self.store(self.settings.collection).client
        return bool(client.sismember(Keys.registry(self.settings.key_prefix), name))

    def pipeline(self, collection: str | None = None, *, existing: bool = False):
        """The ingestion pipeline of a collection, or None while it is unavailable.
        *existing*: the collection must exist (:meth:`read_store`; its jobs are read, not
        written), else a write that adds memories creates it."""
        store = self.read_store(collection) if existing else self.store(collection)
        name = store.collection_name
        with self._lock:
            if name not in self._pipelines:
                try:
                    from ..pipeline.write import Pipeline
                except ImportError:
                    log.debug("houkai.pipeline.write unavailable; writing synchronously")
                    self._pipelines[name] = None
                else:
                    self._pipelines[name] = Pipeline(store)
            return self._pipelines[name]

    @staticmethod
    def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call a store method, turning a bare KeyError (unknown id) into a 404."""
        try:
            return fn(*args, **kwargs)
        except MemoryNotFound:
            raise
        except KeyError as exc:
            missing = exc.args[0] if exc.args else "memory"
            raise NotFound(f"no memory with id {missing!r}") from None

    def _require_memory(self, store: Any, memory_id: str) -> Memory:
        memory = store.get(memory_id)
        if memory is None:
            raise MemoryNotFound(memory_id)
        return memory

    # ------------------------------------------------------------------ writes
    def _wait_result(self, pipeline: Any, job: Any, timeout: float | None) -> tuple[Any, bool]:
        """``(status, finished)``; a timeout leaves the job running and is not an error."""
        try:
            return pipeline.wait(job, timeout=timeout), True
        except TimeoutError:
            return pipeline.job(job.id), False
