"""``houkai bench scale``: one node at 100k, 300k and 1M memories.

Reaching 1M through the encoder would take hours on a small machine, so the
benchmark embeds a real corpus once (the recall benchmark's generated agent
memories, about 20k texts, vectors cached under ``<data_dir>/bench``) and
derives every memory from it: the vector is a blend of two corpus vectors plus
a little Gaussian noise (renormalised), the text is the first one's text plus
words of the second and a fresh ticket number, with fresh importance,
timestamps and expiry. Memories go through the store's real write path
(``MemoryStore._write``: codec, BM25 statistics, tag names) in batches.

At each step it measures Redis bytes per memory, HNSW recall@10 against an
exact search over the float32 originals (streamed, never all in memory), recall
latency (semantic, hybrid, tag+type filter) through the library and REST, and
each maintenance job over the whole collection in a child process: wall time
and the child's own peak RSS (its VmHWM). Results are written to the JSON file after
every step and job, so a run cut short still reports what it finished.
"""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..db.decode import as_text
from ..db.schema import index_info
from ..domain.config import Settings
from ..domain.model import Memory, content_hash, new_id
from .recall_corpus import Query, corpus_vectors, generate, queries
from .scale_report import iter_latency as iter_latency
from .scale_report import lines as lines
from .scale_report import plot

log = logging.getLogger(__name__)

DEFAULT_STEPS: tuple[int, ...] = (100_000, 300_000, 1_000_000)
JOBS: tuple[str, ...] = (
    "open",
    "stats",
    "export",
    "export-base64",
    "decay",
    "purge",
    "reconcile",
    "reflect",
    "conflicts",
    "conflicts-new",
)
CHUNK = 1000
JOB_RUNS = 3  # each maintenance job is timed this often; the median run is reported
REPEAT_UNDER = 600.0  # seconds: a job whose first run took longer is timed once
DAY = 86400.0
NOISE = 0.004  # per-dimension σ of the perturbation (about 0.08 in norm)
Progress = Callable[[str], None]


@dataclass
class Corpus:
    """The embedded base corpus every benchmark memory is derived from."""

    memories: list[Memory]
    vectors: np.ndarray  # (C, dim) float32, unit rows
    now: float

    def chunk(self, start: int, size: int, seed: int) -> tuple[list[Memory], np.ndarray]:
        """Memories ``start … start+size`` and their float32 vectors (deterministic)."""
        rng = np.random.default_rng([seed, start])
        prng = random.Random(seed * 1_000_003 + start)
        c = len(self.memories)
        a = rng.integers(0, c, size)
        b = rng.integers(0, c, size)
        w = rng.uniform(0.55, 0.75, size)[:, None].astype(np.float32)
        vecs = w * self.vectors[a] + (1 - w) * self.vectors[b]
        vecs += rng.standard_normal(vecs.shape).astype(np.float32) * NOISE
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        out: list[Memory] = []
        for j in range(size):
            base, other = self.memories[int(a[j])], self.memories[int(b[j])]
            words = other.text.split()
            extra = " ".join(prng.sample(words, min(len(words), prng.randint(3, 6))))
            text = f"{base.text} Also: {extra} (ref {start + j:07d})."
            created = self.now - prng.random() * 730 * DAY
            roll = prng.random()
            # 99 % read in the last week; 1 % never since written (decay candidates)
            accessed = created if roll < 0.01 else self.now - prng.random() * 5 * DAY
            expiry = 0.0
            if roll > 0.998:
                expiry = self.now - 3600.0  # expired: purge's work
            elif roll > 0.98:
                expiry = self.now + prng.random() * 90 * DAY
            out.append(
                Memory(
                    id=new_id(),
                    text=text,
                    type=base.type,
                    tags=list(base.tags),
                    importance=round(prng.random(), 2),
                    created_at=max(created, 0.0),
                    last_accessed=max(accessed, created),
                    expires_at=expiry,
                    content_hash=content_hash(text),
                )
            )
        return out, vecs


