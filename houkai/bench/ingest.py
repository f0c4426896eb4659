"""End-to-end ingest throughput against the raw encode rate of the same model.

1. Start (or reuse) an embedding worker and wait until its model is warm.
2. Measure the raw encode rate: this process encodes a sample of the same
   texts with the same model in one plain ``encode()`` call (torch's default
   threads) while the worker is idle, before and after the run, averaged.
3. Submit *n* memories as one job into a throwaway collection and time
   "accepting the job → every memory ``ready``".
4. Report memories/s, the raw rate, their ratio, Redis bytes per memory
   (``used_memory`` growth, with and without the journal's share) and the CPU
   milliseconds per memory of the worker, redis-server and this submitting
   process during the run, with the rate the machine's cores allow at those
   costs (the ceiling any pipeline on them can reach).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..domain.config import Settings
from ..domain.model import ValidationError

SUBJECTS = (
    "the deploy",
    "our billing service",
    "Ana from accounting",
    "the staging cluster",
    "the mobile app",
    "the search index",
    "customer exports",
    "the on-call rota",
    "the VPN",
    "the data warehouse",
    "release notes",
    "the payments queue",
)
VERBS = (
    "runs",
    "fails",
    "needs review",
    "moves",
    "prefers",
    "reports",
    "syncs",
    "expires",
    "restarts",
    "rotates",
    "blocks",
    "improves",
)
OBJECTS = (
    "every Friday after standup",
    "when the cache is cold",
    "with PDF attachments",
    "only in the EU region",
    "after the nightly backup",
    "before the quarterly audit",
    "using the legacy token",
    "under heavy load",
    "once the migration lands",
    "for enterprise customers",
    "in under two seconds",
    "behind the feature flag",
)


def synthetic_texts(n: int, seed: int = 7) -> list[str]:
    """Short, varied, realistic memory sentences (deterministic)."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} (note {i})"
        for i in range(n)
    ]


@dataclass
class IngestBenchResult:
    n: int
    mode: str
    embedder: str
    seconds: float
    memories_per_second: float
    raw_encode_per_second: float
    ratio: float
    bytes_per_memory: float
    bytes_per_memory_without_journal: float
    failed: int
    #: CPU ms per memory during the run: worker (the encoder), redis, submitter
    cpu_ms_per_memory: dict[str, float | None] = field(default_factory=dict)
    #: cores / (sum of the CPU costs above): the rate these costs allow on this machine
    cpu_ceiling_per_second: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        return [
            f"memories       {self.n} ({self.mode}, embedder {self.embedder})",
            f"end-to-end     {self.memories_per_second:,.1f} memories/s "
            f"({self.seconds:,.1f} s, accepted → all ready)",
            f"raw encode     {self.raw_encode_per_second:,.1f} texts/s (same model, same run)",
            f"ratio          {self.ratio:.3f}",
            f"redis memory   {self.bytes_per_memory:,.0f} bytes/memory "
            f"({self.bytes_per_memory_without_journal:,.0f} without the journal)",
            f"failed         {self.failed}",
            *self._cpu_lines(),
        ]

    def _cpu_lines(self) -> list[str]:
        costs = self.cpu_ms_per_memory
        if not costs:
            return []
        parts = ", ".join(f"{k} {v:.2f}" if v is not None else f"{k} ?" for k, v in costs.items())
        lines = [f"cpu per memory {parts} ms"]
        if self.cpu_ceiling_per_second is not None:
            lines.append(
                f"cpu ceiling    {self.cpu_ceiling_per_second:,.1f} memories/s "
                f"({os.cpu_count()} cores ÷ the costs above)"
            )
        return lines


def _used_memory(client) -> int:
    return int(client.info("memory")["used_memory"])


def _cpu_marks(client, worker: subprocess.Popen | None, mode: str) -> dict[str, float | None]:
    """CPU seconds so far: inline runs encode in the submitter, so there is no worker."""
    from .cpu import process_tree_cpu_seconds, redis_cpu_seconds

    marks: dict[str, float | None] = {}
    if mode == "worker":  # None when the worker was already running (not ours to read)
        marks["worker"] = process_tree_cpu_seconds(worker.pid) if worker is not None else None
    marks["redis"] = redis_cpu_seconds(client)
    marks["submitter"] = time.process_time()
    return marks


def _cpu_costs(
    start: dict[str, float | None], end: dict[str, float | None], n: int
) -> dict[str, float | None]:
    """CPU ms per memory for each process between two marks (None: not measurable)."""
    out: dict[str, float | None] = {}
    for name, first in start.items():
        last = end.get(name)
        out[name] = None if first is None or last is None else round((last - first) * 1000 / n, 3)
    return out


