"""MemoryStore mixin: runtime metrics, readiness probes and content statistics.

Metrics live in Redis (``keys.metrics`` counters, ``keys.latency`` window of
the last 1024 recall latencies), so every process serving a collection adds
to, and reads, the same numbers. Statistics are computed server-side with
FT.AGGREGATE; nothing here fetches every memory.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from ..db.decode import as_text
from ..db.lease import Lease
from ..db.schema import num_docs
from ..domain.model import MEMORY_TYPES, ValidationError
from . import findability
from .aggregates import (
    ACTIVE,
    AGGREGATE_CACHE_TTL,
    AGGREGATE_KEEP,
    BUCKET_LABELS,
    FULL_SCAN_TIMEOUT,
    PROBE_TEXT,
    READ_CALLS,
    REFRESH_DELAY,
    SLICE_SIZE,
    TAG_COUNT_MAX,
    active_counts,
    aggregate_rows,
    both,
    counts,
    decay_summary,
    empty_health,
    latency_summary,
    top_tags_aggregate,
)
from .core import CALL_NAMES, CoreStore
from .lexstats import DOC_COUNT_FIELD, LENGTH_FIELD

log = logging.getLogger(__name__)


class Stats:
    """metrics, readiness, probe_embedding, stats."""

    def __init__(self, core: CoreStore) -> None:
        self.core = core

    # ------------------------------------------------------------------ aggregate cache
    def _write_mark(self, access: bool = True) -> str:
        """A fingerprint that changes whenever the collection is written, from any process.

        Made of what every write path already updates: the write-call counters, the
        BM25 totals (text added or removed), the pipeline's in-flight and pending-access
        hashes and the journal's last entry. One round trip, O(1) reads. With
        *access*, recalls (which bump access counts, folded in later) change it too.
        """
        pipe = self.core.client.pipeline(transaction=False)
        pipe.hgetall(self.core.keys.metrics)
        pipe.hmget(self.core.keys.lexstats, [DOC_COUNT_FIELD, LENGTH_FIELD])
        pipe.hlen(self.core.keys.inflight)
        pipe.hlen(self.core.keys.access) if access else pipe.exists(self.core.keys.access)
        pipe.xrevrange(self.core.keys.journal, count=1)
        try:
            metrics, lex, inflight, touched, last = pipe.execute()
        except redis.ResponseError:  # e.g. a journal key of another type: never cache
            return f"nocache:{time.time()!r}"
        reads = (b"calls:export",) if access else READ_CALLS
        calls = sorted(
            (k, v) for k, v in (metrics or {}).items() if k.startswith(b"calls:") and k not in reads
        )
        last_id = last[0][0] if last else None
        raw = repr((calls, lex, inflight, touched, last_id)).encode()
        return hashlib.blake2b(raw, digest_size=12).hexdigest()

    def _cached_aggregate(
        self, name: str, compute: Callable[[], dict[str, Any]], *, access: bool = True
    ) -> dict[str, Any]:
        """*compute*'s result, reused from Redis while the write mark is unchanged.

        Collection-wide aggregates cost a pass over every memory (seconds at 100k on
        a busy machine); the dashboard and ``houkai stats`` ask for the same ones
        again and again. The cache is shared by every process serving the
        collection; a result is served as current for at most
        :data:`AGGREGATE_CACHE_TTL` seconds.
        """
        ttl = AGGREGATE_CACHE_TTL
        if ttl <= 0:
            return compute()
        mark = self._write_mark(access)
        entry = self._aggregate_entry(name)
        if entry is not None and entry["mark"] == mark and time.time() - entry["at"] < ttl:
            return dict(entry["value"])
        started = time.time()
        value = compute()
        if self._write_mark(access) == mark:  # nothing was written while computing
            self._store_aggregate(name, mark, started, value)
        return value

    def _aggregate_entry(self, name: str) -> dict[str, Any] | None:
        """The stored ``{mark, at, value}`` of aggregate *name*, current or not."""
        try:
            raw = self.core.client.hget(self.core.keys.aggregate_cache, name)
            if raw is None:
                return None
            entry = json.loads(raw)
            entry["at"] = float(entry["at"])
            if not isinstance(entry["value"], dict):
                raise TypeError("not an object")
            return dict(entry)
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring an unreadable aggregate cache entry %s", name)
            return None

    def forget_aggregates(self) -> None:
        """Drop every cached aggregate, so the next read recounts (benchmarks time the
        pass over the collection, not a cache hit)."""
        self.core.client.delete(self.core.keys.aggregate_cache)

    def _store_aggregate(self, name: str, mark: str, at: float, value: dict[str, Any]) -> None:
        pipe = self.core.client.pipeline(transaction=False)
        entry = {"mark": mark, "at": at, "value": value}
        pipe.hset(self.core.keys.aggregate_cache, name, json.dumps(entry))
        pipe.expire(self.core.keys.aggregate_cache, AGGREGATE_KEEP)
        pipe.execute()

    def stale_aggregate(
        self,
        name: str,
        compute: Callable[[], dict[str, Any]],
        *,
        access: bool = True,
        prepare: Callable[[], Any] | None = None,
        placeholder: Callable[[], dict[str, Any]] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Stale-while-revalidate: the last result at once, recomputed in the background.

        For the dashboard: a view right after a write (or after a restart) shows the
        last computed figures, ``as_of`` when they were taken, instead of waiting
        seconds for a pass over 100k memories; one background thread per collection
        and aggregate (a Redis lock across processes) brings them up to date. A
        collection never computed before waits for *compute*, unless a *placeholder*
        (the aggregate's empty value) is given: then that comes back at once with
        ``as_of`` None while the first count runs behind. Returns ``(value,
        {"as_of", "stale", "refreshing"})``; ``stale`` is false when the value is
        what :meth:`_cached_aggregate` would return as current.
        """
        if AGGREGATE_CACHE_TTL <= 0:  # caching off: always current
            if prepare is not None:
                prepare()
            return compute(), {"as_of": time.time(), "stale": False, "refreshing": False}
        mark = self._write_mark(access)
        entry = self._aggregate_entry(name)
        if entry is None and placeholder is not None:  # never counted: answer now, count behind
            refreshing = self._refresh_aggregate(name, compute, access, prepare)
            return placeholder(), {"as_of": None, "stale": True, "refreshing": refreshing}
        if entry is None:
            if prepare is not None:
                prepare()
                mark = self._write_mark(access)
            started = time.time()
            value = compute()
            if self._write_mark(access) == mark:
                self._store_aggregate(name, mark, started, value)
            return value, {"as_of": started, "stale": False, "refreshing": False}
        fresh = entry["mark"] == mark and time.time() - entry["at"] < AGGREGATE_CACHE_TTL
        refreshing = False if fresh else self._refresh_aggregate(name, compute, access, prepare)
        meta = {"as_of": entry["at"], "stale": not fresh, "refreshing": refreshing}
        return dict(entry["value"]), meta

    def _refresh_aggregate(
        self,
        name: str,
        compute: Callable[[], dict[str, Any]],
        access: bool,
        prepare: Callable[[], Any] | None,
    ) -> bool:
        """Start recomputing *name* in a daemon thread unless some process already is.

        Returns whether a refresh is running (this one or another process's).
        """
        lock = f"{self.core.keys.aggregate_cache}:refresh:{name}"
        lease = Lease(self.core.client, lock)
        token = lease.acquire()
        if token is None:
            return True

        def run() -> None:
            with lease.kept(token):  # renewed through a long pass; a crash frees it
                try:
                    time.sleep(REFRESH_DELAY)
                    if prepare is not None:
                        prepare()
                    mark = self._write_mark(access)
                    started = time.time()
                    value = compute()
                    # Stored under the mark from before the pass: a write during it leaves
                    # the entry stale, so the next reader starts another refresh.
                    self._store_aggregate(name, mark, started, value)
                except Exception:  # a background thread has nobody to raise to
                    log.exception(
                        "refreshing the aggregate %s of %s failed", name, self.core.keys.index
                    )

        thread = threading.Thread(target=run, name=f"houkai-refresh-{name}", daemon=True)
        refreshers = self.__dict__.setdefault("_refreshers", [])
        refreshers[:] = [t for t in refreshers if t.is_alive()]
        refreshers.append(thread)
        thread.start()
        return True

    def wait_refreshes(self, timeout: float = 60.0) -> bool:
        """Wait for this process's background aggregate refreshes; True when all finished."""
        deadline = time.monotonic() + timeout
        for thread in list(self.__dict__.get("_refreshers", [])):
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self.__dict__.get("_refreshers", []))

    # ------------------------------------------------------------------ metrics
    def metrics(self) -> dict[str, Any]:
        """Operational counters and recall latency, shared by every process (the seed's
        shape; README "Metrics, readiness, stats").

        ``calls`` are totals since the collection's counters were created;
        latency figures cover the last 1024 recalls (``window``), ``count`` is
        the total number of recalls.
        """
        pipe = self.core.client.pipeline(transaction=False)
        pipe.hgetall(self.core.keys.metrics)
        pipe.lrange(self.core.keys.latency, 0, 1023)
        raw_calls, raw_latency = pipe.execute()
        calls = {name: 0 for name in CALL_NAMES}
        for field, value in (raw_calls or {}).items():
            name = as_text(field)
            if name.startswith("calls:"):
                try:
                    calls[name[len("calls:") :]] = int(value)
                except ValueError:
                    continue
        return {
            "uptime_seconds": round(time.time() - self.core.started, 3),
            "count": self.core.count(),
            "calls": calls,
            "recall_latency_ms": latency_summary(raw_latency or [], calls.get("recall", 0)),
            "findability": findability.figures(findability.last_report(self.core)),
        }

    # ------------------------------------------------------------------ readiness
    def probe_embedding(self, text: str = PROBE_TEXT) -> dict[str, Any]:
        """Embed a short probe now, so a broken model surfaces before the first real write."""
        started = time.perf_counter()
        try:
            vector = self.core.encode([text])
        except Exception as exc:  # any backend failure is the answer
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        dim = int(vector.shape[1]) if getattr(vector, "ndim", 0) == 2 else 0
        result: dict[str, Any] = {
            "ok": dim == self.core.index_params.dim,
            "model": self.core.embedder.name,
            "backend": getattr(self.core.embedder, "backend", None),
            "why": getattr(self.core.embedder, "backend_reason", None) or None,
            "dim": dim,
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
        }
        if not result["ok"]:
            result["error"] = (
                f"embedder gives {dim} dims, the index expects {self.core.index_params.dim}"
            )
        return result

    def readiness(self, cache_ttl: float = 0.0) -> dict[str, Any]:
        """``{"ready", "checks": {store, redis, search, embedder}}``; only ready results are cached.

        ``store`` (the seed's name) is ok when Redis answers and the collection's
        index exists; ``redis`` and ``search`` say which of the two failed.

        ``cache_ttl`` (seconds) lets a polled ``/ready`` avoid one embedding per
        request; a not-ready answer is never cached, so recovery shows at once.
        """
        if isinstance(cache_ttl, bool) or not isinstance(cache_ttl, int | float) or cache_ttl < 0:
            raise ValidationError(f"cache_ttl must be a number >= 0 — got {cache_ttl!r}")
        lock = self.__dict__.setdefault("_readiness_lock", threading.Lock())
        if cache_ttl > 0:
            with lock:
                cached = self.__dict__.get("_readiness_cache")
            if cached is not None and time.monotonic() - cached[0] < cache_ttl:
                return cached[1]
        checks: dict[str, dict[str, Any]] = {}
        try:
            self.core.client.ping()
            checks["redis"] = {"ok": True}
        except redis.RedisError as exc:
            checks["redis"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        try:
            info = self.core.client.execute_command("FT.INFO", self.core.keys.index)
            checks["search"] = {"ok": True, "num_docs": num_docs(info)}
        except (redis.RedisError, ValueError, TypeError) as exc:
            checks["search"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        store_ok = bool(checks["redis"]["ok"] and checks["search"]["ok"])
        checks = {"store": {"ok": store_ok}, **checks}
        if store_ok:
            checks["store"]["count"] = checks["search"]["num_docs"]
        checks["embedder"] = self.probe_embedding()
        result = {"ready": all(c.get("ok") for c in checks.values()), "checks": checks}
        with lock:
            if result["ready"] and cache_ttl > 0:
                self.__dict__["_readiness_cache"] = (time.monotonic(), result)
            else:
                self.__dict__.pop("_readiness_cache", None)
        return result

    # ------------------------------------------------------------------ stats
    def created_slices(
        self, query: str = "*", size: int | None = None, index: str | None = None
    ) -> list[str]:
        """``created_at`` range clauses that split *query*'s memories into slices of
        about *size* (default :data:`SLICE_SIZE`) memories; together they cover every
        memory exactly once (``[""]`` when one pass is small enough).

        Bounds come from two sorted one-row searches, then ranges are halved while an
        index-only count says they hold more than twice *size* (bursts of writes).
        """
        size = SLICE_SIZE if size is None else size
        index = index or self.core.keys.index
        (total,) = counts(self.core.client, index, [query])
        if total <= size:
            return [""]
        bounds = []
        for order in ("ASC", "DESC"):
            reply = self.core.client.execute_command(
                "FT.SEARCH", index, query, "NOCONTENT", "SORTBY", "created_at",
                order, "WITHSORTKEYS", "LIMIT", 0, 1, "DIALECT", 2,
            )  # fmt: skip
            bounds.append(float(as_text(reply[2]).lstrip("#")))
        lo, hi = bounds
        parts = max(2, math.ceil(total / size))
        width = (hi - lo) / parts
        edges = [lo + i * width for i in range(parts)] + [hi]
        ranges = list(itertools.pairwise(edges))
        out: list[str] = []

        def clause(a: float, b: float) -> str:
            # open-ended at both ends, so no memory hinges on how the bounds were rounded
            low = "-inf" if a <= lo else repr(a)
            return f"@created_at:[{low} +inf]" if b >= hi else f"@created_at:[{low} ({b!r}]"

        while ranges:
            batch, ranges = ranges[:64], ranges[64:]
            clauses = [clause(a, b) for a, b in batch]
            found = counts(self.core.client, index, [both(query, c) for c in clauses])
            for (a, b), where, n in zip(batch, clauses, found, strict=True):
                middle = (a + b) / 2
                if n > 2 * size and a < middle < b:
                    ranges += [(a, middle), (middle, b)]
                elif n:
                    out.append(where)
        return out or [""]

    def _aggregate(
        self, query: str, *args: Any, index: str | None = None
    ) -> list[dict[str, str | None]]:
        reply = self.core.client.execute_command(
            "FT.AGGREGATE",
            index or self.core.keys.index,
            query,
            *FULL_SCAN_TIMEOUT,
            *args,
            "DIALECT",
            2,
        )
        return aggregate_rows(reply)

    def stats(
        self,
        *,
        top_tags: int = 15,
        stale_days: float = 30.0,
        decay_rate: float | None = None,
        min_score: float | None = None,
        frequency_weight: float | None = None,
        protect_types: tuple[str, ...] | list[str] | None = None,
        stale_ok: bool = False,
    ) -> dict[str, Any]:
        """Content aggregates: counts by type and state, top tags, decay health.

        Decay parameters default to the ``maintenance_decay_*`` settings, so the
        at-risk count matches what a prune would remove. Superseded memories are
        counted but left out of the type, tag and health breakdowns.

        With *stale_ok* (the dashboard) the last computed figures are returned at
        once, with ``as_of``/``stale``/``refreshing``, while a background thread
        recomputes them (:meth:`stale_aggregate`).
        """
        if not stale_ok:
            self.core.flush_access()  # the aggregates below read the indexed access counts
        s = self.core.settings
        rate = s.maintenance_decay_rate if decay_rate is None else float(decay_rate)
        floor = s.maintenance_decay_min_score if min_score is None else float(min_score)
        fweight = (
            s.maintenance_decay_frequency_weight
            if frequency_weight is None
            else float(frequency_weight)
        )
        if protect_types is None:
            protect = tuple(
                t.strip() for t in s.maintenance_decay_protect_types.split(",") if t.strip()
            )
        else:
            protect = tuple(protect_types)
        for value, name in (
            (rate, "decay_rate"),
            (fweight, "frequency_weight"),
            (stale_days, "stale_days"),
        ):
            if not math.isfinite(value) or value < 0:
                raise ValidationError(f"{name} must be a finite number >= 0 — got {value!r}")
        if isinstance(top_tags, bool) or not isinstance(top_tags, int) or top_tags < 0:
            raise ValidationError(f"top_tags must be an integer >= 0 — got {top_tags!r}")
        protect = tuple(t for t in protect if t in MEMORY_TYPES)
        # Two cached parts: what recalls cannot change (counts, types, tags) survives
        # a recall; the decay part is recomputed after one (it reads access counts).
        health_name = f"health:{stale_days!r}:{rate!r}:{floor!r}:{fweight!r}:{protect}"

        def health_now() -> dict[str, Any]:
            return self._health_now(stale_days, rate, floor, fweight, protect)

        freshness: dict[str, Any] = {}
        if stale_ok:
            content, c_meta = self.content_counts_stale(top_tags)
            health, h_meta = self.stale_aggregate(
                health_name, health_now, prepare=self.core.flush_access, placeholder=empty_health
            )
            stamps = [c_meta["as_of"], h_meta["as_of"]]
            freshness = {
                "as_of": None if None in stamps else min(stamps),
                "stale": c_meta["stale"] or h_meta["stale"],
                "refreshing": c_meta["refreshing"] or h_meta["refreshing"],
            }
        else:
            content = self._content_counts(top_tags)
            health = self._cached_aggregate(health_name, health_now)
        active = content["active"]
        by_type = content["by_type"]
        return {
            **freshness,
            "collection": self.core.collection_name,
            "total": content["total"],
            "active": active,
            "superseded": content["superseded"],
            "expired": health["expired"],
            "pending": content["pending"],
            "failed": content["failed"],
            "by_type": by_type,
            "top_tags": content["top_tags"],
            "health": {
                "decay_histogram": dict(zip(BUCKET_LABELS, health["hist"], strict=True)),
                "at_risk_count": health["at_risk"],
                "never_recalled_count": health["never"],
                "stale_count": health["stale"],
                "stale_days": stale_days,
                "episodic_active_count": by_type.get("episodic", 0),
                "avg_importance": round(health["importance"] / active, 3) if active else 0.0,
                "decay_rate": rate,
                "min_score": floor,
                "frequency_weight": fweight,
                "protect_types": list(protect),
            },
        }

    def _content_counts(self, top_tags: int = 15) -> dict[str, Any]:
        """Counts by state and type and the top tags (cached; recalls do not change them)."""
        return self._cached_aggregate(
            f"content:{top_tags}", lambda: self._content_now(top_tags), access=False
        )

    def content_counts_stale(self, top_tags: int = 15) -> tuple[dict[str, Any], dict[str, Any]]:
        """:meth:`_content_counts`, stale-while-revalidate (the dashboard's facets)."""
        return self.stale_aggregate(
            f"content:{top_tags}", lambda: self._content_now(top_tags), access=False
        )

    def _content_now(self, top_tags: int) -> dict[str, Any]:
        # Index-only counts, all in one round trip (see active_counts).
        named = {
            "total": "*",
            "superseded": "@sup:{1}",
            "pending": "@state:{pending}",
            "failed": "@state:{failed}",
        }
        n = dict(
            zip(
                named,
                counts(self.core.client, self.core.keys.index, list(named.values())),
                strict=True,
            )
        )
        typed = [f"@type:{{{t}}}" for t in MEMORY_TYPES]
        per_type = active_counts(self.core.client, self.core.keys.index, typed)
        by_type = {t: c for t, c in zip(MEMORY_TYPES, per_type, strict=True) if c}
        return {
            **n,
            "active": n["total"] - n["superseded"],
            "by_type": dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
            "top_tags": self._top_tags(ACTIVE, top_tags) if top_tags else {},
        }

    def _health_now(
        self,
        stale_days: float,
        rate: float,
        floor: float,
        fweight: float,
        protect: tuple[str, ...],
    ) -> dict[str, Any]:
        now = time.time()
        active_q = "@sup:{0}"
        stale_cut = now - float(stale_days) * 86400.0
        (expired,) = counts(self.core.client, self.core.keys.index, [f"@expires_at:[(0 {now!r}]"])
        (stale,) = counts(
            self.core.client,
            self.core.aggregate_index,  # last access is the access documents' (ADR 0075)
            [f"{active_q} @last_accessed:[-inf ({stale_cut!r}]"],
        )
        score = self._decay_summary(active_q, protect, now, rate, fweight, floor)
        return {"expired": expired, "stale": stale, **score}

    def _decay_summary(
        self,
        active_q: str,
        protect: tuple[str, ...],
        now: float,
        rate: float,
        fweight: float,
        floor: float,
    ) -> dict[str, Any]:
        """Decay histogram, at-risk and never-recalled counts, summed importance: one pass
        over the access index (see :func:`houkai.store.aggregates.decay_summary`)."""
        index = self.core.aggregate_index  # the access counts are the access documents'
        slices = self.created_slices(active_q, index=index)
        aggregate = functools.partial(self._aggregate, index=index)
        return decay_summary(aggregate, slices, active_q, protect, now, rate, fweight, floor)

    def _top_tags(self, query: str, limit: int) -> dict[str, int]:
        """The *limit* most used tags among memories matching *query*, most used first.

        One index-only count per distinct tag (``FT.TAGVALS``); past
        :data:`TAG_COUNT_MAX` tags, one aggregate over every memory's tags instead.
        """
        values = sorted(
            {
                as_text(v)
                for v in self.core.client.execute_command(
                    "FT.TAGVALS", self.core.keys.index, "tagk"
                )
            }
        )
        if len(values) > TAG_COUNT_MAX:
            keyed = top_tags_aggregate(functools.partial(self._aggregate), query, limit)
        else:
            clauses = [f"@tagk:{{{v}}}" for v in values]
            if query == ACTIVE:
                found = active_counts(self.core.client, self.core.keys.index, clauses)
            else:
                found = counts(
                    self.core.client, self.core.keys.index, [both(query, c) for c in clauses]
                )
            ranked = sorted(
                ((v, n) for v, n in zip(values, found, strict=True) if n),
                key=lambda kv: (-kv[1], kv[0]),
            )
            keyed = ranked[:limit]
        if not keyed:
            return {}
        names = self.core.client.hmget(self.core.keys.tag_names, [k for k, _ in keyed])
        return {as_text(name, key): n for (key, n), name in zip(keyed, names, strict=True)}
