"""Read views the web dashboard needs that no other door offered.

Every function takes a :class:`houkai.app.service.MemoryService` and validates its
arguments here, once; the REST routes in :mod:`houkai.api.routes` only unpack
the request. Nothing here fetches every memory: pages are keyset-paginated
``FT.AGGREGATE … SORTBY … MAX n`` queries, counts and growth are server-side
aggregates, and the pipeline view reads a handful of Redis keys.
"""

from __future__ import annotations

import logging
import math
import re
import time
from typing import Any

from ..db.decode import as_text
from ..db.filters import filter_expr
from ..db.keys import GlobalKeys
from ..domain.coerce import as_bool, as_int, as_str
from ..domain.errors import BadRequest
from ..domain.model import MEMORY_TYPES
from ..store.access import memory_key_of
from ..store.observability import FULL_SCAN_TIMEOUT, aggregate_rows
from .operations.fields import CURSOR_PATTERN

log = logging.getLogger(__name__)

#: Browse orders: the integer sort key computed server-side per memory. Integers
#: (not the raw floats) so a cursor value round-trips exactly through the reply's
#: 12-significant-digit formatting; ties are broken by the memory's key.
BROWSE_SORTS: dict[str, str] = {
    "created": "floor(@created_at * 1000000)",
    "importance": "floor(@importance * 1000000)",
    "decay": "floor(@decay * 1000000000)",
}
MAX_PAGE = 200
SORT_SCALE = 1_000_000  # created and importance keys: the field × 10⁶, floored
#: Browse first looks in a window of the sort field below the cursor (the newest
#: day, the top importance band …), widening, then the whole collection: a
#: page of the newest 25 out of 100k then reads a few hundred memories, not 100k.
CREATED_WINDOWS = (86400.0, 30 * 86400.0, 365 * 86400.0)
IMPORTANCE_WINDOWS = (0.05, 0.25, 0.5)
DECAY_SCALE = 1_000_000_000
DECAY_WINDOWS = (0.9, 0.6, 0.3)  # fractions of the cursor's score
GROWTH_BUCKETS: dict[str, int] = {"hour": 3600, "day": 86400, "week": 7 * 86400}
MAX_GROWTH_POINTS = 1000  # the newest buckets; their running totals count every memory
#: VALUE:HEXID:T: the last row's sort key, its id (hex of the UTF-8 bytes) and the time (ms)
#: decay scores are taken at, so every page of one walk ranks by the same clock.
# A browse cursor: sort value, hex of the memory id, tie-breaker (declared in the OpenAPI too).
_CURSOR = re.compile(CURSOR_PATTERN)


def _num(value: float) -> str:
    return repr(float(value))


def decay_expression(settings: Any, now: float) -> str:
    """The maintenance decay score as a RediSearch expression (same formula as ``stats``)."""
    rate = float(settings.maintenance_decay_rate)
    weight = float(settings.maintenance_decay_frequency_weight)
    expr = f"@importance * exp(-{_num(rate)} * (({_num(now)} - @last_accessed) / 86400))"
    if weight:
        expr += f" * (1 + {_num(weight)} * log(1 + @access_count))"
    return expr


def _windows(sort: str, top: float | None, now: float, settings: Any) -> list[tuple[float, str]]:
    """``(lo, range clause)`` to try, narrowest first: every memory whose sort key is at
    least *lo* (and below *top*, the cursor's value) matches the clause."""
    if sort == "created":
        start = now if top is None else top
        return [(start - w, f"@created_at:[{start - w!r} +inf]") for w in CREATED_WINDOWS]
    start = 1.0 if top is None else min(top, 1.0)
    if sort == "importance":
        lows = [start - w for w in IMPORTANCE_WINDOWS if start - w > 0]
        return [(lo, f"@importance:[{lo!r} +inf]") for lo in lows]
    # decay = importance × exp(-rate × age in days), at most each factor: a score of at
    # least s needs importance >= s and age <= ln(1/s) / rate. A recall-frequency weight
    # lifts scores past importance, so then no range bounds them.
    rate = float(settings.maintenance_decay_rate)
    if float(settings.maintenance_decay_frequency_weight):
        return []
    out = []
    for factor in DECAY_WINDOWS:
        lo = start * factor
        if lo <= 0:
            continue
        clause = f"@importance:[{lo!r} +inf]"
        if rate > 0:
            oldest = now - math.log(1.0 / lo) / rate * 86400.0
            # a memory recalled after the page's clock can score above its importance
            clause = (
                f"((@importance:[{lo!r} +inf] @last_accessed:[{oldest!r} +inf])"
                f" | @last_accessed:[({now!r} +inf])"
            )
        out.append((lo, clause))
    return out


