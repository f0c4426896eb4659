"""``houkai bench contention``: recall latency while a bulk ingest runs (issue #27).

*clients* recall clients (keep-alive HTTP, unique queries so the query cache
never answers) hit a collection of *memories* memories through the REST app
under gunicorn, first alone (``quiet``) and then while an ingest of *ingest*
memories into another collection runs (``ingest``), in the two setups users run:

* ``worker`` — as ``houkai up``: a ``houkai worker`` on the same machine embeds
  the ingest (``pipeline_mode=celery``);
* ``inline`` — the API alone: the ingest request embeds in the API process
  (``pipeline_mode=inline``).

Each setup runs with the mitigations of ADR 0073 ``off`` (``embed_query_priority
= false``, ``worker_nice = 0``: the behaviour before) and ``on`` (the defaults),
in alternating order each round. Per phase it reports recall p50/p99 and the
server's breakdown of its slowest 1% of recalls (query encode with the wait for the
encoder, Redis round trips, the rest, and the time queued before the app), so it
shows where the tail goes; per setup and variant the
medians over the rounds and the ratios taken within each round (a shared
machine's load drifts between rounds, much less within one).
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..domain.config import Settings
from ..domain.model import ValidationError
from .ingest import OBJECTS, SUBJECTS, VERBS, synthetic_texts

SETUPS = ("worker", "inline")
VARIANTS = ("off", "on")
TIMING_ROUTE = "/_bench/timing"
# ADR 0073's mitigations: "off" is the behaviour before them
VARIANT_SETTINGS: dict[str, dict[str, Any]] = {
    "off": {"embed_query_priority": False, "worker_nice": 0},
    "on": {"embed_query_priority": True, "worker_nice": 10},
}


def app():  # pragma: no cover - runs inside the gunicorn worker
    """gunicorn app factory: :func:`houkai.bench.recall_rest.app` plus ``/_bench/timing``,
    which answers (and forgets) ``[total, encode, redis]`` seconds of every recall handled
    since the last call: the request in the app, its query encode (waiting for the
    encoder included) and its Redis round trips."""
    import redis.client
    from flask import jsonify, request

    from ..app.service import MemoryService
    from ..domain.config import load_settings
    from .recall_rest import app as rest_app

    flask_app = rest_app()
    settings = load_settings()
    store = MemoryService(settings, actor="bench").store(settings.collection)
    local = threading.local()  # this request's running totals (recalls only)
    seen: list[tuple[float, float, float]] = []

    def timed(fn: Callable[..., Any], slot: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if getattr(local, "inside", True):  # not a recall, or a nested call
                return fn(*args, **kwargs)
            local.inside = True
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                setattr(local, slot, getattr(local, slot) + time.perf_counter() - started)
                local.inside = False

        return wrapper

    cache = store._qcache
    cache.encode_query = timed(cache.encode_query, "encode")
    redis.client.Redis.execute_command = timed(redis.client.Redis.execute_command, "redis")
    redis.client.Pipeline.execute = timed(redis.client.Pipeline.execute, "redis")

    @flask_app.before_request
    def start() -> None:
        if request.path.endswith("/recall"):
            local.started, local.encode, local.redis, local.inside = (
                time.perf_counter(),
                0,
                0,
                False,
            )

    @flask_app.teardown_request
    def finish(_exc: BaseException | None) -> None:
        if not getattr(local, "inside", True):
            seen.append((time.perf_counter() - local.started, local.encode, local.redis))
            local.inside = True

    def timing_view():
        taken = seen[:]
        del seen[: len(taken)]
        return jsonify(timings=taken)

    flask_app.add_url_rule(TIMING_ROUTE, "bench_timing", timing_view, methods=["GET"])
    return flask_app


def percentile(values: list[float], q: float) -> float:
    """The *q*-quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@dataclass