def load_base(settings: Settings, embedder: Any, size: int, seed: int) -> Corpus:
    memories = generate(size, seed)
    vectors, _ = corpus_vectors(
        memories, embedder.encode, data_dir=settings.data_dir, seed=seed, model=embedder.name
    )
    return Corpus(memories, np.ascontiguousarray(vectors, dtype=np.float32), time.time())


def write_corpus(
    store: Any,
    corpus: Corpus,
    n: int,
    seed: int,
    *,
    start: int = 0,
    progress: Progress | None = None,
) -> int:
    """Write memories ``start … n`` of *corpus* through the store's real write path; returns *n*.

    No encoder runs: vectors are derived from the corpus (:meth:`Corpus.chunk`).
    """
    t0 = time.perf_counter()
    written = start
    while written < n:
        size = min(CHUNK, n - written)
        memories, vecs = corpus.chunk(written, size, seed)
        for m in memories:
            m.collection = store.collection_name
        store.write(memories, vecs)
        written += size
        if progress and written % 20_000 == 0:
            progress(f"wrote {written:,} ({time.perf_counter() - t0:.0f}s)")
    return written


def exact_topk(corpus: Corpus, n: int, seed: int, qvecs: np.ndarray, k: int) -> list[np.ndarray]:
    """Indices of the exact top-*k* memories per query over the first *n*, streamed."""
    best_s = np.full((len(qvecs), k), -np.inf, dtype=np.float32)
    best_i = np.zeros((len(qvecs), k), dtype=np.int64)
    for start in range(0, n, CHUNK * 20):
        size = min(CHUNK * 20, n - start)
        vecs = _vectors_only(corpus, start, size, seed)
        sims = (qvecs @ vecs.T).astype(np.float32)  # (q, size)
        all_s = np.concatenate([best_s, sims], axis=1)
        all_i = np.concatenate(
            [best_i, np.broadcast_to(np.arange(start, start + size), sims.shape)], axis=1
        )
        top = np.argpartition(-all_s, k - 1, axis=1)[:, :k]
        best_s = np.take_along_axis(all_s, top, axis=1)
        best_i = np.take_along_axis(all_i, top, axis=1)
    return [row for row in best_i]


def _vectors_only(corpus: Corpus, start: int, size: int, seed: int) -> np.ndarray:
    """The vectors of :meth:`Corpus.chunk` without building memories (same draws)."""
    out = np.empty((size, corpus.vectors.shape[1]), dtype=np.float32)
    for s in range(start, start + size, CHUNK):
        m = min(CHUNK, start + size - s)
        rng = np.random.default_rng([seed, s])
        c = len(corpus.memories)
        a = rng.integers(0, c, m)
        b = rng.integers(0, c, m)
        w = rng.uniform(0.55, 0.75, m)[:, None].astype(np.float32)
        vecs = w * corpus.vectors[a] + (1 - w) * corpus.vectors[b]
        vecs += rng.standard_normal(vecs.shape).astype(np.float32) * NOISE
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        out[s - start : s - start + m] = vecs
    return out


def _used(client: Any) -> int:
    return int(client.info("memory")["used_memory"])


def _index_sizes(client: Any, index: str) -> dict[str, str]:
    info = {k: as_text(v) for k, v in index_info(client, index).items()}
    keep = (
        "num_docs",
        "num_terms",
        "inverted_sz_mb",
        "vector_index_sz_mb",
        "offset_vectors_sz_mb",
        "doc_table_size_mb",
        "sortable_values_size_mb",
        "key_table_size_mb",
        "tag_overhead_sz_mb",
        "text_overhead_sz_mb",
        "total_index_memory_sz_mb",
    )
    return {k: info[k] for k in keep if k in info}


