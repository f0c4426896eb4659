"""``houkai bench findable``: is every stored memory found again, on clustered corpora?

For each corpus (:mod:`houkai.corpora.clustered`: facts then bulk log lines, chat turns
with facts strewn in, and the uniform recall corpus) and size, the collection is
written in corpus order, then asked, over a sample of its memories:

* **own text, k=5**: semantic ``recall`` of the memory's own text returns it. Three
  paths: ``before`` (HNSW at EF_RUNTIME 64, a pool of k × 4 ranked by cosine: the
  semantic recall of 0.1), ``hnsw`` (today's code with exact search off, as a
  collection above ``exact_knn_max`` gets it) and ``defaults``;
* **own vector, k=10**: a raw KNN with the memory's stored vector finds it, at each
  EF_RUNTIME of the sweep (the graph's own findability);
* **recall@10 against exact search**: of a numpy brute force over the stored vectors,
  for the own-text query vectors of the first ``queries`` sampled memories;
* p50/p99 latency of semantic and hybrid recall (query vectors cached: the search).

Distinct facts are reported on their own: they are what a user misses first.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..corpora import clustered
from ..db.keys import Keys
from ..domain.config import Settings
from ..domain.model import Memory, content_hash
from ..engines.embeddings import backend_label
from ..store.search import knn_query, search
from ..store.updates import link_updates
from . import findable_rest
from .recall import machine_facts, percentiles, read_vectors, wait_indexed
from .recall_corpus import EPOCH, corpus_vectors, generate

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
CORPORA = (*clustered.NAMES, "uniform")
DEFAULT_EF_SWEEP = (64, 128, 256)
#: Distinct facts per corpus: the issue's 20 at 5,000 memories, 0.4 % above.
FACT_SHARE = 0.004


def n_facts_for(n: int) -> int:
    return max(20, int(n * FACT_SHARE))


def make_corpus(name: str, n: int, seed: int, generator: int = 0) -> clustered.Corpus:
    if name == "logs":
        return clustered.logs_corpus(n, n_facts_for(n), seed, generator)
    if name == "chat":
        return clustered.chat_corpus(n, n_facts_for(n), seed)
    if name == "uniform":
        return clustered.Corpus("uniform", [m.text for m in generate(n, seed + 7)], [False] * n)
    raise ValueError(f"unknown corpus {name!r}: one of {', '.join(CORPORA)}")


def _memories(texts: Sequence[str], seed: int) -> list[Memory]:
    rng = random.Random(f"findable-ids-{seed}")
    return [
        Memory(
            id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            text=text,
            created_at=EPOCH + i,
            last_accessed=EPOCH + i,
            state="ready",
            content_hash=content_hash(text),
        )
        for i, text in enumerate(texts)
    ]


def load(store: Any, corpus: clustered.Corpus, seed: int, progress: Progress) -> list[str]:
    """Write *corpus* in order (facts before the bulk, as an agent would); returns the ids.
    A collection an earlier ``--keep`` run left with the same corpus is reused as it is."""
    memories = _memories(corpus.texts, seed)
    marker = store.keys.bench
    signature = (
        f"findable {corpus.name} n={len(memories)} seed={seed} "
        f"model={backend_label(store.embedder)} updates"  # with update links (ADR 0105)
    )
    kept = store.client.get(marker)
    if kept is not None and kept.decode() == signature and store.count() == len(memories):
        progress(f"{corpus.name}: reusing the kept collection")
        return [m.id for m in memories]
    vectors, _ = corpus_vectors(
        memories,
        store.embedder.encode,
        data_dir=store.settings.data_dir,
        seed=seed,
        model=backend_label(store.embedder),
        name=f"findable-{corpus.name}-n{len(memories)}",
        progress=lambda done, total: progress(f"{corpus.name}: embedding {done}/{total}"),
    )
    if store.count():
        store.nuke()
    for start in range(0, len(memories), 1000):
        chunk = memories[start : start + 1000]
        for memory in chunk:
            memory.collection = store.collection_name
        store.write(chunk, vectors[start : start + 1000])
        link_updates(store.core, chunk)  # as remember_many writes them
    wait_indexed(store.client, store.keys.index, len(memories))
    store.client.set(marker, signature)
    return [m.id for m in memories]


def _raw_knn(store: Any, vector: np.ndarray, k: int, ef: int, *, exact: bool = False) -> list[str]:
    _, hits = search(
        store.client,
        store.keys.index,
        knn_query("*", k, ef, exact=exact),
        params={"q": store.vector_blob(vector)},
        return_fields=("id",),
        sortby=("dist", "ASC"),
        limit=k,
    )
    return [h.str("id") for h in hits]


def _share(found: Sequence[bool]) -> float | None:
    return round(sum(found) / len(found), 4) if found else None


def _sample(n: int, sample: int, seed: int) -> list[int]:
    """The memories asked for by their own text (the first ``queries`` of them also
    for recall@10 and latency): the same for every path and run of a seed."""
    rng = random.Random(f"findable-sample-{seed}")
    return sorted(rng.sample(range(n), min(sample, n)))


def measure(
    stores: dict[str, Any],
    ids: list[str],
    corpus: clustered.Corpus,
    *,
    sample: int,
    queries: int,
    ef_sweep: Sequence[int],
    seed: int,
) -> dict[str, Any]:
    """The figures of one loaded collection; *stores*: ``defaults`` and ``hnsw``."""
    base = stores["defaults"]
    picked = _sample(len(ids), sample, seed)
    facts = corpus.fact_indexes
    stored_ids, matrix, _, _ = read_vectors(base)
    row_of = {mid: i for i, mid in enumerate(stored_ids)}
    out: dict[str, Any] = {"n": len(ids), "facts": len(facts), "sample": len(picked)}

    def own_text(path: str, indexes: Sequence[int]) -> list[bool]:
        found = []
        for i in indexes:
            text, mid = corpus.texts[i], ids[i]
            if path == "before":
                got = _raw_knn(base, base.query_vector(text), 20, 64)[:5]
            else:
                got = [m.id for m, _ in stores[path].recall(text, k=5, touch=False)]
            found.append(mid in got)
        return found

    for path in ("before", "hnsw", "defaults"):
        sample_found = own_text(path, picked)
        out[f"own_text_{path}"] = _share(sample_found)
        out[f"facts_{path}"] = _share(own_text(path, facts)) if facts else None
        out[f"missed_{path}"] = sample_found.count(False)
    for ef in ef_sweep:
        found = [ids[i] in _raw_knn(base, matrix[row_of[ids[i]]], 10, ef) for i in picked[:queries]]
        out[f"own_vector_ef{ef}"] = _share(found)
    # recall@10 against a brute force over the stored vectors, for own-text queries
    asked = picked[:queries]
    qvecs = np.vstack([base.query_vector(corpus.texts[i]) for i in asked]).astype(np.float32)
    exact_top = np.argsort(-(qvecs @ matrix.T), axis=1)[:, :10]
    for path in ("before", "hnsw", "defaults"):
        hits = 0
        for qi, i in enumerate(asked):
            truth = {stored_ids[j] for j in exact_top[qi]}
            if path == "before":
                got = _raw_knn(base, qvecs[qi], 40, 64)[:10]
            else:
                got = [m.id for m, _ in stores[path].recall(corpus.texts[i], k=10, touch=False)]
            hits += len(truth & set(got))
        out[f"recall10_{path}"] = round(hits / (10 * len(asked)), 4) if asked else None
    for path in ("hnsw", "defaults"):
        for mode in ("semantic", "hybrid"):
            samples = []
            for i in asked:
                started = time.perf_counter()
                stores[path].recall(corpus.texts[i], k=5, mode=mode, touch=False)
                samples.append((time.perf_counter() - started) * 1000)
            p50, _, p99, _ = percentiles(samples)
            out[f"{mode}_{path}_p50_ms"], out[f"{mode}_{path}_p99_ms"] = p50, p99
    out["exact_used"] = bool(base.knn_exact())
    return out


def run(
    settings: Settings,
    *,
    sizes: Sequence[int] = (5000,),
    corpora: Sequence[str] = CORPORA,
    generators: Sequence[int] = (0,),
    sample: int = 2000,
    queries: int = 200,
    ef_sweep: Sequence[int] = DEFAULT_EF_SWEEP,
    seed: int = 1,
    keep: bool = False,
    rest: bool = False,
    rest_rounds: int = 3,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every (corpus, generator, size): load, then :func:`measure`; with *rest*, also
    the REST latency of 0.1's path against today's (:mod:`.findable_rest`)."""
    from ..store import MemoryStore

    say = progress or (lambda _msg: None)
    rows: list[dict[str, Any]] = []
    started = time.time()
    for n in sizes:
        for name in corpora:
            for generator in generators if name == "logs" else (0,):
                corpus = make_corpus(name, n, seed, generator)
                collection = f"bench-findable-{corpus.name}-{n}"
                store = MemoryStore(collection=collection, settings=settings)
                say(f"{corpus.name} at {n}: loading")
                ids = load(store, corpus, seed, say)
                hnsw = MemoryStore(
                    collection=collection, settings=settings.replace(exact_knn_max=0)
                )
                say(f"{corpus.name} at {n}: measuring")
                row = measure(
                    {"defaults": store, "hnsw": hnsw},
                    ids,
                    corpus,
                    sample=sample,
                    queries=queries,
                    ef_sweep=ef_sweep,
                    seed=seed,
                )
                row["corpus"] = corpus.name
                rows.append(row)
                say(format_row(row))
                if rest:
                    say(f"{corpus.name} at {n}: REST latency, {rest_rounds} rounds")
                    asked = [corpus.texts[i] for i in _sample(len(ids), sample, seed)[:queries]]
                    row.update(
                        findable_rest.measure(settings, collection, asked, rounds=rest_rounds)
                    )
                    say(findable_rest.format_row(row))
                if not keep:
                    store.client.delete(Keys(store.keys.prefix, collection).bench)
                    store.drop()
    return {
        "bench": "findable",
        "machine": machine_facts(),
        "cpu_flags": cpu_flags(),
        "settings": {
            "exact_knn_max": settings.exact_knn_max,
            "hnsw_ef_runtime": settings.hnsw_ef_runtime,
            "vector_type": settings.vector_type,
            "embedder": settings.embedder,
        },
        "seconds": round(time.time() - started, 1),
        "rows": rows,
    }