def _parse_cursor(after: str | None) -> tuple[int, str, int] | None:
    if after in (None, ""):
        return None
    match = _CURSOR.match(str(after))
    if match is None:
        raise BadRequest("after: not a cursor from a previous page (expected VALUE:ID:T)")
    # Any well-formed cursor names a position; an id no memory can have (bad UTF-8, a
    # quote or backslash that the keyset query could not carry) is cleaned, not refused.
    raw_id = bytes.fromhex(match.group(2)).decode("utf-8", errors="replace")
    memory_id = "".join(c for c in raw_id if c.isprintable() and c not in '"\\')
    return int(match.group(1)), memory_id, int(match.group(3))


def browse(
    service: Any,
    sort: str = "created",
    after: str | None = None,
    limit: int = 25,
    type: str | None = None,
    tag: str | None = None,
    include_superseded: bool = False,
    *,
    collection: str | None = None,
) -> dict[str, Any]:
    """One page of memories, highest *sort* key first; ``next`` is the cursor of the page after.

    Keyset pagination: a page asks for keys strictly below the last one shown, so
    paging to the end of 100k memories costs the same per page as the first.
    """
    from ..store import codec
    from .service import memory_to_dict

    sort = as_str(sort, "sort", max_len=32) or "created"
    if sort not in BROWSE_SORTS:
        raise BadRequest(f"sort must be one of {', '.join(BROWSE_SORTS)} — got {sort!r}")
    limit = as_int(limit, "limit", 25, lo=1, hi=MAX_PAGE) or 25
    type_ = as_str(type, "type", max_len=64)
    if type_ is not None and type_ not in MEMORY_TYPES:
        raise BadRequest(f"type must be one of {', '.join(MEMORY_TYPES)} — got {type_!r}")
    cursor = _parse_cursor(after)
    store = service.read_store(collection)
    now = time.time()
    clock_ms = cursor[2] if cursor is not None else int(now * 1000)
    query = filter_expr(
        type=type_,
        tag=as_str(tag, "tag"),
        include_superseded=as_bool(include_superseded, "include_superseded"),
        now=now,
    )
    # importance, created_at and last_accessed are SORTABLE: the sort key reads them
    # from the index. Only the key (and access_count, when the decay score weighs
    # recalls) is loaded, so ranking 100k memories opens no hash.
    load = ["@__key"]
    if sort == "decay" and float(store.settings.maintenance_decay_frequency_weight):
        load.append("@access_count")
    steps: list[Any] = ["LOAD", len(load), *load]
    # decay reads the access counts, which are the access documents' (ADR 0075)
    index = store.aggregate_index if sort == "decay" else store.keys.index
    key_of = store.keys.access_doc if index == store.keys.access_index else store.keys.memory
    if sort == "decay":
        steps += ["APPLY", decay_expression(store.settings, clock_ms / 1000.0), "AS", "decay"]
    steps += ["APPLY", BROWSE_SORTS[sort], "AS", "k"]
    if cursor is not None:
        value, memory_id, _ = cursor
        last_key = key_of(memory_id)
        steps += ["FILTER", f'@k < {value} || (@k == {value} && @__key < "{last_key}")']
    steps += ["SORTBY", 4, "@k", "DESC", "@__key", "DESC", "MAX", limit + 1, "DIALECT", 2]

    def page(where: str) -> list[dict[str, str | None]]:
        reply = store.client.execute_command(
            "FT.AGGREGATE", index, where, *FULL_SCAN_TIMEOUT, *steps
        )
        return [r for r in aggregate_rows(reply) if r.get("__key") and r.get("k")]

    rows = None
    scale = DECAY_SCALE if sort == "decay" else SORT_SCALE
    top = None if cursor is None else cursor[0] / scale
    for lo, where in _windows(sort, top, clock_ms / 1000.0, store.settings):
        # Only memories a numeric range of the index admits (sort key >= lo), without
        # visiting the rest. The page is the true one when it fills up with keys
        # clear of the window's edge (nothing left out can rank above them).
        found = page(f"{query} {where}")
        if len(found) > limit and int(found[-1]["k"] or 0) > math.floor(lo * scale) + 1:
            rows = found
            break
    if rows is None:
        rows = page(query)
    more = len(rows) > limit
    rows = rows[:limit]
    pipe = store.client.pipeline(transaction=False)
    for row in rows:
        pipe.hgetall(memory_key_of(store.keys, str(row["__key"])))
    loaded = [
        (row, codec.from_hash({k.decode(): v for k, v in fields.items()}))
        for row, fields in zip(rows, pipe.execute(), strict=True)
        if fields  # else deleted between the two reads
    ]
    store.overlay_access([memory for _, memory in loaded])  # the true access counts
    memories = []
    for row, memory in loaded:
        item = memory_to_dict(memory)
        if sort == "decay":
            item["decay_score"] = int(row["k"] or 0) / 1e9  # the sort key itself
        memories.append(item)
    next_cursor = None
    if more and rows:
        last = rows[-1]
        memory_id = str(last["__key"]).rsplit(":", 1)[-1]
        next_cursor = f"{int(last['k'] or 0)}:{memory_id.encode().hex()}:{clock_ms}"
    return {"sort": sort, "memories": memories, "next": next_cursor}