def hnsw_recall(
    store: Any,
    corpus: Corpus,
    n: int,
    seed: int,
    qset: Sequence[Query],
    qvecs: np.ndarray,
    k: int,
    id_of: Callable[[int], str] | None = None,
) -> float:
    """Mean recall@k of the HNSW KNN against the exact search (ids via the ``ref``)."""
    from .recall import knn_ids

    truth = exact_topk(corpus, n, seed, qvecs, k)
    scores = []
    for qi in range(len(qset)):
        got = knn_ids(store, qvecs[qi], k, store.index_params.ef_runtime, "*")
        refs = _refs(store, got)
        want = {int(i) for i in truth[qi]}
        scores.append(len(want & refs) / k)
    return round(float(np.mean(scores)), 4)


def _refs(store: Any, ids: list[str]) -> set[int]:
    """The generator index of each memory (the ``(ref N)`` its text ends with)."""
    pipe = store.client.pipeline(transaction=False)
    for mid in ids:
        pipe.hget(store.keys.memory(mid), "text")
    out = set()
    for raw in pipe.execute():
        text = (raw or b"").decode()
        pos = text.rfind("(ref ")
        if pos >= 0:
            out.add(int(text[pos + 5 : pos + 12]))
    return out


def run_job(
    settings: Settings, collection: str, job: str, workdir: Path, timeout: float
) -> dict[str, Any]:
    """One maintenance job in a fresh child process: seconds, peak RSS, count or error."""
    env = dict(os.environ)
    env.update(
        HOUKAI_DATA_DIR=settings.data_dir,
        HOUKAI_REDIS_URL=settings.redis_url,
        HOUKAI_KEY_PREFIX=settings.key_prefix,
    )
    out_file = workdir / f"job-{job}.json"
    out_file.unlink(missing_ok=True)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "houkai.bench.scale_job", job, collection, str(workdir)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(workdir / f"job-{job}.log", "wb"),  # noqa: SIM115
    )
    deadline = time.monotonic() + timeout
    status, rusage = 0, None
    while True:
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            _, status, rusage = os.wait4(proc.pid, 0)
            return {
                "job": job,
                "seconds": round(time.perf_counter() - started, 1),
                "peak_rss_mb": round(rusage.ru_maxrss / 1024, 1),
                "error": f"timed out after {timeout:.0f}s",
            }
        time.sleep(0.2)
    proc.returncode = os.waitstatus_to_exitcode(status)
    result: dict[str, Any] = {
        "job": job,
        "seconds": round(time.perf_counter() - started, 2),
        "peak_rss_mb": round(rusage.ru_maxrss / 1024, 1),
    }
    if out_file.exists():
        # The child's own VmHWM replaces the wait4 figure (see scale_job._vm_hwm_mb).
        result["wait4_maxrss_mb"] = result["peak_rss_mb"]
        result.update(json.loads(out_file.read_text()))
    if proc.returncode:
        result["error"] = f"exit {proc.returncode}; see {workdir / f'job-{job}.log'}"
    return result


