"""Jobs and collections: job, jobs, job_retry, job_cancel, collection_create/delete/
migrate, the collection list, readiness and health."""

from __future__ import annotations

import logging
import time
from typing import Any

from ..db.keys import Keys
from ..domain.errors import HoukaiError, NotFound, Unavailable
from ..domain.model import StateConflict
from ..extraction.usage import store_usage
from .operations import params as params
from .operations.bind import operation
from .service_base import ServiceBase
from .shapes import status_dict

log = logging.getLogger(__name__)


class AdminOps(ServiceBase):
    """Operations on jobs, collections and the service's health."""

    @operation("job_retry")
    def job_retry(self, p: params.JobRetry, *, collection: str | None = None) -> dict[str, Any]:
        """Re-queue the failed memories of one job (404 for an unknown one), or of the
        whole collection: ``{job_id, requeued}``."""
        if p.job_id is not None:
            self.job(p.job_id, collection=collection)
            from ..sessions import jobs as extraction_jobs

            store = self.store(collection)
            if extraction_jobs.session_of(store, p.job_id) is not None:  # an extraction
                return {"job_id": p.job_id, "requeued": int(extraction_jobs.retry(store, p.job_id))}
        pipeline = self.pipeline(collection, existing=True)
        if pipeline is None:
            raise Unavailable("ingestion pipeline is not available")
        return {"job_id": p.job_id, "requeued": pipeline.retry_failed(p.job_id)}

    @operation("job_cancel")
    def job_cancel(self, p: params.JobRef, *, collection: str | None = None) -> dict[str, Any]:
        """Cancel a job: ``{job_id, cancelled}`` (false when it had already settled)."""
        self.job(p.job_id, collection=collection)
        pipeline = self.pipeline(collection, existing=True)
        return {"job_id": p.job_id, "cancelled": bool(pipeline and pipeline.cancel(p.job_id))}

    @operation("job")
    def job(self, p: params.JobRef, *, collection: str | None = None) -> dict[str, Any]:
        pipeline = self.pipeline(collection, existing=True)
        status = None if pipeline is None else pipeline.job(p.job_id)
        if status is None:
            raise NotFound(f"no job with id {p.job_id!r}")
        reply = status_dict(status)
        spent = store_usage(self.read_store(collection), p.job_id)
        if spent["calls"]:  # an extraction job: its LLM tokens and cost
            reply["extraction"] = spent
        return reply

    @operation("jobs")
    def jobs(self, p: params.Jobs, *, collection: str | None = None) -> list[dict[str, Any]]:
        pipeline = self.pipeline(collection, existing=True)
        if pipeline is None:
            return []
        return [status_dict(s) for s in pipeline.jobs(limit=p.limit)]

    def job_ids_starting(
        self, prefix: str, *, limit: int = 5, collection: str | None = None
    ) -> list[str]:
        """Ids of the collection's jobs that start with *prefix* (at most *limit*): the
        CLI resolves a job id prefix with this."""
        pipeline = self.pipeline(collection, existing=True)
        if pipeline is None:
            return []
        return list(pipeline.jobs_store.ids_starting(pipeline.collection, prefix, limit=limit))

    @operation("collection_create")
    def collection_create(self, p: params.CollectionRef) -> dict[str, Any]:
        """Create an empty collection (its index, with the current embedder's dimension)."""
        if self.has_collection(p.name):
            raise StateConflict(f"collection {p.name!r} already exists")
        self.store(p.name)
        return {"name": p.name, "created": True}

    @operation("collection_delete")
    def collection_delete(self, p: params.CollectionRef) -> dict[str, Any]:
        """Delete a collection: memories, index, journal and metrics. Irreversible."""
        if not self.has_collection(p.name):
            raise NotFound(f"no collection named {p.name!r}")
        deleted = self.store(p.name).drop()
        with self._lock:
            self._stores.pop(p.name, None)
        return {"name": p.name, "deleted": deleted}

    @operation("collection_migrate")
    def collection_migrate(self, p: params.CollectionMigrate) -> dict[str, Any]:
        """Re-write a collection's vectors in another element type, in place (resumable),
        and bring the statistics an earlier release wrote up to date: stems (ADR 0056),
        the flag that says whether a memory follows another (ADR 0099), the name marks
        (ADR 0102), acronyms' plurals counted as the acronym (ADR 0109), and the update
        links of the memories already stored (ADR 0105, 0110)."""
        from ..db.connection import connect
        from ..store import lexmigrate
        from ..store.migrate import migrate_vectors
        from ..store.updates import relink

        s = self.settings
        # A plain client: no store is opened on a collection whose vectors are changing.
        client = connect(s.redis_url, s.data_dir if not s.redis_url else None)
        if not client.sismember(Keys.registry(s.key_prefix), p.name):
            raise NotFound(f"no collection named {p.name!r}")
        keys = Keys(s.key_prefix, p.name)
        result = migrate_vectors(client, keys, p.vector_type, batch_size=p.batch_size)
        # the same one-off pass gives memories written before ADR 0056 their stems
        stems = lexmigrate.upgrade(client, keys.memory_prefix, keys.lexstats, p.batch_size)
        # and those written before ADR 0099 the flag that spares recall a neighbour lookup
        follows = lexmigrate.learn_follows(
            client, keys.incoming_prefix, keys.lexstats, p.batch_size
        )
        # and those whose words an earlier release counted otherwise their current counts:
        # the marks that tell a question typed in lower case which of its words are names
        # (ADR 0102), "PRs" as "PR" (ADR 0109)
        recounted = lexmigrate.recount_words(
            client, keys.memory_prefix, keys.lexstats, p.batch_size
        )
        # and the update links its memories were written without (ADR 0105, 0110), read
        # from the collection itself: none while its index is being built
        links = relink(
            client,
            keys,
            ef_runtime=s.hnsw_ef_runtime,
            exact_upto=s.exact_knn_max,
            batch_size=p.batch_size,
        )
        return {
            **result.to_dict(),
            "stems_upgraded": stems,
            "update_links": links,
            "follows": follows,
            "recounted": recounted,
            "names_marked": recounted,  # its name up to 0.2: deprecated
        }

    def collections(self) -> list[dict[str, Any]]:
        """Every collection under this key prefix with its memory count."""
        from ..store.search import total

        client = self.store(self.settings.collection).client
        prefix = self.settings.key_prefix
        names = sorted(
            n.decode() if isinstance(n, bytes) else str(n)
            for n in client.smembers(Keys.registry(prefix))
        )
        out = []
        for name in names:
            try:
                count = total(client, Keys(prefix, name).index, "*")
            except Exception:  # a half-dropped collection still lists
                count = None
            out.append({"name": name, "count": count, "default": name == self.settings.collection})
        return out

    def readiness(self, *, collection: str | None = None, cache_ttl: float = 5.0) -> dict[str, Any]:
        """The store's readiness report (backend + embedder probe, cached *cache_ttl* s)."""
        try:
            store = self.store(collection)
        except HoukaiError:
            raise
        except Exception as exc:  # not ready is an answer, not an error
            log.warning("readiness: store unavailable: %s", exc)
            return {"ready": False, "checks": {"backend": {"ok": False, "error": str(exc)}}}
        probe = getattr(store, "readiness", None)
        if callable(probe):
            return probe(cache_ttl=cache_ttl)
        started = time.perf_counter()
        store.client.ping()
        return {
            "ready": True,
            "checks": {
                "backend": {
                    "ok": True,
                    "latency_ms": round((time.perf_counter() - started) * 1000, 3),
                }
            },
        }

    def health(self, *, collection: str | None = None) -> dict[str, Any]:
        """Liveness: ``{status, count}`` (no collection name, no topology).

        Redis is probed once (1 s) before the store is touched, so with Redis
        down the answer is a prompt 503 naming the configured URL; health never
        starts an embedded server."""
        from ..db import server as redis_server

        s = self.settings
        url = s.redis_url or redis_server.known_url(s.data_dir)
        if url is None:
            raise Unavailable(
                f"no embedded Redis has run for data dir {s.data_dir} (start: houkai redis start)"
            )
        state = redis_server.probe_url(url, timeout=1.0)
        if state != "ready":
            why = "is loading its data" if state == "loading" else "does not answer"
            raise Unavailable(f"Redis at {redis_server.display_url(url)} {why}")
        return {"status": "ok", "count": self.store(collection).count()}
