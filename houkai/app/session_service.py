"""The session operations of :class:`~houkai.app.service.MemoryService` (issue 30):
thin, like the rest: checked by the registry, run by the store, shaped once here."""

from __future__ import annotations

from typing import Any

from .operations import session_params as sp
from .operations.bind import operation
from .service_base import ServiceBase
from .shapes import memory_to_dict


def _owned(store: Any, session_id: str) -> None:
    """A session the caller may not see (a scoped token's) is not found, like a missing one."""
    from ..store.sessions import SessionNotFound
    from .auth import caller_scope, in_scope

    if not caller_scope():
        return
    meta = store.session_state.meta(session_id)
    if meta is None or not in_scope({**meta, "session_id": session_id}):
        raise SessionNotFound(session_id)


def _message(value: Any) -> dict[str, Any]:
    data = value if isinstance(value, dict) else value.model_dump()
    return {k: v for k, v in data.items() if v is not None}


class SessionServiceMixin(ServiceBase):
    """add_messages, session_get, session_list, session_delete, session_extract."""

    @operation("add_messages")
    def add_messages(self, p: sp.AddMessages, *, collection: str | None = None) -> dict[str, Any]:
        """Store messages; the extraction is scheduled on the workers, never run here."""
        store = self.store(collection)
        return dict(
            store.add_messages(
                p.session_id,
                [_message(m) for m in p.messages],
                user_id=p.user_id,
                agent_id=p.agent_id,
            )
        )

    @operation("session_get")
    def session_get(self, p: sp.SessionGet, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        _owned(store, p.session_id)
        context = store.session(p.session_id, p.query, p.budget, memories=p.memories)
        return dict(context.to_dict(memory_dict=memory_to_dict))

    @operation("session_list")
    def session_list(
        self, p: sp.SessionList, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        from .auth import caller_scope, in_scope

        rows = list(self.read_store(collection).sessions(p.limit, p.offset))
        if caller_scope():  # a scoped token lists its own sessions only
            rows = [r for r in rows if in_scope({k: v or "" for k, v in r.items()})]
        return rows

    @operation("session_delete")
    def session_delete(self, p: sp.SessionRef, *, collection: str | None = None) -> dict[str, Any]:
        from ..store.sessions import SessionNotFound

        store = self.read_store(collection)
        _owned(store, p.session_id)
        if not store.delete_session(p.session_id):
            raise SessionNotFound(p.session_id)
        return {"deleted": True, "session_id": p.session_id}

    @operation("session_extract")
    def session_extract(self, p: sp.SessionRef, *, collection: str | None = None) -> dict[str, Any]:
        """Queue the extraction to a worker when one runs, else run it in this process."""
        from ..sessions import trigger
        from ..store.sessions import SessionNotFound

        store = self.read_store(collection)
        _owned(store, p.session_id)
        if not store.session_state.exists(p.session_id):
            raise SessionNotFound(p.session_id)
        if trigger.use_workers(store.client, store.keys.prefix, store.settings):
            task = trigger.send(store.client, store.settings, store.keys, p.session_id)
            if task is not None:
                return {"status": "queued", "queued": True, "task_id": task}
        return {"queued": False, **store.extract_session(p.session_id)}