def run(
    settings: Settings,
    steps: Sequence[int] = DEFAULT_STEPS,
    *,
    corpus_size: int = 20_000,
    n_queries: int = 200,
    k: int = 10,
    rest: bool = True,
    jobs: Sequence[str] = JOBS,
    job_timeout: float = 1800.0,
    job_runs: int = JOB_RUNS,
    collection: str = "bench-scale",
    seed: int = 7,
    out: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    resume: bool = False,
) -> dict[str, Any]:
    """Grow one collection through *steps*, measuring at each; see the module docstring.

    With *resume* the collection and the figures already in *out* are kept: the
    load continues from the collection's size, and a step's measurements that
    are present (jobs without an error) are not taken again, so a run cut short
    (or a job that failed) is finished without reloading a million memories.
    """
    from ..db.server import resolve_url
    from ..engines.embeddings import get_embedder
    from ..store import MemoryStore
    from .recall import machine_facts, measure_library, measure_rest, wait_indexed

    steps = sorted(set(steps))
    if not steps or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in steps):
        raise ValueError(f"steps must be positive integers — got {list(steps)!r}")
    unknown = set(jobs) - set(JOBS)
    if unknown:
        raise ValueError(f"unknown job(s) {sorted(unknown)}; choose from {', '.join(JOBS)}")
    say = progress or (lambda _msg: None)
    url = resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    settings = settings.replace(redis_url=url)
    embedder = get_embedder(settings.embedder)
    say(f"embedding the base corpus ({corpus_size} texts, cached under the data dir)")
    corpus = load_base(settings, embedder, corpus_size, seed)
    store = MemoryStore(
        collection=collection,
        settings=settings,
        embedder=embedder,
        actor="bench",
        journal_enabled=False,
    )
    previous = _previous(out) if resume else None
    if store.count() and previous is None:
        store.nuke()
    client = store.client
    wait_indexed(client, store.keys.index, 0)
    base_used = _used(client) if previous is None else int(previous["config"]["base_used"])
    qset = queries(n_queries, seed)
    qvecs = embedder.encode([q.text for q in qset])
    workdir = Path(settings.data_dir) / "bench-scale"
    workdir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "config": {
            "steps": steps,
            "corpus": corpus_size,
            "queries": n_queries,
            "k": k,
            "noise_sigma": NOISE,
            "embedder": embedder.name,
            "vector_type": store.vector_type,
            "hnsw_m": settings.hnsw_m,
            "hnsw_ef_construction": settings.hnsw_ef_construction,
            "ef_runtime": settings.hnsw_ef_runtime,
            "jobs": list(jobs),
            "job_runs": job_runs,
            "base_used": base_used,
        },
        "machine": machine_facts(),
        "steps": [],
    }
    done: dict[int, dict[str, Any]] = {}
    if previous is not None:
        result["config"]["resumed"] = previous["config"].get("resumed", 0) + 1
        done = {int(s["n"]): s for s in previous["steps"]}

    def save() -> None:
        if out:
            Path(out).write_text(json.dumps(result, indent=2) + "\n")

    written = store.count() if previous is not None else 0
    if written % CHUNK:
        # A chunk cut off mid-pipeline: write it again whole (its partial copies stay,
        # with fresh ids, and are recorded so the bytes-per-memory figure can be read).
        result["config"]["partial_chunk_kept"] = written % CHUNK
        written -= written % CHUNK
    started = time.perf_counter()
    for n in steps:
        step: dict[str, Any] = dict(done.get(n, {"n": n}))
        result["steps"].append(step)
        if written > n:  # measured (or not) before the collection outgrew it
            if "bytes_per_memory" not in step:
                step["note"] = "collection already larger when resumed; not measured"
            continue
        t0 = time.perf_counter()
        written = write_corpus(store, corpus, n, seed, start=written, progress=say)
        wait_indexed(client, store.keys.index, n, timeout=6 * 3600)
        if "bytes_per_memory" in step:
            _measure_rest_of(step, store, corpus, seed, qset, qvecs, k, settings, collection, rest)
            save()
            _finish_jobs(
                step, jobs, settings, collection, workdir, job_timeout, n, save, say, job_runs
            )
            continue
        step["load_seconds"] = round(time.perf_counter() - t0, 1)
        step["loadavg_after_load"] = [round(x, 2) for x in os.getloadavg()]
        used = _used(client) - base_used
        step["redis_used_bytes"] = used
        step["bytes_per_memory"] = round(used / n)
        step["index"] = _index_sizes(client, store.keys.index)
        step["redis_rss_mb"] = round(int(client.info("memory")["used_memory_rss"]) / 2**20)
        say(f"N={n:,}: {step['bytes_per_memory']:,} B/memory; HNSW recall@{k}")
        save()
        step["hnsw_recall_at_10"] = hnsw_recall(store, corpus, n, seed, qset, qvecs, k)
        save()
        say(f"N={n:,}: recall@{k}={step['hnsw_recall_at_10']}; library latency")
        step["latency"] = [s.__dict__ for s in measure_library(store, qset, k=k, touch=True)]
        save()
        if rest:
            say(f"N={n:,}: REST latency")
            stats, _ = measure_rest(settings, collection, qset, k=k, touch=True)
            step["latency"] += [s.__dict__ for s in stats]
            save()
        _finish_jobs(step, jobs, settings, collection, workdir, job_timeout, n, save, say, job_runs)
        step["elapsed_seconds"] = round(time.perf_counter() - started, 1)
        save()
        _draw(result, out)
    _draw(result, out)  # a resumed run's last figures too
    return result


