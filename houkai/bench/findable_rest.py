"""REST latency of ``bench findable``: 0.1's bare HNSW path against today's, in one run.

Two gunicorn-served apps (:class:`~houkai.bench.recall_rest.RestServer`) on the same
loaded collection: ``before`` with ``exact_knn_max = 0`` and ``semantic_widen = false``
(the HNSW pool alone, as 0.1 searched), and ``defaults``. Each query is asked of both
in turn, alternating which goes first, so both meet the same machine noise; one
unmeasured pass first fills each server's query-embedding cache (the figures are
warm: the search, not the encoder). Each round gives a p50/p99 per server and mode;
the result is the median over rounds, and the ratio defaults / before.
"""

from __future__ import annotations

import http.client
import json
import statistics
import time
import urllib.parse
from collections.abc import Sequence
from typing import Any

from ..domain.config import Settings
from .recall import percentiles
from .recall_rest import RestServer

MODES = ("semantic", "hybrid")
PATHS = ("before", "defaults")


def path_settings(settings: Settings) -> dict[str, Settings]:
    """The settings each compared server runs with."""
    return {
        "before": settings.replace(exact_knn_max=0, semantic_widen=False),
        "defaults": settings,
    }


def _ask(conn: http.client.HTTPConnection, query: str, mode: str) -> float:
    params = {"query": query, "k": 5, "mode": mode, "touch": "false"}
    started = time.perf_counter()
    conn.request("GET", "/recall?" + urllib.parse.urlencode(params))
    resp = conn.getresponse()
    body = resp.read()
    elapsed = (time.perf_counter() - started) * 1000
    if resp.status != 200:
        raise RuntimeError(f"GET /recall ({mode}) returned {resp.status}: {body[:300]!r}")
    json.loads(body)
    return elapsed


def measure(
    settings: Settings, collection: str, queries: Sequence[str], *, rounds: int = 3
) -> dict[str, Any]:
    """``rest_{mode}_{path}_p50_ms``/``_p99_ms`` (medians over *rounds*) and
    ``rest_{mode}_p99_ratio`` (defaults / before) for *queries* on *collection*."""
    configs = path_settings(settings)
    servers = {path: RestServer(configs[path], collection) for path in PATHS}
    out: dict[str, Any] = {"rest_rounds": rounds, "rest_queries": len(queries)}
    with servers["before"], servers["defaults"]:
        conns = {
            path: http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
            for path, server in servers.items()
        }
        try:
            for mode in MODES:  # warm-up: fills each server's query cache
                for query in queries:
                    for path in PATHS:
                        _ask(conns[path], query, mode)
            per_round: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for r in range(rounds):
                for mode in MODES:
                    times: dict[str, list[float]] = {path: [] for path in PATHS}
                    for i, query in enumerate(queries):
                        order = PATHS if (i + r) % 2 == 0 else PATHS[::-1]
                        for path in order:
                            times[path].append(_ask(conns[path], query, mode))
                    for path in PATHS:
                        p50, _, p99, _ = percentiles(times[path])
                        per_round.setdefault((mode, path), []).append((p50, p99))
        finally:
            for conn in conns.values():
                conn.close()
    for (mode, path), figures in per_round.items():
        out[f"rest_{mode}_{path}_p50_ms"] = round(statistics.median(f[0] for f in figures), 2)
        out[f"rest_{mode}_{path}_p99_ms"] = round(statistics.median(f[1] for f in figures), 2)
    for mode in MODES:
        before = out[f"rest_{mode}_before_p99_ms"]
        out[f"rest_{mode}_p99_ratio"] = (
            round(out[f"rest_{mode}_defaults_p99_ms"] / before, 3) if before else None
        )
    return out


def format_row(row: dict[str, Any]) -> str:
    """One line: REST p50/p99 per mode, before → defaults."""
    parts = []
    for mode in MODES:
        parts.append(
            f"{mode} p50/p99 {row[f'rest_{mode}_before_p50_ms']:.1f}/"
            f"{row[f'rest_{mode}_before_p99_ms']:.1f} → {row[f'rest_{mode}_defaults_p50_ms']:.1f}/"
            f"{row[f'rest_{mode}_defaults_p99_ms']:.1f} ms (p99 ×{row[f'rest_{mode}_p99_ratio']})"
        )
    return f"  {row['corpus']} {row['n']}: REST warm, before → defaults: " + "; ".join(parts)
