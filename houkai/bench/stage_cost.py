"""``houkai bench stages``: what hybrid recall's stages cost in latency, and houkai vs the seed.

On the ``bench recall`` corpus (the same texts, queries and cached vectors, loaded
through :func:`.recall.load_corpus`), or on a clustered one (``corpus`` ``logs`` or
``chat``: :mod:`houkai.corpora.clustered` as ``bench findable`` writes it, asked
questions worded from its lines, :func:`~houkai.corpora.clustered.asked_about`), at each
size, every round times hybrid ``store.recall`` over the query set for each stage set: the
plain blend (``stages=""``), the defaults (the ``recall_stages`` setting) and the defaults
with each stage alone turned off. Each set runs a cold pass (a fresh query-embedding
cache: every query is embedded) and then a warm pass (every query a cache hit).
The sets' order flips every round, and the report gives the median over rounds of
each same-round ratio against the plain blend (:mod:`.stage_cost_report`): on a
machine others share, only ratios taken seconds apart hold.

With ``seed_python`` the seed (``ai-houkai==0.16.0``, installed in its own venv) gets
the same corpus (texts, metadata and the very vectors houkai stores) at ``seed_size``
and answers the same queries in hybrid mode once per round, before houkai's sets in
even rounds and after them in odd ones (:mod:`.seed_client`); with ``interleave`` it
answers each query in the cold rotation instead, between houkai's sets. The seed has no
query cache, so its every recall is cold; it is timed on the uniform corpus only.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import time
import urllib.parse
from collections.abc import Callable, Sequence
from typing import Any

from ..corpora import clustered
from ..domain.config import Settings
from ..domain.model import ValidationError
from ..engines.embeddings import QueryCache, backend_label
from ..recall.stages import resolve_stages
from . import findable
from .recall import drop_collections, load_corpus, loadavg, machine_facts, percentiles
from .recall_corpus import Query, corpus_vectors, generate, queries
from .seed_client import SeedDriver, SeedUnavailable
from .stage_cost_report import SEED, Sample, StageCostResult, StageSet, stage_sets

log = logging.getLogger(__name__)

DEFAULT_SIZES: tuple[int, ...] = (20_000, 100_000)
SEED_SIZE = 20_000
WARMUP_QUERIES = 20
Progress = Callable[[str], None]


def _load1() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return 0.0


def _sample(
    size: int,
    rnd: int,
    system: str,
    surface: str,
    name: str,
    phase: str,
    times: list[float],
    hits: int = 0,
    misses: int = 0,
) -> Sample:
    p50, p95, _, mean = percentiles(times)
    return Sample(
        size=size,
        round=rnd,
        system=system,
        surface=surface,
        stage_set=name,
        phase=phase,
        n=len(times),
        p50_ms=p50,
        p95_ms=p95,
        mean_ms=mean,
        cache_hits=hits,
        cache_misses=misses,
        load1=_load1(),
    )


def library_round(
    store: Any,
    qset: Sequence[Query],
    sets: Sequence[StageSet],
    *,
    size: int,
    rnd: int,
    k: int,
    touch: bool,
) -> list[Sample]:
    """Each stage set in turn: a cold pass on a fresh query cache, then a warm pass."""
    out: list[Sample] = []
    for stage_set in sets:
        cache = QueryCache(store.embedder, store.settings.query_cache_size)
        store.query_cache = cache
        for phase in ("cold", "warm"):
            hits0, misses0 = cache.hits, cache.misses
            times: list[float] = []
            for q in qset:
                t0 = time.perf_counter()
                store.recall(q.text, k=k, mode="hybrid", touch=touch, stages=stage_set.stages)
                times.append((time.perf_counter() - t0) * 1000)
            out.append(
                _sample(
                    size,
                    rnd,
                    "houkai",
                    "library",
                    stage_set.name,
                    phase,
                    times,
                    cache.hits - hits0,
                    cache.misses - misses0,
                )
            )
    return out


def interleaved_round(
    store: Any,
    qset: Sequence[Query],
    sets: Sequence[StageSet],
    *,
    size: int,
    rnd: int,
    k: int,
    touch: bool,
    driver: SeedDriver | None = None,
) -> list[Sample]:
    """Every query through every stage set back to back (the order rotating per query), so a
    load change hits all sets alike: cold calls each get a fresh query cache, warm calls share
    one filled beforehand (untimed). With *driver*, the seed answers each query too, in the
    cold rotation (the seed has no query cache): its ratio is then as same-moment as the
    stages' (ADR 0084)."""
    out: list[Sample] = []
    seed_times: list[float] = []
    for phase in ("cold", "warm"):
        times: dict[str, list[float]] = {s.name: [] for s in sets}
        counts: dict[str, list[int]] = {s.name: [0, 0] for s in sets}
        shared = QueryCache(store.embedder, store.settings.query_cache_size)
        if phase == "warm":
            for q in qset:
                shared.encode_query(q.text)
        turns: list[StageSet | None] = list(sets)
        if phase == "cold" and driver is not None:
            turns.append(None)  # the seed's turn
        for qi, q in enumerate(qset):
            shift = qi % len(turns)
            for stage_set in [*turns[shift:], *turns[:shift]]:
                if stage_set is None and driver is not None:
                    seed_times += driver.measure([q.text], k=k, touch=touch)
                    continue
                assert stage_set is not None
                cache = shared
                if phase == "cold":
                    cache = QueryCache(store.embedder, store.settings.query_cache_size)
                store.query_cache = cache
                hits0, misses0 = cache.hits, cache.misses
                t0 = time.perf_counter()
                store.recall(q.text, k=k, mode="hybrid", touch=touch, stages=stage_set.stages)
                times[stage_set.name].append((time.perf_counter() - t0) * 1000)
                counts[stage_set.name][0] += cache.hits - hits0
                counts[stage_set.name][1] += cache.misses - misses0
        for stage_set in sets:
            hits, misses = counts[stage_set.name]
            out.append(
                _sample(
                    size,
                    rnd,
                    "houkai",
                    "library",
                    stage_set.name,
                    phase,
                    times[stage_set.name],
                    hits,
                    misses,
                )
            )
    if seed_times:
        out.append(
            _sample(size, rnd, SEED, "library", SEED, "cold", seed_times, 0, len(seed_times))
        )
    return out