def _ceiling(costs: dict[str, float | None]) -> float | None:
    if not costs or any(v is None for v in costs.values()):
        return None
    total = sum(v for v in costs.values() if v is not None)
    return round((os.cpu_count() or 1) * 1000 / total, 1) if total > 0 else None


def _start_worker(settings: Settings, log_path: Path) -> subprocess.Popen:
    exe = Path(sys.executable).parent / "houkai"
    env = dict(
        os.environ,
        HOUKAI_REDIS_URL=settings.redis_url,
        HOUKAI_DATA_DIR=settings.data_dir,
        HOUKAI_KEY_PREFIX=settings.key_prefix,
        HOUKAI_EMBEDDER=settings.embedder,
    )
    log = log_path.open("wb")
    return subprocess.Popen(
        [str(exe), "worker", "-Q", "embed", "-l", "warning"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def run(
    settings: Settings,
    n: int,
    *,
    mode: str = "worker",
    batch_size: int | None = None,
    sample: int = 2000,
    keep: bool = False,
    log_dir: str | None = None,
    own_worker: bool = False,
    progress=None,
) -> IngestBenchResult:
    """Run the benchmark (see the module docstring); *progress(processed, total)* is optional."""
    import signal

    from ..db.connection import connect
    from ..db.server import resolve_url
    from ..engines.embeddings import backend_label, build_embedder
    from ..pipeline.jobs import workers_alive
    from ..pipeline.write import Pipeline
    from ..store import MemoryStore

    if n < 1:
        raise ValidationError("n must be >= 1")
    if mode not in ("worker", "inline"):
        raise ValidationError("mode must be 'worker' or 'inline'")
    url = resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    settings = settings.replace(redis_url=url)
    client = connect(url)
    worker = None
    alive = workers_alive(client, settings.key_prefix) if mode == "worker" else 0
    if own_worker and alive:
        raise ValueError(
            f"{alive} worker(s) already running: a per-backend run starts its own worker "
            "with that backend (stop the others, or drop --compare/--embedder)"
        )
    if mode == "worker" and alive == 0:
        logs = Path(log_dir or settings.data_dir).expanduser()  # never litter the cwd
        logs.mkdir(parents=True, exist_ok=True)
        worker = _start_worker(settings, logs / "bench-worker.log")
        deadline = time.monotonic() + 300
        while workers_alive(client, settings.key_prefix) == 0:
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the benchmark worker did not start (see {logs / 'bench-worker.log'})"
                )
            time.sleep(0.2)
    store = None
    try:
        texts = synthetic_texts(n)
        # The raw rate is one plain encode() call with the backend's default threads,
        # whatever embed_streams / embed_threads the worker runs with.
        embedder = build_embedder(settings.embedder, batch_size=settings.embed_batch_size)
        embedder.encode(texts[:32])  # warm
        probe = texts[: min(sample, n)]

        def raw_encode_rate() -> float:
            start = time.perf_counter()
            embedder.encode(probe)
            return len(probe) / (time.perf_counter() - start)

        raw_before = raw_encode_rate()

        store = MemoryStore(
            collection=f"bench-ingest-{uuid.uuid4().hex[:8]}", settings=settings, embedder=embedder
        )
        pipeline = Pipeline(store, mode="celery" if mode == "worker" else "inline")
        before = _used_memory(client)
        cpu0 = _cpu_marks(client, worker, mode)
        t0 = time.perf_counter()
        job = pipeline.submit(texts, batch_size=batch_size)
        while True:
            status = pipeline.job(job.id)
            if status is None:
                raise RuntimeError(f"bench job {job.id} vanished")
            if progress is not None:
                progress(status.processed, status.total)
            if status.settled:
                break
            time.sleep(0.2)
        seconds = time.perf_counter() - t0
        costs = _cpu_costs(cpu0, _cpu_marks(client, worker, mode), n)
        used = _used_memory(client) - before
        # Measured before and after (worker idle both times) and averaged, so a
        # change in machine load during the run biases the ratio less.
        raw_rate = (raw_before + raw_encode_rate()) / 2
        journal = int(client.memory_usage(store.keys.journal) or 0)
        rate = n / seconds
        return IngestBenchResult(
            n=n,
            mode=mode,
            embedder=backend_label(embedder),
            seconds=round(seconds, 2),
            memories_per_second=round(rate, 1),
            raw_encode_per_second=round(raw_rate, 1),
            ratio=round(rate / raw_rate, 3),
            bytes_per_memory=round(used / n, 1),
            bytes_per_memory_without_journal=round((used - journal) / n, 1),
            failed=status.failed,
            cpu_ms_per_memory=costs,
            cpu_ceiling_per_second=_ceiling(costs),
        )
    finally:
        if store is not None and not keep:
            store.drop()
        if worker is not None:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
