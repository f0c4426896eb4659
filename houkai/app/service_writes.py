"""The write operations: remember, remember_many, edit, tag, bump, forget,
purge_expired, nuke (writes go through the ingestion pipeline)."""

from __future__ import annotations

from typing import Any

from ..domain.errors import BadRequest, NotFound
from ..domain.model import ConflictError, Memory
from .operations import params as params
from .operations.bind import operation
from .service_args import as_tags, given, remember_item
from .service_base import ServiceBase
from .shapes import memory_to_dict, status_dict


class WriteOps(ServiceBase):
    """Operations that store, change or delete memories."""

    @operation("remember")
    def remember(self, p: params.Remember, *, collection: str | None = None) -> dict[str, Any]:
        """Store one memory. ``wait=True`` returns once it is recallable (read-your-writes).

        Returns the seed's ``{id, stored, importance, expires_at}`` plus ``state``,
        ``job_id`` and, when finished, ``memory``. ``on_conflict="raise"`` with a
        conflict raises :class:`ConflictError` (when waiting).
        """
        item = remember_item(p)
        if p.importance is None and p.auto_importance:  # unset: the store's setting decides
            from ..engines.importance import score_importance

            kind = p.type or self.settings.default_type
            item["importance"] = score_importance(p.text, kind, item.get("tags", []))
        store = self.store(collection)
        pipeline = self.pipeline(collection)
        if pipeline is None:
            memory = store.remember(**item, on_conflict=p.on_conflict)
            return self._remember_reply(memory, job_id=None, finished=True)
        job = pipeline.submit([item], on_conflict=p.on_conflict)
        memory_id = job.memory_ids[0]
        if not p.wait:
            memory = store.get(memory_id)
            reply = {"id": memory_id, "stored": True, "state": "pending", "job_id": job.id}
            if memory is not None:
                reply.update(
                    importance=memory.importance,
                    expires_at=memory.expires_at or None,
                    state=memory.state,
                )
            return reply
        status, finished = self._wait_result(pipeline, job, p.timeout)
        conflicts = list(getattr(status, "conflicts", None) or [])
        if getattr(status, "rejected", 0) and conflicts:
            error = ConflictError([])
            error.conflicts = conflicts  # dicts recorded on the job
            raise error
        memory = store.get(memory_id)
        if memory is None:
            raise NotFound(
                f"memory {memory_id} was not stored (job {job.id}: "
                f"{getattr(status, 'errors', None) or 'rejected'})"
            )
        return self._remember_reply(memory, job_id=job.id, finished=finished)

    @staticmethod
    def _remember_reply(memory: Memory, *, job_id: str | None, finished: bool) -> dict[str, Any]:
        reply = {
            "id": memory.id,
            "stored": True,
            "importance": memory.importance,
            "expires_at": memory.expires_at or None,
            "state": memory.state,
            "job_id": job_id,
            "memory": memory_to_dict(memory),
        }
        if not finished:
            reply["timed_out"] = True
        return reply

    @operation("remember_many")
    def remember_many(
        self, p: params.RememberMany, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Store many memories as one job: ``{stored, ids, job_id}`` (+ ``memories`` when waited).

        Validation is all-or-nothing (the registry checks every item first).
        """
        items = [remember_item(i) for i in p.items]
        store = self.store(collection)
        if not items:
            return {"stored": 0, "ids": [], "job_id": None, "memories": []}
        pipeline = self.pipeline(collection)
        if pipeline is None:
            kwargs: dict[str, Any] = {"on_conflict": p.on_conflict}
            if p.batch_size is not None:
                kwargs["batch_size"] = p.batch_size
            memories = store.remember_many(items, **kwargs)
            return {
                "stored": len(memories),
                "ids": [m.id for m in memories],
                "job_id": None,
                "memories": [memory_to_dict(m) for m in memories],
            }
        job = pipeline.submit(items, on_conflict=p.on_conflict, batch_size=p.batch_size)
        reply: dict[str, Any] = {
            "stored": len(job.memory_ids),
            "ids": list(job.memory_ids),
            "job_id": job.id,
        }
        if not p.wait:
            return reply
        status, finished = self._wait_result(pipeline, job, p.timeout)
        found = store.get_many(list(job.memory_ids))
        reply["memories"] = [memory_to_dict(found[i]) for i in job.memory_ids if i in found]
        reply["stored"] = len(found)
        reply["job"] = status_dict(status) if status is not None else None
        if not finished:
            reply["timed_out"] = True
        return reply

    @operation("edit")
    def edit(self, p: params.Edit, *, collection: str | None = None) -> dict[str, Any]:
        """Update fields in place.

        ``None`` leaves a field unchanged; ``source=None`` or ``clear_source=True``
        (the seed's spelling, for callers that cannot send null) clears it;
        ``expires_at=0`` clears the TTL.

        Returns the seed's ``{ok, id, text, type, tags, importance, polarity, source, expires_at}``.
        """
        kwargs = given(p, "text", "type", "tags", "importance", "polarity", "expires_at")
        if "tags" in kwargs:
            kwargs["tags"] = as_tags(kwargs["tags"])
        if p.clear_source:
            kwargs["source"] = None
        elif "source" in p.model_fields_set:
            kwargs["source"] = p.source  # None clears
        if not kwargs:
            raise BadRequest("empty edit: provide at least one field to change")
        store = self.read_store(collection)
        memory = self._call(store.edit, p.memory_id, **kwargs)
        return {
            "ok": True,
            "id": memory.id,
            "text": memory.text,
            "type": memory.type,
            "tags": list(memory.tags),
            "importance": memory.importance,
            "polarity": memory.polarity,
            "source": memory.source,
            "expires_at": memory.expires_at or None,
            "memory": memory_to_dict(memory),
        }

    @operation("tag")
    def retag(self, p: params.Retag, *, collection: str | None = None) -> dict[str, Any]:
        """Add and remove tags (a removed tag is never re-added): ``{id, tags}``."""
        store = self.read_store(collection)
        memory = self._require_memory(store, p.memory_id)
        drop = {t.strip() for t in p.remove or ()}
        tags = [t for t in memory.tags if t not in drop]
        tags += [t for t in p.add or () if t.strip() not in tags and t.strip() not in drop]
        updated = self._call(store.edit, p.memory_id, tags=tags)
        return {"id": updated.id, "tags": list(updated.tags)}

    @operation("bump")
    def bump(self, p: params.Bump, *, collection: str | None = None) -> dict[str, Any]:
        """Change the importance by ``+N``/``-N`` or set it with ``=N`` (clamped to 0..1):
        ``{id, before, importance}``."""
        store = self.read_store(collection)
        memory = self._require_memory(store, p.memory_id)
        before = float(memory.importance)
        amount = float(p.delta.lstrip("="))
        new = amount if p.delta.startswith("=") else before + amount
        updated = self._call(store.edit, p.memory_id, importance=min(1.0, max(0.0, new)))
        return {"id": updated.id, "before": before, "importance": updated.importance}

    @operation("forget")
    def forget(self, p: params.MemoryRef, *, collection: str | None = None) -> dict[str, Any]:
        """Hard-delete one memory: ``{deleted}`` (false when it did not exist)."""
        return {"deleted": bool(self.read_store(collection).forget(p.memory_id))}

    @operation("purge_expired")
    def purge_expired(
        self, p: params.PurgeExpired, *, collection: str | None = None
    ) -> dict[str, Any]:
        purged = self.read_store(collection).purge_expired(dry_run=p.dry_run)
        return {"purged": len(purged), "dry_run": p.dry_run, "ids": [m.id for m in purged]}

    @operation("nuke")
    def nuke(self, p: params.Nuke, *, collection: str | None = None) -> dict[str, Any]:
        """Delete every memory of the collection; guarded by ``confirm="DELETE ALL"``."""
        return {"ok": True, "deleted": self.read_store(collection).nuke()}