def rest_round(
    server: Any,
    qset: Sequence[Query],
    sets: Sequence[StageSet],
    *,
    size: int,
    rnd: int,
    k: int,
    touch: bool,
) -> list[Sample]:
    """The same passes through ``GET /recall`` over one keep-alive connection."""
    out: list[Sample] = []
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    try:
        for stage_set in sets:
            server.cache("POST")  # an empty query cache: the first pass is cold
            for phase in ("cold", "warm"):
                before = server.cache("GET")
                times: list[float] = []
                for q in qset:
                    params = {
                        "query": q.text,
                        "k": k,
                        "mode": "hybrid",
                        "touch": "true" if touch else "false",
                        "stages": ",".join(stage_set.stages),
                    }
                    t0 = time.perf_counter()
                    conn.request("GET", "/recall?" + urllib.parse.urlencode(params))
                    resp = conn.getresponse()
                    payload = resp.read()
                    times.append((time.perf_counter() - t0) * 1000)
                    if resp.status != 200:
                        raise RuntimeError(
                            f"GET /recall returned {resp.status}: {json.loads(payload)}"
                        )
                after = server.cache("GET")
                out.append(
                    _sample(
                        size,
                        rnd,
                        "houkai",
                        "rest",
                        stage_set.name,
                        phase,
                        times,
                        after["hits"] - before["hits"],
                        after["misses"] - before["misses"],
                    )
                )
    finally:
        conn.close()
    return out