def facets(service: Any, top_tags: int = 15, *, collection: str | None = None) -> dict[str, Any]:
    """Active memories per type and the most used tags: the browse view's facets.

    The content part of ``stats`` (index-only counts, one per type and one per
    distinct tag; no memory's hash is read). Stale-while-revalidate: after a write
    the last counts come back at once (``as_of``, ``stale``) while fresh ones are
    computed in the background.
    """
    top = as_int(top_tags, "top_tags", 15, lo=0, hi=100) or 0
    content, meta = service.read_store(collection).content_counts_stale(top)
    return {**{k: content[k] for k in ("by_type", "active", "top_tags")}, **meta}


def overview(service: Any, *, collection: str | None = None) -> dict[str, Any]:
    """The Health view's ``stats``: the last computed figures at once, refreshed behind.

    Same shape as ``GET /stats`` plus ``as_of`` (when the figures were taken),
    ``stale`` (the collection changed since, or they are older than the cache's
    30 s) and ``refreshing`` (a background recount is running; ask again).
    ``houkai stats`` and ``GET /stats`` always recount when stale.
    """
    store = service.read_store(collection)
    out = store.stats(stale_ok=True)
    out.update(count=store.count(), path=store.path, collection=store.collection_name)
    return out


def growth(service: Any, bucket: str = "day", *, collection: str | None = None) -> dict[str, Any]:
    """Memories created per *bucket* (hour/day/week) and Redis memory used per memory.

    The series is stale-while-revalidate, like :func:`facets` (``as_of``, ``stale``).
    """
    bucket = as_str(bucket, "bucket", max_len=16) or "day"
    if bucket not in GROWTH_BUCKETS:
        raise BadRequest(f"bucket must be one of {', '.join(GROWTH_BUCKETS)} — got {bucket!r}")
    seconds = GROWTH_BUCKETS[bucket]
    store = service.read_store(collection)

    def compute() -> dict[str, Any]:
        per_bucket: dict[int, int] = {}
        for where in store.created_slices("*"):  # short commands: see SLICE_SIZE
            for b, n in _growth_rows(store, where or "*", seconds):
                per_bucket[b] = per_bucket.get(b, 0) + n
        series = [{"t": b * seconds, "n": n} for b, n in sorted(per_bucket.items())]
        running = 0
        for point in series:
            running += point["n"]
            point["total"] = running
        return {"series": series[-MAX_GROWTH_POINTS:], "count": store.count()}

    cached, meta = store.stale_aggregate(
        f"growth:{bucket}",
        compute,
        access=False,
        placeholder=lambda: {"series": [], "count": store.count()},
    )
    series, count = cached["series"], cached["count"]
    return {
        **meta,
        "bucket": bucket,
        "series": series,
        "count": count,
        "redis": _redis(service, store.client),
    }


