"""Collection-wide counts and aggregates: the queries behind ``stats`` and the dashboard.

Index-only counts (``FT.SEARCH … LIMIT 0 0``) where they suffice, ``FT.AGGREGATE``
passes in ``created_at`` slices where a sum is needed, so no single command holds the
server long at 100k memories.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..db.decode import as_text

BUCKET_LABELS: tuple[str, ...] = ("0.0–0.2", "0.2–0.4", "0.4–0.6", "0.6–0.8", "0.8–1.0")
PROBE_TEXT = "houkai health probe"


def aggregate_rows(reply: Any) -> list[dict[str, str | None]]:
    """FT.AGGREGATE reply (RESP2 list or RESP3 map) → list of row dicts."""
    if isinstance(reply, dict):
        results = reply.get(b"results") or reply.get("results") or []
        return [
            {
                as_text(k): (None if v is None else as_text(v))
                for k, v in (r.get(b"extra_attributes") or r.get("extra_attributes") or {}).items()
            }
            for r in results
        ]
    out = []
    for row in reply[1:]:
        out.append(
            {
                as_text(row[i]): (None if row[i + 1] is None else as_text(row[i + 1]))
                for i in range(0, len(row) - 1, 2)
            }
        )
    return out


def percentile(samples: list[float], p: float) -> float:
    if not samples:
        return 0.0
    idx = min(max(round(p / 100.0 * (len(samples) - 1)), 0), len(samples) - 1)
    return round(samples[idx], 3)


def latency_summary(raw: list[Any], count: int) -> dict[str, Any]:
    """The recall latency figures of ``metrics``: *raw* samples (ms, the newest window
    of them) summarised; *count* is every recall since the counters began."""
    samples: list[float] = []
    for value in raw:
        try:
            samples.append(float(value))
        except ValueError:
            continue
    samples.sort()
    return {
        "count": count,
        "window": len(samples),
        "avg": round(sum(samples) / len(samples), 3) if samples else 0.0,
        "max": round(samples[-1], 3) if samples else 0.0,
        "p50": percentile(samples, 50),
        "p95": percentile(samples, 95),
        "p99": percentile(samples, 99),
    }


#: Seconds a collection-wide aggregate (``stats``, the dashboard's facets and growth)
#: may be served again while the collection's write mark is unchanged. Only time-driven
#: drift (expiry, decay scores, staleness) can go unseen, and for at most this long.
AGGREGATE_CACHE_TTL = 30.0
#: Seconds a computed aggregate is kept for stale-while-revalidate readers (the
#: dashboard shows it, with its time, while a fresh one is computed): 30 days, so a
#: restarted server's first view does not wait for a pass over the collection.
AGGREGATE_KEEP = 30 * 86400
#: Seconds a background refresh waits before its first query. Redis runs one command
#: at a time, so a pass over 100k memories started at once would hold up the rest of
#: the very page that asked (its other calls arrive a few ms later).
REFRESH_DELAY = 0.5


def empty_decay_summary() -> dict[str, Any]:
    """The decay pass's result before it has seen a memory."""
    return {"hist": [0] * len(BUCKET_LABELS), "at_risk": 0, "importance": 0.0, "never": 0}


def empty_health() -> dict[str, Any]:
    """The health figures of a collection not counted yet (the dashboard's placeholder)."""
    return {"expired": 0, "stale": 0, **empty_decay_summary()}


#: Metric counters that are not writes (a recall only bumps access counts).
READ_CALLS = (b"calls:recall", b"calls:export")

#: ``TIMEOUT`` for collection-wide queries: 0 = none. RediSearch's default (500 ms,
#: ``ON_TIMEOUT return``) silently cuts a slow aggregate short: at 100k memories on a
#: busy machine the tag facet came back empty and counts low.
FULL_SCAN_TIMEOUT = ("TIMEOUT", 0)

#: Memories one slice of a collection-wide pass covers. Redis runs one command at a
#: time: a single aggregate over 100k memories holds every other client (the page
#: the user clicked meanwhile) for up to a second; slices of ``created_at`` ranges
#: keep each command short and give the same sums.
SLICE_SIZE = 10_000

#: Above this many distinct tags the top-tags facet falls back to one aggregate that
#: loads every memory's tags (one count query per tag would cost more).
TAG_COUNT_MAX = 2000


def counts(client: Any, index: str, queries: list[str]) -> list[int]:
    """How many memories match each query: ``FT.SEARCH … LIMIT 0 0``, one round trip.

    Index-only counts; unlike an ``FT.AGGREGATE … LOAD`` they never open a hash,
    which is what keeps the dashboard's facets and ``stats`` fast at 100k.
    """
    pipe = client.pipeline(transaction=False)
    for query in queries:
        # TIMEOUT 0: under the default 500 ms with ON_TIMEOUT return, a count on a busy
        # 300k collection came back partial (258,899 of 300,918; ADR 0045).
        pipe.execute_command(
            "FT.SEARCH", index, query, "NOCONTENT", "LIMIT", 0, 0, "TIMEOUT", 0, "DIALECT", 2
        )
    return [int(reply[0]) for reply in pipe.execute()]