def cpu_flags() -> list[str]:
    """The vector-unit flags a figure was measured with (int8 kernels differ by host)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
                    return [f for f in line.split() if f in wanted]
    except OSError:
        pass
    return []


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def format_row(row: dict[str, Any]) -> str:
    return (
        f"{row['corpus']:<8} {row['n']:>7}  facts {_pct(row['facts_before']):>5} / "
        f"{_pct(row['facts_hnsw']):>5} / {_pct(row['facts_defaults']):>5}  own text "
        f"{_pct(row['own_text_before']):>5} / {_pct(row['own_text_hnsw']):>5} / "
        f"{_pct(row['own_text_defaults']):>5}  recall@10 {row['recall10_before']:.3f} / "
        f"{row['recall10_hnsw']:.3f} / {row['recall10_defaults']:.3f}  semantic p50/p99 "
        f"{row['semantic_defaults_p50_ms']:.1f}/{row['semantic_defaults_p99_ms']:.1f} ms"
    )


def lines(result: dict[str, Any]) -> list[str]:
    """The result as a table: each share as before / hnsw tier / defaults."""
    out = [
        "findable: % found (before = HNSW EF 64 as in 0.1 / hnsw = today above exact_knn_max"
        " / defaults)",
    ]
    out += [format_row(row) for row in result["rows"]]
    ef_cols = (
        [k for k in result["rows"][0] if k.startswith("own_vector_ef")] if result["rows"] else []
    )
    for row in result["rows"]:
        sweep = "  ".join(f"EF {k[13:]}: {_pct(row[k])}" for k in ef_cols)
        out.append(f"  {row['corpus']} {row['n']}: own vector k=10  {sweep}")
    out += [findable_rest.format_row(row) for row in result["rows"] if "rest_rounds" in row]
    out.append(f"cpu flags: {' '.join(result['cpu_flags']) or '-'}; {result['seconds']} s")
    return out