def _redis(service: Any, client: Any) -> dict[str, Any]:
    """Redis memory per memory, for a caller who may see the whole Redis; a
    collection-scoped token gets only its own collections' count (the rest is null)."""
    from .auth import caller, sees_server_wide

    keyspace = service.collections()
    if not sees_server_wide():
        grant = caller()
        own = [c for c in keyspace if grant is not None and grant.allows_collection(c["name"])]
        return {
            "used_memory": None,
            "memories_in_redis": sum(int(c.get("count") or 0) for c in own),
            "bytes_per_memory": None,
            "scope": "token",
        }
    used = int(client.info("memory").get("used_memory", 0))
    all_memories = sum(int(c.get("count") or 0) for c in keyspace)
    return {
        "used_memory": used,
        "memories_in_redis": all_memories,
        "bytes_per_memory": round(used / all_memories) if all_memories else None,
        "scope": "redis",
    }


def _growth_rows(store: Any, query: str, seconds: int) -> list[tuple[int, int]]:
    """``(bucket, memories created in it)`` for *query*'s memories, oldest bucket first."""
    reply = store.client.execute_command(
        "FT.AGGREGATE",
        store.keys.index,
        query,
        *FULL_SCAN_TIMEOUT,
        "APPLY",  # created_at is SORTABLE: read from the index, no hash opened
        f"floor(@created_at / {seconds})",
        "AS",
        "b",
        "GROUPBY",
        1,
        "@b",
        "REDUCE",
        "COUNT",
        0,
        "AS",
        "n",
        "SORTBY",
        2,
        "@b",
        "ASC",
        "MAX",
        100_000,
        "DIALECT",
        2,
    )
    out = []
    for fields in aggregate_rows(reply):
        try:
            out.append((int(float(fields["b"] or 0)), int(fields["n"] or 0)))
        except (KeyError, ValueError):
            continue
    return out


def _queue_depths(client: Any, prefix: str) -> dict[str, int]:
    """Messages waiting in each Celery queue (kombu's Redis lists under the houkai prefix)."""
    try:
        from houkai.workers.app import QUEUES
    except ImportError:  # the pipeline extras are not installed
        return {}
    pipe = client.pipeline(transaction=False)
    for name in QUEUES:
        pipe.llen(GlobalKeys(prefix).celery_namespace + name)
    return {name: int(n or 0) for name, n in zip(QUEUES, pipe.execute(), strict=True)}


def pipeline_status(service: Any, *, collection: str | None = None) -> dict[str, Any]:
    """Queue depths, embedding workers with their last heartbeat, and the maintenance schedule."""
    from ..pipeline import maintenance
    from ..pipeline.jobs import HEARTBEAT_TTL, workers_key

    store = service.read_store(collection)
    prefix = service.settings.key_prefix
    now = time.time()
    workers = [
        {
            "name": as_text(name),
            "last_seen": float(seen),
            "alive": float(seen) >= now - HEARTBEAT_TTL,
        }
        for name, seen in store.client.zrevrange(workers_key(prefix), 0, 49, withscores=True)
    ]
    schedule = maintenance.status(store, service.settings, now=now)
    try:
        from houkai.workers.beat import tick_interval

        schedule["beat_every_seconds"] = tick_interval(service.settings)
    except ImportError:  # no Celery: ticks come from cron or `houkai maintenance tick`
        schedule["beat_every_seconds"] = None
    from .auth import sees_server_wide

    wide = sees_server_wide()  # the queues and workers are every collection's
    return {
        "collection": store.collection_name,
        "now": now,
        "pipeline_mode": service.settings.pipeline_mode,
        "queues": _queue_depths(store.client, prefix) if wide else {},
        "workers": workers if wide else [],
        "workers_alive": sum(1 for w in workers if w["alive"]),
        "maintenance": schedule,
        "server_wide": wide,
    }


def whoami(token: Any, tokens_configured: bool) -> dict[str, Any]:
    """What the caller's token may do (the dashboard hides what it may not)."""
    if token is None:
        return {"auth": tokens_configured, "read_only": False, "collections": None}
    names = None if token.collections is None else sorted(token.collections)
    return {"auth": True, "read_only": bool(token.read_only), "collections": names}