ACTIVE = "@sup:{0}"


def both(query: str, clause: str) -> str:
    """*query* narrowed by *clause* (either may be the match-all ``*`` or empty)."""
    parts = [q for q in (query.strip(), clause.strip()) if q and q != "*"]
    return " ".join(parts) or "*"


def active_counts(client: Any, index: str, clauses: list[str]) -> list[int]:
    """Active (not superseded) memories matching each clause, by subtraction.

    ``count(c) - count(@sup:{1} c)``: every memory stores ``sup`` as 0 or 1, and
    intersecting with the (usually few) superseded is far cheaper than with the
    nearly-everything ``@sup:{0}`` (tag facet at 100k: 0.42 s instead of 0.72 s).
    """
    found = counts(client, index, [*clauses, *(f"@sup:{{1}} {c}" for c in clauses)])
    return [a - b for a, b in zip(found[: len(clauses)], found[len(clauses) :], strict=True)]


def decay_summary(
    aggregate: Callable[..., list[dict[str, str | None]]],
    slices: list[str],
    active_q: str,
    protect: tuple[str, ...],
    now: float,
    rate: float,
    fweight: float,
    floor: float,
) -> dict[str, Any]:
    """Decay histogram, at-risk and never-recalled counts, summed importance: one pass.

    The score reads only sortable fields (importance, last_accessed), so no hash
    is opened unless the frequency weight needs ``access_count``; protected types
    are aggregated apart so they fill the histogram but are never at risk.
    """
    score = f"@importance * exp(-{rate!r} * (({now!r} - @last_accessed) / 86400))"
    load: tuple[Any, ...] = ()
    group: tuple[Any, ...] = ("GROUPBY", 2, "@b", "@r")
    if fweight:
        score += f" * (1 + {fweight!r} * log(1 + @access_count))"
        load = ("LOAD", 1, "@access_count")
        # access_count is loaded anyway: never-recalled costs nothing more
        group = ("APPLY", "@access_count == 0", "AS", "z", "GROUPBY", 3, "@b", "@r", "@z")
    protected = "|".join(protect)
    parts = [(active_q + "".join(f" -@type:{{{t}}}" for t in protect), True)]
    if protect:
        parts.append((f"{active_q} @type:{{{protected}}}", False))
    out = empty_decay_summary()
    hist = out["hist"]
    passes = [(both(q, where), lapse) for q, lapse in parts for where in slices]
    for query, can_lapse in passes:
        rows = aggregate(
            query,
            *load,
            "APPLY",
            score,
            "AS",
            "score",
            "APPLY",
            "floor(@score * 5)",
            "AS",
            "b",
            "APPLY",
            f"@score < {floor!r}",
            "AS",
            "r",
            *group,
            "REDUCE",
            "COUNT",
            0,
            "AS",
            "n",
            "REDUCE",
            "SUM",
            1,
            "@importance",
            "AS",
            "imp",
        )
        for r in rows:
            try:
                count = int(r["n"] or 0)
                bucket = min(len(hist) - 1, max(0, int(float(r["b"] or 0))))
                lapsed = float(r.get("r") or 0) != 0
                out["importance"] += float(r.get("imp") or 0.0)
            except ValueError:
                continue
            hist[bucket] += count
            if lapsed and can_lapse:
                out["at_risk"] += count
            if fweight and float(r.get("z") or 0) != 0:
                out["never"] += count
    if not fweight:
        for where in slices:
            never = aggregate(
                both(active_q, where),
                "LOAD",
                1,
                "@access_count",
                "FILTER",
                "@access_count == 0",
                "GROUPBY",
                0,
                "REDUCE",
                "COUNT",
                0,
                "AS",
                "n",
            )
            out["never"] += int(never[0]["n"] or 0) if never else 0
    return out


def top_tags_aggregate(
    aggregate: Callable[..., list[dict[str, str | None]]], query: str, limit: int
) -> list[tuple[str, int]]:
    rows = aggregate(
        query,
        "LOAD",
        1,
        "@tagk",
        "FILTER",
        "exists(@tagk)",  # untagged memories store no tagk field (codec.sparse_hash)
        "APPLY",
        'split(@tagk, ",")',
        "AS",
        "tag",
        "GROUPBY",
        1,
        "@tag",
        "REDUCE",
        "COUNT",
        0,
        "AS",
        "n",
        "FILTER",
        "@tag != ''",
        "SORTBY",
        4,
        "@n",
        "DESC",
        "@tag",
        "ASC",
        "MAX",
        limit + 1,
    )
    return [(str(r["tag"]), int(r["n"] or 0)) for r in rows if r.get("tag")][:limit]