class Phase:
    """One load phase: recall latencies at the clients, and where the slowest went.

    ``tail_*`` are the mean milliseconds, over the slowest 1% of recalls in the app,
    spent encoding the query (waiting for the encoder included), in Redis round trips
    and in the rest (Python, the GIL, serialisation); ``queued_p99_ms`` is the client's
    p99 less the app's: time before the app saw the request (a gunicorn thread, the GIL).
    """

    seconds: float
    requests: int
    errors: int
    p50_ms: float
    p99_ms: float
    app_p99_ms: float = 0.0
    encode_p99_ms: float = 0.0
    tail_encode_ms: float = 0.0
    tail_redis_ms: float = 0.0
    tail_other_ms: float = 0.0

    @property
    def queued_p99_ms(self) -> float:
        return round(max(0.0, self.p99_ms - self.app_p99_ms), 1)

    @classmethod
    def of(
        cls, seconds: float, latencies: list[float], errors: int, timings: list[list[float]]
    ) -> Phase:
        ms = [v * 1000 for v in latencies]
        app_ms = [[v * 1000 for v in row] for row in timings]
        slowest = sorted(app_ms, reverse=True)[: max(1, len(app_ms) // 100)] if app_ms else []

        def tail(get: Callable[[list[float]], float]) -> float:
            return round(statistics.fmean(get(r) for r in slowest), 1) if slowest else 0.0

        return cls(
            seconds=round(seconds, 1),
            requests=len(ms),
            errors=errors,
            p50_ms=round(percentile(ms, 0.50), 1),
            p99_ms=round(percentile(ms, 0.99), 1),
            app_p99_ms=round(percentile([r[0] for r in app_ms], 0.99), 1),
            encode_p99_ms=round(percentile([r[1] for r in app_ms], 0.99), 1),
            tail_encode_ms=tail(lambda r: r[1]),
            tail_redis_ms=tail(lambda r: r[2]),
            tail_other_ms=tail(lambda r: r[0] - r[1] - r[2]),
        )

    def where(self) -> str:
        """Where the slowest 1% went, one line."""
        return (
            f"queued {self.queued_p99_ms:,.0f}, encode {self.tail_encode_ms:,.0f}, "
            f"redis {self.tail_redis_ms:,.0f}, rest {self.tail_other_ms:,.0f} ms"
        )


@dataclass
class Run:
    setup: str
    variant: str
    round: int
    quiet: Phase
    ingest: Phase
    #: memories/s of the ingest, accepted → all settled (it runs on under the load)
    ingest_rate: float
    #: whether the ingest still ran when the loaded phase ended (else the phase was cut short)
    covered: bool

    @property
    def ratio(self) -> float:
        """p99 under ingest ÷ p99 without, in this run."""
        return round(self.ingest.p99_ms / self.quiet.p99_ms, 2) if self.quiet.p99_ms else 0.0


@dataclass
class ContentionResult:
    memories: int
    ingest: int
    clients: int
    seconds: float
    rounds: int
    embedder: str
    runs: list[Run] = field(default_factory=list)
    loadavg_start: str = ""
    loadavg_end: str = ""

    def summary(self) -> list[dict[str, Any]]:
        """Per setup and variant: medians over the rounds (and of the per-round ratios)."""
        rows = []
        for setup in SETUPS:
            for variant in VARIANTS:
                runs = [r for r in self.runs if r.setup == setup and r.variant == variant]
                if not runs:
                    continue

                def med(get: Callable[[Run], float], runs: list[Run] = runs) -> float:
                    return round(statistics.median(get(r) for r in runs), 1)

                rows.append(
                    {
                        "setup": setup,
                        "variant": variant,
                        "runs": len(runs),
                        "quiet_p50_ms": med(lambda r: r.quiet.p50_ms),
                        "quiet_p99_ms": med(lambda r: r.quiet.p99_ms),
                        "ingest_p50_ms": med(lambda r: r.ingest.p50_ms),
                        "ingest_p99_ms": med(lambda r: r.ingest.p99_ms),
                        "ratio_p99": round(statistics.median(r.ratio for r in runs), 2),
                        "ingest_rate": med(lambda r: r.ingest_rate),
                        # where the slowest 1% under ingest went (ms, medians)
                        "tail_queued_ms": med(lambda r: r.ingest.queued_p99_ms),
                        "tail_encode_ms": med(lambda r: r.ingest.tail_encode_ms),
                        "tail_redis_ms": med(lambda r: r.ingest.tail_redis_ms),
                        "tail_other_ms": med(lambda r: r.ingest.tail_other_ms),
                    }
                )
        return rows

    def improvement(self) -> dict[str, float]:
        """Per setup: median over rounds of (p99 under ingest, off ÷ on) in the same round."""
        out: dict[str, float] = {}
        for setup in SETUPS:
            ratios = []
            for n in range(self.rounds):
                pair = {r.variant: r for r in self.runs if r.setup == setup and r.round == n}
                if len(pair) == 2 and pair["on"].ingest.p99_ms:
                    ratios.append(pair["off"].ingest.p99_ms / pair["on"].ingest.p99_ms)
            if ratios:
                out[setup] = round(statistics.median(ratios), 2)
        return out

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for run, raw in zip(self.runs, data["runs"], strict=True):
            raw["ratio"] = run.ratio
            for phase in ("quiet", "ingest"):
                raw[phase]["queued_p99_ms"] = getattr(run, phase).queued_p99_ms
        data["summary"] = self.summary()
        data["improvement_p99"] = self.improvement()
        return data

    def lines(self) -> list[str]:
        out = [
            f"recall load     {self.clients} clients, {self.seconds:g} s a phase, on "
            f"{self.memories} memories; ingest of {self.ingest} ({self.embedder}); "
            f"{self.rounds} round(s)",
            f"load average    {self.loadavg_start} → {self.loadavg_end}",
        ]
        for run in self.runs:
            flag = "" if run.covered else " (ingest ended early)"
            out.append(
                f"  round {run.round + 1} {run.setup:<6} {run.variant:<3}  quiet p50/p99 "
                f"{run.quiet.p50_ms:,.0f}/{run.quiet.p99_ms:,.0f} ms  ingest "
                f"{run.ingest.p50_ms:,.0f}/{run.ingest.p99_ms:,.0f} ms  ×{run.ratio:.2f}  "
                f"ingest {run.ingest_rate:,.0f}/s{flag}"
            )
            out.append(
                f"      slowest 1%: quiet {run.quiet.where()}; under ingest {run.ingest.where()}"
            )
        out.append("medians (ms)    setup  mitigations  quiet p50/p99  under ingest p50/p99  ratio")
        for row in self.summary():
            out.append(
                f"                {row['setup']:<6} {row['variant']:<11}  "
                f"{row['quiet_p50_ms']:,.0f}/{row['quiet_p99_ms']:,.0f}  "
                f"{row['ingest_p50_ms']:>13,.0f}/{row['ingest_p99_ms']:,.0f}  "
                f"×{row['ratio_p99']:.2f}  (ingest {row['ingest_rate']:,.0f} memories/s)"
            )
            out.append(
                f"{'':18}slowest 1% under ingest: queued {row['tail_queued_ms']:,.0f}, encode "
                f"{row['tail_encode_ms']:,.0f}, redis {row['tail_redis_ms']:,.0f}, rest "
                f"{row['tail_other_ms']:,.0f} ms"
            )
        for setup, gain in self.improvement().items():
            out.append(f"p99 under ingest, off ÷ on, {setup}: ×{gain:.2f} (median of same-round)")
        return out


def _queries() -> Iterator[str]:
    """Distinct questions: the query cache never answers, every recall encodes."""
    rng = random.Random(11)
    for n in itertools.count():
        yield f"what {rng.choice(VERBS)} {rng.choice(SUBJECTS)} {rng.choice(OBJECTS)}? #{n}"


class _Clients:
    """*n* keep-alive recall clients on loopback until a deadline or a stop."""

    def __init__(self, port: int, collection: str, n: int, mode: str) -> None:
        self.port = port
        self.path = f"/c/{collection}/recall"
        self.n = n
        self.mode = mode
        self._queries = _queries()
        self._lock = threading.Lock()

    def _next(self) -> str:
        with self._lock:
            return next(self._queries)

    def _loop(self, stop: threading.Event, until: float, out: list[float], errors: list[int]):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Content-Type": "application/json"}
        while not stop.is_set() and time.monotonic() < until:
            body = json.dumps({"query": self._next(), "k": 5, "mode": self.mode})
            started = time.perf_counter()
            try:
                conn.request("POST", self.path, body, headers)
                resp = conn.getresponse()
                resp.read()
                ok = resp.status == 200
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                ok = False
            if ok:
                out.append(time.perf_counter() - started)
            else:
                errors.append(1)
        conn.close()

    def run(self, seconds: float, stop: threading.Event) -> tuple[float, list[float], int]:
        """(wall seconds, latencies, errors) of one phase."""
        out: list[float] = []
        errors: list[int] = []
        started = time.monotonic()
        until = started + seconds
        threads = [
            threading.Thread(target=self._loop, args=(stop, until, out, errors), daemon=True)
            for _ in range(self.n)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.monotonic() - started, out, len(errors)


def _http(port: int, method: str, path: str, body: Any = None, timeout: float = 60) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        payload = None if body is None else json.dumps(body)
        conn.request(method, path, payload, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        if resp.status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {resp.status}: {data[:300]!r}")
        return json.loads(data)
    finally:
        conn.close()


def start_worker(settings: Settings, log_path: Path) -> subprocess.Popen:
    """``houkai worker`` as ``houkai up`` starts it (the default pool and concurrency)."""
    from .recall_rest import settings_env

    env = dict(os.environ, **settings_env(settings))
    env["HOUKAI_CONFIG"] = str(log_path.with_suffix(".absent.toml"))
    exe = Path(sys.executable).parent / "houkai"
    with log_path.open("ab") as log_file:
        return subprocess.Popen(
            [str(exe), "worker", "-l", "warning"],
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_process(proc: subprocess.Popen) -> None:
    import signal

    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


class _Ingest(threading.Thread):
    """POST the ingest (``wait=false``), then follow its job until it settles."""

    def __init__(self, port: int, store: Any, texts: list[str]) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.store = store
        self.texts = texts
        self.seconds = 0.0
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self) -> None:
        from ..pipeline.write import Pipeline

        started = time.perf_counter()
        try:
            reply = _http(
                self.port,
                "POST",
                f"/c/{self.store.collection_name}/memories/batch?wait=false",
                {"items": self.texts},
                timeout=1800,
            )
            pipeline = Pipeline(self.store, mode="inline")
            deadline = time.monotonic() + 1800
            while time.monotonic() < deadline:
                status = pipeline.job(reply["job_id"])
                if status is None or status.settled:
                    break
                time.sleep(0.2)
            self.seconds = time.perf_counter() - started
        except BaseException as exc:  # reported by the caller
            self.error = exc
        finally:
            self.done.set()


def _one_run(
    settings: Settings,
    collection: str,
    setup: str,
    variant: str,
    n_round: int,
    *,
    ingest: int,
    clients: int,
    seconds: float,
    mode: str,
    log_dir: Path,
    embedder: Any,
) -> Run:
    from ..pipeline.jobs import workers_alive
    from ..store import MemoryStore
    from .recall_rest import RestServer

    s = settings.replace(
        pipeline_mode="celery" if setup == "worker" else "inline", **VARIANT_SETTINGS[variant]
    )
    worker = None
    target = MemoryStore(
        collection=f"bench-contention-in-{uuid.uuid4().hex[:8]}", settings=s, embedder=embedder
    )
    try:
        if setup == "worker":
            worker = start_worker(s, log_dir / "bench-contention-worker.log")
            deadline = time.monotonic() + 300
            while workers_alive(target.client, s.key_prefix) == 0:
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the worker did not start (see {log_dir})")
                time.sleep(0.2)
        with RestServer(
            s, collection, threads=clients, app_spec="houkai.bench.contention:app()"
        ) as server:
            # warm both doors' models (the worker's too) before anything is timed
            _http(
                server.port,
                "POST",
                f"/c/{target.collection_name}/memories/batch",
                {"items": ["warm up the encoder"]},
                timeout=600,
            )
            load = _Clients(server.port, collection, clients, mode)
            never = threading.Event()
            load.run(min(3.0, seconds), never)  # connections and caches warm
            _http(server.port, "GET", TIMING_ROUTE)
            quiet = Phase.of(
                *load.run(seconds, never), _http(server.port, "GET", TIMING_ROUTE)["timings"]
            )
            job = _Ingest(server.port, target, synthetic_texts(ingest, seed=n_round + 1))
            job.start()
            time.sleep(1.0)  # the request body is parsed and the first batch under way
            wall, latencies, errors = load.run(seconds, job.done)
            covered = not job.done.is_set()
            loaded = Phase.of(
                wall, latencies, errors, _http(server.port, "GET", TIMING_ROUTE)["timings"]
            )
            job.join(timeout=1800)
            if job.error is not None:
                raise RuntimeError(f"the benchmark ingest failed: {job.error}") from job.error
        return Run(
            setup=setup,
            variant=variant,
            round=n_round,
            quiet=quiet,
            ingest=loaded,
            ingest_rate=round(ingest / job.seconds, 1) if job.seconds else 0.0,
            covered=covered,
        )
    finally:
        if worker is not None:
            stop_process(worker)
        target.drop()


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run(
    settings: Settings,
    *,
    memories: int = 5000,
    ingest: int = 10_000,
    clients: int = 16,
    seconds: float = 20.0,
    rounds: int = 3,
    setups: tuple[str, ...] = SETUPS,
    variants: tuple[str, ...] = VARIANTS,
    mode: str = "semantic",
    progress: Callable[[str], None] | None = None,
) -> ContentionResult:
    """Run the benchmark (see the module docstring)."""
    from ..db.server import resolve_url
    from ..engines.embeddings import backend_label, build_embedder
    from ..pipeline.write import Pipeline
    from ..store import MemoryStore

    if min(memories, ingest, clients, rounds) < 1 or seconds <= 0:
        raise ValidationError("memories, ingest, clients, rounds and seconds must be positive")
    bad = [s for s in setups if s not in SETUPS] + [v for v in variants if v not in VARIANTS]
    if bad or not setups or not variants:
        raise ValidationError(f"unknown setup or variant: {bad}")
    url = resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)
    settings = settings.replace(redis_url=url)
    log_dir = Path(settings.data_dir).expanduser()
    log_dir.mkdir(parents=True, exist_ok=True)
    embedder = build_embedder(settings.embedder, batch_size=settings.embed_batch_size)
    store = MemoryStore(
        collection=f"bench-contention-{uuid.uuid4().hex[:8]}", settings=settings, embedder=embedder
    )
    result = ContentionResult(
        memories=memories,
        ingest=ingest,
        clients=clients,
        seconds=seconds,
        rounds=rounds,
        embedder=backend_label(embedder),
        loadavg_start=_loadavg(),
    )
    try:
        if progress:
            progress(f"storing {memories} memories")
        job = Pipeline(store, mode="inline").submit(synthetic_texts(memories, seed=0))
        if len(job.memory_ids) != memories:
            raise RuntimeError("the benchmark collection was not filled")
        for n_round in range(rounds):
            order = variants if n_round % 2 == 0 else tuple(reversed(variants))
            for setup in setups:
                for variant in order:
                    if progress:
                        progress(f"round {n_round + 1}/{rounds}: {setup}, mitigations {variant}")
                    result.runs.append(
                        _one_run(
                            settings,
                            store.collection_name,
                            setup,
                            variant,
                            n_round,
                            ingest=ingest,
                            clients=clients,
                            seconds=seconds,
                            mode=mode,
                            log_dir=log_dir,
                            embedder=embedder,
                        )
                    )
    finally:
        store.drop()
        result.loadavg_end = _loadavg()
    return result