def _validate(sizes: Sequence[int], n_queries: int, k: int, rounds: int) -> None:
    if not sizes or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in sizes):
        raise ValidationError(f"sizes must be positive integers — got {list(sizes)!r}")
    for name, value, low, high in (
        ("queries", n_queries, 1, 100_000),
        ("k", k, 1, 100),
        ("rounds", rounds, 1, 50),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValidationError(f"{name} must be an integer in [{low}, {high}] — got {value!r}")


def _validate_corpus(
    corpus: str, sizes: Sequence[int], collection_prefix: str, seed_python: str | None
) -> None:
    if corpus not in findable.CORPORA:
        raise ValidationError(
            f"corpus must be one of {', '.join(findable.CORPORA)} — got {corpus!r}"
        )
    if corpus == "uniform":
        if collection_prefix.endswith(tuple(f"-{c}" for c in clustered.NAMES)):
            raise ValidationError(
                f"collection prefix {collection_prefix!r} ends like a clustered corpus's "
                "collections (PREFIX-logs, PREFIX-chat): choose another"
            )
        return
    if seed_python:
        raise ValidationError(f"the seed is timed on the uniform corpus only, not {corpus}")
    small = [n for n in sizes if n < 2 * findable.n_facts_for(n)]
    if small:
        raise ValidationError(
            f"a {corpus} corpus needs sizes of {2 * findable.n_facts_for(1)} or more (its "
            f"distinct facts and as many lines again) — got {small}"
        )


def run(
    settings: Settings,
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    n_queries: int = 180,
    k: int = 10,
    rounds: int = 3,
    rest: bool = False,
    touch: bool = True,
    seed: int = 7,
    collection_prefix: str = "bench-stages",
    keep: bool = False,
    seed_python: str | None = None,
    seed_size: int = SEED_SIZE,
    seed_threads: int = 0,
    interleave: bool = False,
    corpus: str = "uniform",
    progress: Progress | None = None,
) -> StageCostResult:
    """Run the benchmark (see the module docstring) at every size in *sizes*, on the
    ``bench recall`` corpus (*corpus* ``uniform``) or a clustered one (``logs``, ``chat``:
    :mod:`houkai.corpora.clustered`, written as ``bench findable`` writes it, asked
    :func:`~houkai.corpora.clustered.asked_about` questions; the seed is not asked)."""
    from ..db.keys import validate_collection
    from ..db.server import resolve_url
    from ..engines.embeddings import get_embedder
    from .scratch import bench_store

    sizes = list(sizes)
    _validate(sizes, n_queries, k, rounds)
    _validate_corpus(corpus, sizes, collection_prefix, seed_python)
    if corpus != "uniform":  # its own collections: a kept uniform one is never reused
        collection_prefix = f"{collection_prefix}-{corpus}"
    for n in sizes:
        validate_collection(f"{collection_prefix}-{n}")
    say = progress or (lambda _m: None)
    url = resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    settings = settings.replace(redis_url=url)
    started = time.perf_counter()
    machine = machine_facts()
    embedder = get_embedder(settings.embedder)
    qset = queries(n_queries, seed) if corpus == "uniform" else []
    asked: dict[int, int] = {}
    defaults = resolve_stages(None, settings.recall_stages)
    sets = stage_sets(defaults)
    seed_info: dict[str, Any] = {"status": "not asked", "reason": "no --seed-python given"}
    driver: SeedDriver | None = None
    if seed_python:
        try:
            driver = SeedDriver(seed_python, torch_threads=seed_threads).__enter__()
            info = {k: v for k, v in driver.info.items() if k != "ok"}
            seed_info = {"status": "started", **info, "interpreter": seed_python}
        except SeedUnavailable as exc:
            seed_info = {"status": "unavailable", "interpreter": seed_python, "reason": str(exc)}
    samples: list[Sample] = []
    try:
        for n in sizes:
            name = f"{collection_prefix}-{n}"
            store = bench_store(name, settings, embedder)
            try:
                say(f"N={n}: loading the {corpus} corpus into {name}")
                if corpus == "uniform":
                    load_corpus(store, n, seed=seed, progress=progress)
                else:
                    lines = findable.make_corpus(corpus, n, seed)
                    findable.load(store, lines, seed, say)
                    qset = [Query(q, "", "") for q in clustered.asked_about(lines, n_queries, seed)]
                    if len(qset) < n_queries:
                        say(f"N={n}: the {corpus} corpus words {len(qset)} distinct questions")
                asked[n] = len(qset)
                with_seed = driver is not None and n == seed_size
                if with_seed and driver is not None:
                    say(f"N={n}: loading the corpus into the seed")
                    memories = generate(n, seed)
                    vectors, _ = corpus_vectors(
                        memories,
                        embedder.encode,
                        data_dir=settings.data_dir,
                        seed=seed,
                        model=backend_label(embedder),
                    )
                    try:
                        loaded = driver.load(memories, vectors)
                        seed_info.update(status="measured", load_seconds=loaded["seconds"])
                        driver.measure([q.text for q in qset[:WARMUP_QUERIES]], k=k, touch=touch)
                    except SeedUnavailable as exc:
                        seed_info.update(status="unavailable", reason=str(exc))
                        with_seed = False
                for q in qset[:WARMUP_QUERIES]:  # load the model, warm Redis: not timed
                    store.recall(q.text, k=k, mode="hybrid", touch=touch, stages=defaults)
                samples += _rounds(
                    store,
                    settings,
                    name,
                    qset,
                    sets,
                    n=n,
                    k=k,
                    rounds=rounds,
                    rest=rest,
                    touch=touch,
                    driver=driver if with_seed else None,
                    say=say,
                    interleave=interleave,
                )
            finally:
                if not keep:
                    drop_collections(settings, [n], collection_prefix)
    finally:
        if driver is not None:
            driver.__exit__()
    machine["loadavg_end"] = loadavg()
    config = {
        "sizes": sizes,
        "queries": n_queries,
        "k": k,
        "rounds": rounds,
        "rest": rest,
        "touch": touch,
        "seed": seed,
        "corpus": corpus,
        "queries_asked": asked,  # per size: fewer than asked when a corpus words fewer
        "embedder": backend_label(embedder),
        "recall_stages": ",".join(defaults),
        "stage_sets": {s.name: ",".join(s.stages) for s in sets},
        "interleave": interleave,
        "seed_size": seed_size if seed_python else None,
        "seed_threads": seed_threads if seed_python else None,
        "query_cache_size": settings.query_cache_size,
        "ef_runtime": settings.hnsw_ef_runtime,
    }
    return StageCostResult(
        samples=samples,
        config=config,
        machine=machine,
        seed=seed_info,
        seconds=time.perf_counter() - started,
    )


def _rounds(
    store: Any,
    settings: Settings,
    name: str,
    qset: Sequence[Query],
    sets: Sequence[StageSet],
    *,
    n: int,
    k: int,
    rounds: int,
    rest: bool,
    touch: bool,
    driver: SeedDriver | None,
    say: Progress,
    interleave: bool = False,
) -> list[Sample]:
    """*rounds* rounds at one size; the sets' order (and the seed's turn) flips each round."""
    out: list[Sample] = []
    server: Any = None
    if rest:
        from .recall_rest import RestServer

        server = RestServer(settings, name).__enter__()
    try:
        for rnd in range(rounds):
            order = list(sets) if rnd % 2 == 0 else list(reversed(sets))
            seed_first = rnd % 2 == 0
            if driver is not None and seed_first and not interleave:
                out.append(_seed_pass(driver, qset, n=n, rnd=rnd, k=k, touch=touch, say=say))
            say(f"N={n}: round {rnd + 1}/{rounds}: library")
            if interleave:  # the seed (if any) takes its turn per query
                out += interleaved_round(
                    store, qset, order, size=n, rnd=rnd, k=k, touch=touch, driver=driver
                )
            else:
                out += library_round(store, qset, order, size=n, rnd=rnd, k=k, touch=touch)
            if server is not None:
                say(f"N={n}: round {rnd + 1}/{rounds}: REST")
                out += rest_round(server, qset, order, size=n, rnd=rnd, k=k, touch=touch)
            if driver is not None and not seed_first and not interleave:
                out.append(_seed_pass(driver, qset, n=n, rnd=rnd, k=k, touch=touch, say=say))
    finally:
        if server is not None:
            server.__exit__()
    return out


def _seed_pass(
    driver: SeedDriver,
    qset: Sequence[Query],
    *,
    n: int,
    rnd: int,
    k: int,
    touch: bool,
    say: Progress,
) -> Sample:
    say(f"N={n}: round {rnd + 1}: seed")
    times = driver.measure([q.text for q in qset], k=k, touch=touch)
    return _sample(n, rnd, SEED, "library", SEED, "cold", times, 0, len(times))