def _draw(result: dict[str, Any], out: str | os.PathLike[str] | None) -> None:
    """The PNG next to *out* (none without *out*; a failed plot only logs)."""
    if not out:
        return
    try:
        plot(result, str(Path(out).with_suffix(".png")))
    except Exception as exc:  # pragma: no cover - matplotlib missing or headless issue
        log.warning("plot failed: %s", exc)


def _previous(out: str | os.PathLike[str] | None) -> dict[str, Any] | None:
    """The figures of the run to resume (``None`` to start afresh)."""
    if not out or not Path(out).exists():
        return None
    data = json.loads(Path(out).read_text())
    return data if "base_used" in data.get("config", {}) else None


def _measure_rest_of(
    step: dict[str, Any],
    store: Any,
    corpus: Corpus,
    seed: int,
    qset: Sequence[Query],
    qvecs: np.ndarray,
    k: int,
    settings: Settings,
    collection: str,
    rest: bool,
) -> None:
    """A resumed step's recall@10 and latency, when the first run did not get to them."""
    from .recall import measure_library, measure_rest

    if "hnsw_recall_at_10" not in step:
        step["hnsw_recall_at_10"] = hnsw_recall(store, corpus, step["n"], seed, qset, qvecs, k)
    if not step.get("latency"):
        step["latency"] = [s.__dict__ for s in measure_library(store, qset, k=k, touch=True)]
    if rest and not any(lat["surface"] == "rest" for lat in step["latency"]):
        stats, _ = measure_rest(settings, collection, qset, k=k, touch=True)
        step["latency"] += [s.__dict__ for s in stats]


def _finish_jobs(
    step: dict[str, Any],
    jobs: Sequence[str],
    settings: Settings,
    collection: str,
    workdir: Path,
    timeout: float,
    n: int,
    save: Callable[[], None],
    say: Progress,
    runs: int = JOB_RUNS,
) -> None:
    """Run each job the step has no clean figure for (all of them on a fresh step).

    A job is run *runs* times and its median run reported (this machine is shared:
    one export ran at 18,500 rows/s in a run and 24,500 right after it), unless its
    first run took longer than :data:`REPEAT_UNDER` seconds (the full conflict scan).
    """
    kept = {j["job"]: j for j in step.get("jobs", ()) if not j.get("error")}
    step["jobs"] = [kept[j] for j in jobs if j in kept]
    for job in jobs:
        if job in kept:
            continue
        say(f"N={n:,}: maintenance job {job}")
        results = [run_job(settings, collection, job, workdir, timeout)]
        while (
            len(results) < runs
            and not results[-1].get("error")
            and results[0]["seconds"] <= REPEAT_UNDER
        ):
            results.append(run_job(settings, collection, job, workdir, timeout))
        step["jobs"].append(median_run(results))
        save()


def median_run(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median wall time (the faster middle run of an even count), with every
    run's seconds and the highest peak RSS of any run; a failed run is reported as it is.
    The other fields (CPU seconds, load average, count) are the chosen run's."""
    failed = [r for r in results if r.get("error")]
    if failed or len(results) == 1:
        return failed[0] if failed else results[0]
    ordered = sorted(results, key=lambda r: r["seconds"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["runs_seconds"] = [r["seconds"] for r in results]
    for key in ("peak_rss_mb", "wait4_maxrss_mb"):
        peaks = [r[key] for r in results if r.get(key) is not None]
        if peaks:
            chosen[key] = max(peaks)
    return chosen
