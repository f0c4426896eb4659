"""``houkai bench recall``: recall latency (library and REST) and HNSW quality by corpus size.

For each size N (default 10k and 100k) the benchmark

1. builds a deterministic corpus of N agent memories (:mod:`.recall_corpus`),
   embeds it once (vectors cached on disk) and writes it with the store's own
   write path (``store._write``) in pipelined batches, then waits for
   RediSearch to finish indexing;
2. measures **HNSW quality**: recall@10 of the index's KNN answer against an
   exact brute-force search (numpy dot over every stored vector, read back
   from Redis in batches), at the configured ``EF_RUNTIME`` and a sweep of
   query-time ``EF_RUNTIME`` values, unfiltered and with the tag+type filter;
3. measures **library latency**: ``store.recall`` p50/p95/p99 for semantic and
   hybrid mode, without and with a selective tag+type filter. Each
   configuration runs the query set twice on a fresh query-embedding cache: a
   cold pass (every query is embedded) and a warm pass (every query should be a
   cache hit), and reports the cache hit rate of each pass;
4. measures **REST latency**: ``GET /recall`` through the real Flask app served
   by werkzeug's threaded server on a loopback port (HTTP/1.1 keep-alive, one
   persistent connection), same queries, same cold/warm protocol.

Ties: near-duplicate memories have identical vectors, so an HNSW answer may
return a different member of a tie than the exact search; a returned memory
counts as correct when its exact similarity reaches the k-th exact similarity.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import redis

from ..db.filters import filter_expr
from ..db.schema import await_scan
from ..domain.config import Settings
from ..domain.model import ValidationError
from ..engines.embeddings import QueryCache, backend_label
from ..store import codec
from ..store.search import iter_keys, search
from ..store.updates import link_updates
from .recall_corpus import Query, corpus_vectors, generate, queries
from .recall_result import (
    LatencyStats,
    QualityPoint,
    RecallBenchResult,
    SizeResult,
    loadavg,
    machine_facts,
    percentiles,
)

log = logging.getLogger(__name__)

MODES: tuple[str, ...] = ("semantic", "hybrid")
DEFAULT_SIZES: tuple[int, ...] = (10_000, 100_000)
DEFAULT_EF_SWEEP: tuple[int, ...] = (10, 32, 64, 128, 256)
Progress = Callable[[str], None]


def _fresh_cache(store: Any) -> QueryCache:
    """Give *store* an empty query-embedding cache (same bound), so a pass starts cold."""
    cache = QueryCache(store.embedder, store.settings.query_cache_size)
    store.query_cache = cache
    return cache


def wait_indexed(client: redis.Redis, index: str, expected: int, timeout: float = 1800) -> None:
    """Block until the index holds *expected* documents and is not (re)indexing."""
    if not await_scan(client, index, timeout, expected=expected, interval=0.2):
        raise TimeoutError(f"index {index} still indexing after {timeout:.0f}s")


# --------------------------------------------------------------------------- corpus
def _marker_key(store: Any) -> str:
    return store.keys.bench


def load_corpus(
    store: Any,
    n: int,
    *,
    seed: int,
    batch: int = 1000,
    progress: Progress | None = None,
    encoder: Any = None,
) -> tuple[bool, float, bool, float]:
    """Fill *store* with the N-memory corpus; returns (cached vectors, embed s, reused, load s).

    *encoder* embeds the corpus (default: the store's embedder, which embeds the queries).
    A collection left by an earlier ``--keep`` run with the same corpus is reused as is.
    """
    encoder = encoder or store.embedder
    # "updates": the corpus's update links are written, as remember_many writes them (ADR 0105)
    signature = f"recall-corpus n={n} seed={seed} model={backend_label(encoder)} updates"
    client = store.client
    marker = client.get(_marker_key(store))
    if marker is not None and marker.decode() == signature and store.count() == n:
        wait_indexed(client, store.keys.index, n)
        return True, 0.0, True, 0.0
    if store.count():
        store.nuke()
    memories = generate(n, seed)
    started = time.perf_counter()

    def embed_progress(done: int, total: int) -> None:
        if progress:
            progress(f"embedding corpus {done}/{total}")

    vectors, cached = corpus_vectors(
        memories,
        encoder.encode,
        data_dir=store.settings.data_dir,
        seed=seed,
        model=backend_label(encoder),
        progress=embed_progress,
    )
    embed_seconds = time.perf_counter() - started
    started = time.perf_counter()
    for start in range(0, n, batch):
        chunk = memories[start : start + batch]
        for memory in chunk:
            memory.collection = store.collection_name
        store.write(chunk, vectors[start : start + batch])
        link_updates(store.core, chunk)
        if progress:
            progress(f"writing {min(start + batch, n)}/{n}")
    wait_indexed(client, store.keys.index, n)
    load_seconds = time.perf_counter() - started
    client.set(_marker_key(store), signature)
    return cached, embed_seconds, False, load_seconds


# --------------------------------------------------------------------------- quality
def read_vectors(
    store: Any, batch: int = 2000
) -> tuple[list[str], np.ndarray, list[str], list[set[str]]]:
    """Every stored vector of the collection with its id, type and tag keys (batched reads)."""
    ids: list[str] = []
    rows: list[np.ndarray] = []
    types: list[str] = []
    tagks: list[set[str]] = []
    client = store.client
    for keys in iter_keys(client, store.keys.index, "*", batch_size=batch):
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.hmget(key, "vec", "type", "tagk")
        for key, (raw, kind, tagk) in zip(keys, pipe.execute(), strict=True):
            vec = store.vector_from_blob(raw)
            if vec is None:
                continue
            ids.append(codec.memory_id_from_key(store.keys, key))
            rows.append(vec)
            types.append((kind or b"").decode())
            tagks.append(set((tagk or b"").decode().split(",")) - {""})
    matrix = np.vstack(rows).astype(np.float32) if rows else np.zeros((0, 0), np.float32)
    return ids, matrix, types, tagks


def knn_ids(store: Any, qvec: np.ndarray, knn: int, ef: int, where: str) -> list[str]:
    base = f"({where})" if where != "*" else "*"
    _, hits = search(
        store.client,
        store.keys.index,
        f"{base}=>[KNN {knn} @vec $q EF_RUNTIME $ef AS dist]",
        params={"q": store.vector_blob(qvec), "ef": ef},
        return_fields=("dist",),
        sortby=("dist", "ASC"),
        limit=knn,
    )
    return [codec.memory_id_from_key(store.keys, h.key) for h in hits]


def measure_quality(
    store: Any,
    qset: Sequence[Query],
    qvecs: np.ndarray,
    *,
    k: int,
    ef_values: Sequence[int],
    knn_sizes: Sequence[int],
    eps: float = 1e-5,
) -> list[QualityPoint]:
    """HNSW recall@k vs exact search, per (EF_RUNTIME, KNN size, filter)."""
    ids, matrix, types, tagks = read_vectors(store)
    if not ids:
        return []
    row_of = {mid: i for i, mid in enumerate(ids)}
    sims = matrix @ qvecs.T  # (N, queries): exact cosine, vectors are unit length
    type_arr = np.asarray(types)
    tag_masks: dict[str, np.ndarray] = {}
    points: list[QualityPoint] = []
    for filtered in (False, True):
        # Exact k-th similarity per query, over the filter's subset when filtered.
        thresholds: list[float | None] = []
        eligible: list[int] = []
        wheres: list[str] = []
        for qi, q in enumerate(qset):
            column = sims[:, qi]
            where = "*"
            if filtered:
                if q.tag not in tag_masks:
                    tag_key = codec.value_key(q.tag)
                    tag_masks[q.tag] = np.fromiter(
                        (tag_key in t for t in tagks), dtype=bool, count=len(tagks)
                    )
                mask = (type_arr == q.type) & tag_masks[q.tag]
                column = column[mask]
                where = filter_expr(
                    type=q.type, tag=q.tag, include_superseded=True, include_expired=True
                )
            wheres.append(where)
            kk = min(k, column.size)
            eligible.append(kk)
            thresholds.append(float(np.partition(column, -kk)[-kk]) if kk else None)
        for ef in ef_values:
            for knn in knn_sizes:
                scores: list[float] = []
                times: list[float] = []
                for qi in range(len(qset)):
                    threshold = thresholds[qi]
                    if threshold is None:
                        continue  # the filter keeps nothing: no answer to grade
                    t0 = time.perf_counter()
                    got = knn_ids(store, qvecs[qi], knn, ef, wheres[qi])[:k]
                    times.append((time.perf_counter() - t0) * 1000)
                    good = sum(
                        1
                        for mid in got
                        if mid in row_of and sims[row_of[mid], qi] >= threshold - eps
                    )
                    scores.append(min(1.0, good / eligible[qi]))
                if scores:
                    points.append(
                        QualityPoint(
                            ef_runtime=ef,
                            knn=knn,
                            filtered=filtered,
                            recall_at_k=round(float(np.mean(scores)), 4),
                            queries=len(scores),
                            p50_ms=percentiles(times)[0],
                        )
                    )
    return points


# --------------------------------------------------------------------------- latency
def _configs() -> list[tuple[str, bool]]:
    return [(mode, filtered) for mode in MODES for filtered in (False, True)]


def measure_library(
    store: Any, qset: Sequence[Query], *, k: int, touch: bool
) -> list[LatencyStats]:
    """``store.recall`` per (mode, filter): a cold pass on a fresh cache, then a warm pass."""
    out: list[LatencyStats] = []
    for mode, filtered in _configs():
        cache = _fresh_cache(store)
        for phase in ("cold", "warm"):
            hits0, misses0 = cache.hits, cache.misses
            times: list[float] = []
            for q in qset:
                kwargs: dict[str, Any] = {"type": q.type, "tag": q.tag} if filtered else {}
                t0 = time.perf_counter()
                store.recall(q.text, k=k, mode=mode, touch=touch, **kwargs)
                times.append((time.perf_counter() - t0) * 1000)
            p50, p95, p99, mean = percentiles(times)
            out.append(
                LatencyStats(
                    "library",
                    mode,
                    filtered,
                    phase,
                    len(times),
                    p50,
                    p95,
                    p99,
                    mean,
                    cache.hits - hits0,
                    cache.misses - misses0,
                )
            )
    return out


def measure_rest(
    settings: Settings, collection: str, qset: Sequence[Query], *, k: int, touch: bool
) -> tuple[list[LatencyStats], bool]:
    """``GET /recall`` over one keep-alive connection to a gunicorn-served app.

    Returns the stats and whether the connection stayed open throughout.
    """
    from .recall_rest import RestServer

    out: list[LatencyStats] = []
    keepalive = True
    with RestServer(settings, collection) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
        try:
            for mode, filtered in _configs():
                server.cache("POST")  # a fresh, empty query cache: the first pass is cold
                for phase in ("cold", "warm"):
                    before = server.cache("GET")
                    times: list[float] = []
                    for q in qset:
                        params: dict[str, Any] = {
                            "query": q.text,
                            "k": k,
                            "mode": mode,
                            "touch": "true" if touch else "false",
                        }
                        if filtered:
                            params.update(type=q.type, tag=q.tag)
                        path = "/recall?" + urllib.parse.urlencode(params)
                        t0 = time.perf_counter()
                        conn.request("GET", path)
                        resp = conn.getresponse()
                        payload = json.loads(resp.read())
                        times.append((time.perf_counter() - t0) * 1000)
                        if resp.status != 200:
                            raise RuntimeError(f"GET /recall returned {resp.status}: {payload}")
                        if resp.will_close or conn.sock is None:
                            keepalive = False
                    after = server.cache("GET")
                    p50, p95, p99, mean = percentiles(times)
                    out.append(
                        LatencyStats(
                            "rest",
                            mode,
                            filtered,
                            phase,
                            len(times),
                            p50,
                            p95,
                            p99,
                            mean,
                            after["hits"] - before["hits"],
                            after["misses"] - before["misses"],
                        )
                    )
        finally:
            conn.close()
    return out, keepalive


# --------------------------------------------------------------------------- orchestration
def run(
    settings: Settings,
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    n_queries: int = 200,
    k: int = 10,
    rest: bool = True,
    ef_sweep: Sequence[int] = DEFAULT_EF_SWEEP,
    collection_prefix: str = "bench-recall",
    seed: int = 7,
    touch: bool = True,
    keep: bool = False,
    progress: Progress | None = None,
    corpus_embedder: str | None = None,
) -> RecallBenchResult:
    """Run the whole benchmark (see the module docstring) for every size in *sizes*.

    *corpus_embedder* embeds the stored corpus with another backend than the one
    under test (which still embeds every query): every MiniLM backend embeds into
    the same space, so a slow backend's query latency can be measured over a
    corpus a fast one embedded.
    """
    from ..db.keys import validate_collection
    from ..db.server import resolve_url
    from ..engines.embeddings import get_embedder
    from .scratch import bench_store

    sizes = list(sizes)
    if not sizes or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in sizes):
        raise ValidationError(f"sizes must be positive integers — got {sizes!r}")
    if isinstance(n_queries, bool) or not isinstance(n_queries, int) or n_queries < 1:
        raise ValidationError(f"queries must be an integer >= 1 — got {n_queries!r}")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100:
        raise ValidationError(f"k must be an integer in [1, 100] — got {k!r}")
    if any(isinstance(e, bool) or not isinstance(e, int) or e < 1 for e in ef_sweep):
        raise ValidationError(f"EF_RUNTIME values must be integers >= 1 — got {list(ef_sweep)!r}")
    for n in sizes:
        validate_collection(f"{collection_prefix}-{n}")
    url = resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    settings = settings.replace(redis_url=url)
    started = time.perf_counter()
    machine = machine_facts()
    embedder = get_embedder(settings.embedder)
    encoder = get_embedder(corpus_embedder) if corpus_embedder else embedder
    qset = queries(n_queries, seed)
    overfetch = 4
    ef_values = sorted({*ef_sweep, settings.hnsw_ef_runtime})
    results: list[SizeResult] = []
    for n in sizes:
        name = f"{collection_prefix}-{n}"
        store = bench_store(name, settings, embedder)
        try:
            if progress:
                progress(f"N={n}: loading corpus into {name}")
            cached, embed_s, reused, load_s = load_corpus(
                store, n, seed=seed, progress=progress, encoder=encoder
            )
            corpus = generate(n, seed)
            counts: dict[tuple[str, str], int] = {}
            for m in corpus:
                for tag in m.tags:
                    counts[(tag, m.type)] = counts.get((tag, m.type), 0) + 1
            selectivity = float(np.median([counts.get((q.tag, q.type), 0) / n for q in qset]))
            size = SizeResult(
                n=n,
                collection=name,
                vectors_cached=cached,
                embed_seconds=embed_s,
                load_seconds=load_s,
                reused=reused,
                filter_selectivity=selectivity,
            )
            if progress:
                progress(f"N={n}: HNSW recall@{k} vs exact search")
            qvecs = embedder.encode([q.text for q in qset])
            size.quality = measure_quality(
                store, qset, qvecs, k=k, ef_values=ef_values, knn_sizes=(k, k * overfetch)
            )
            if progress:
                progress(f"N={n}: library recall latency")
            size.latency = measure_library(store, qset, k=k, touch=touch)
            if rest:
                if progress:
                    progress(f"N={n}: REST recall latency")
                rest_stats, keepalive = measure_rest(settings, name, qset, k=k, touch=touch)
                size.latency += rest_stats
                size.rest_keepalive = keepalive
            results.append(size)
        finally:
            if not keep:
                store.drop()
                store.client.delete(_marker_key(store))
    machine["loadavg_end"] = loadavg()
    config = {
        "sizes": sizes,
        "queries": n_queries,
        "k": k,
        "overfetch": overfetch,
        "touch": touch,
        "rest": rest,
        "seed": seed,
        "embedder": backend_label(embedder),
        "corpus_embedder": backend_label(encoder),
        "ef_runtime": settings.hnsw_ef_runtime,
        "ef_sweep": ef_values,
        "hnsw_m": settings.hnsw_m,
        "hnsw_ef_construction": settings.hnsw_ef_construction,
        "query_cache_size": settings.query_cache_size,
        "embed_threads": settings.embed_threads,
        "rest_server": "gunicorn gthread, 1 worker × 4 threads, HTTP/1.1 keep-alive",
    }
    return RecallBenchResult(
        sizes=results, config=config, machine=machine, seconds=time.perf_counter() - started
    )


def drop_collections(settings: Settings, sizes: Sequence[int], collection_prefix: str) -> None:
    """Drop the benchmark collections ``PREFIX-N`` (and their reuse markers)."""
    from ..db.server import resolve_url
    from ..engines.embeddings import get_embedder
    from .scratch import bench_store

    url = resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    settings = settings.replace(redis_url=url)
    for n in sizes:
        store = bench_store(f"{collection_prefix}-{n}", settings, get_embedder(settings.embedder))
        store.drop()
        store.client.delete(_marker_key(store))


# --------------------------------------------------------------------------- plot
def plot(result: RecallBenchResult, path: str) -> None:
    """Warm-cache latency percentiles by corpus size, one panel per surface (PNG).

    Raises ImportError when matplotlib (the ``bench`` extra) is missing.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    surfaces = [
        s
        for s in ("library", "rest")
        if any(x.surface == s for size in result.sizes for x in size.latency)
    ]
    configs = _configs()
    sizes = [s.n for s in result.sizes]
    fig, axes = plt.subplots(
        1,
        max(1, len(surfaces)),
        figsize=(6.5 * max(1, len(surfaces)), 4.6),
        squeeze=False,
        sharey=True,
    )
    width = 0.8 / max(1, len(sizes))
    colours = plt.get_cmap("tab10")
    for ax, surface in zip(axes[0], surfaces, strict=False):
        for si, size in enumerate(result.sizes):
            stats = {
                (x.mode, x.filtered): x
                for x in size.latency
                if x.surface == surface and x.phase == "warm"
            }
            xs = [ci + (si - (len(sizes) - 1) / 2) * width for ci in range(len(configs))]
            p50 = [stats[c].p50_ms if c in stats else 0.0 for c in configs]
            p95 = [stats[c].p95_ms if c in stats else 0.0 for c in configs]
            p99 = [stats[c].p99_ms if c in stats else 0.0 for c in configs]
            ax.bar(xs, p50, width * 0.9, color=colours(si), label=f"N={size.n:,} p50")
            ax.scatter(
                xs, p95, marker="^", color="black", s=22, zorder=3, label="p95" if si == 0 else None
            )
            ax.scatter(
                xs, p99, marker="x", color="red", s=26, zorder=3, label="p99" if si == 0 else None
            )
        ax.set_xticks(range(len(configs)))
        ax.set_xticklabels([f"{m}\n{'tag+type' if f else 'no filter'}" for m, f in configs])
        label = "REST GET /recall" if surface == "rest" else "library store.recall()"
        ax.set_title(f"{label} (warm query cache, k={result.config['k']})")
        ax.set_ylabel("latency (ms)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    m = result.machine
    fig.suptitle(
        f"houkai recall latency — {m['cpu']} × {m['nproc']} cores, "
        f"{result.config['queries']} queries",
        fontsize=10,
    )
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
