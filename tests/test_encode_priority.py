"""Query encodes do not wait behind a whole bulk encode (issue #27, ADR 0073).

The model is replaced by a fake whose first bulk sub-batch blocks until the
test lets it go, so the order of sub-batches (not wall time) shows how long a
query waited.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from houkai.domain.model import ValidationError
from houkai.engines import embeddings
from houkai.engines.embeddings import EncodeGate, QueryCache, SentenceTransformerEmbedder
from houkai.engines.onnx_embedder import OnnxEmbedder

DIM = 4
BULK = [f"bulk text {i}" + "x" * (i % 7) for i in range(256)]  # 8 sub-batches of 32
QUERY = "q: which deploy failed"


class Recorder:
    """Logs "bulk" or "query" per sub-batch; the first one blocks until released."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.running = threading.Event()
        self.release = threading.Event()

    def batch(self, texts: list[str]) -> np.ndarray:
        kind = "query" if texts[0].startswith("q:") else "bulk"
        self.log.append(kind)
        if len(self.log) == 1:
            self.running.set()
            assert self.release.wait(30)
        # a row per text that says which text it was: checks the row mapping
        return np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)


def onnx_embedder(recorder: Recorder, priority: bool) -> OnnxEmbedder:
    emb = OnnxEmbedder("int8", batch_size=32, priority=priority)

    class Tokenizer:
        def encode_batch(self, texts: list[str]) -> list[Any]:
            return [SimpleNamespace(ids=[i], attention_mask=[1]) for i in range(len(texts))]

    class Session:
        def run(self, _outputs: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
            return [recorder.batch(tokenized.pop(0))]

    tokenized: list[list[str]] = []
    tokenize = emb._tokenize

    def remember_texts(texts: list[str]) -> dict[str, np.ndarray]:
        tokenized.append(texts)
        return tokenize(texts)

    emb._tokenize = remember_texts  # type: ignore[method-assign]
    emb._tokenizer, emb._session = Tokenizer(), Session()
    emb._input_names, emb._dimension = ("input_ids", "attention_mask"), DIM
    return emb


def torch_embedder(recorder: Recorder, priority: bool) -> SentenceTransformerEmbedder:
    emb = SentenceTransformerEmbedder(batch_size=32, priority=priority)
    emb._model = SimpleNamespace(encode=lambda texts, **_kw: recorder.batch(texts))  # type: ignore[assignment]
    emb._dimension = DIM
    return emb


def wait_until(condition: Any) -> None:
    """Synchronise with the threads (never a timed assertion: a generous bound)."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the threads never reached the expected state"
        time.sleep(0.005)


@pytest.mark.parametrize("build", [onnx_embedder, torch_embedder], ids=["onnx", "torch"])
@pytest.mark.parametrize(
    ("priority", "bulk_batches_before_query"),
    [(True, 1), (False, 8)],  # off: the behaviour before, the query waits for all 256
    ids=["priority", "no-priority"],
)
def test_a_query_encode_waits_for_one_bulk_sub_batch_not_the_whole_call(
    build: Any, priority: bool, bulk_batches_before_query: int
) -> None:
    recorder = Recorder()
    emb = build(recorder, priority)
    results: dict[str, np.ndarray] = {}
    bulk = threading.Thread(target=lambda: results.update(bulk=emb.encode(BULK)))
    bulk.start()
    assert recorder.running.wait(30)  # sub-batch 1 of 8 holds the only stream

    def ask() -> None:
        with embeddings.interactive():
            results["query"] = emb.encode([QUERY])

    query = threading.Thread(target=ask)
    query.start()
    wait_until(lambda: emb._gate.waiting == 1)  # the query waits for the stream
    recorder.release.set()
    bulk.join(30)
    query.join(30)
    assert recorder.log.count("bulk") == 8
    assert recorder.log.index("query") == bulk_batches_before_query
    # every text got its own row back, whatever order the sub-batches ran in
    lengths = results["bulk"][:, 0] / np.linalg.norm(results["bulk"], axis=1)
    expected = np.array([len(t) / np.hypot(len(t), 1.0) for t in BULK])
    np.testing.assert_allclose(lengths, expected, rtol=1e-5)
    assert results["query"].shape == (1, DIM)


def test_bulk_waiters_go_after_every_waiting_query() -> None:
    gate = EncodeGate(1)
    order: list[str] = []
    held = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with gate.slot():
            held.set()
            assert release.wait(30)

    def take(kind: str) -> None:
        if kind == "query":
            with embeddings.interactive(), gate.slot():
                order.append(kind)
        else:
            with gate.slot():
                order.append(kind)

    first = threading.Thread(target=holder)
    first.start()
    assert held.wait(30)
    bulk = threading.Thread(target=take, args=("bulk",))
    bulk.start()  # waits first...
    wait_until(lambda: gate.waiting == 1)
    queries = [threading.Thread(target=take, args=("query",)) for _ in range(3)]
    for t in queries:
        t.start()
    wait_until(lambda: gate.waiting == 4)
    release.set()
    for t in [first, bulk, *queries]:
        t.join(30)
    assert order == ["query", "query", "query", "bulk"]  # ...and goes last


def test_the_query_cache_marks_its_encodes_interactive() -> None:
    seen: list[bool] = []

    class Probe:
        name, dimension = "probe", DIM

        def encode(self, texts: list[str]) -> np.ndarray:
            seen.append(embeddings.is_interactive())
            return np.ones((len(texts), DIM), dtype=np.float32)

    probe = Probe()
    QueryCache(probe).encode_query("what changed?")
    probe.encode(["a bulk text"])
    assert seen == [True, False]


def test_settings_reach_the_shared_embedder(monkeypatch) -> None:
    from houkai.domain.config import get_settings, set_settings

    before = get_settings()
    try:
        set_settings(before.replace(embed_query_priority=False))
        monkeypatch.setattr(embeddings, "_registry", {})
        emb = embeddings.get_embedder("minilm-onnx-int8")
        assert emb._gate.priority is False  # type: ignore[attr-defined]
        set_settings(before)
        monkeypatch.setattr(embeddings, "_registry", {})
        assert embeddings.get_embedder("minilm-onnx-int8")._gate.priority is True  # type: ignore[attr-defined]
    finally:
        set_settings(before)


# --------------------------------------------------------------------------- worker_nice
def test_lower_priority_renices_the_process_and_refuses_bad_values() -> None:
    from houkai.workers.app import lower_priority

    # In a child: a niceness cannot be raised back, so never in the test process.
    code = (
        "import os; from houkai.workers.app import lower_priority; "
        "before = os.nice(0); after = lower_priority(7); print(after - before, os.nice(0) == after)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["7", "True"]
    zero = subprocess.run(
        [sys.executable, "-c", code.replace("lower_priority(7)", "lower_priority(0)")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert zero == ["0", "True"]
    for bad in (-1, 20, True, "5"):
        with pytest.raises(ValidationError, match="worker_nice"):
            lower_priority(bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the benchmark's figures
def test_bench_contention_figures_are_same_round_ratios_and_medians() -> None:
    from houkai.bench.contention import ContentionResult, Phase, Run, percentile

    assert percentile([], 0.99) == 0.0
    assert percentile([float(v) for v in range(1, 101)], 0.99) == 99.0
    # 100 recalls in the app: the slowest one waited 0.9 s for the encoder
    timings = [[0.1, 0.01, 0.05]] * 99 + [[1.0, 0.9, 0.05]]
    phase = Phase.of(10.0, [0.1] * 98 + [1.2, 1.3], 0, timings)
    assert (phase.p99_ms, phase.app_p99_ms, phase.queued_p99_ms) == (1200.0, 100.0, 1100.0)
    assert (phase.tail_encode_ms, phase.tail_redis_ms, phase.tail_other_ms) == (900, 50, 50)

    def run(variant: str, n: int, quiet: float, loaded: float) -> Run:
        def ph(p99: float) -> Phase:
            return Phase(20, 100, 0, p99 / 2, p99)

        return Run("inline", variant, n, ph(quiet), ph(loaded), 100.0, True)

    result = ContentionResult(5000, 10_000, 16, 20, 3, "m")
    # round 2's machine was slow for both variants: the same-round ratio still shows ×3
    result.runs = [
        run("off", 0, 400, 1500),
        run("on", 0, 400, 500),
        run("on", 1, 800, 1000),
        run("off", 1, 800, 3000),
        run("off", 2, 400, 1200),
        run("on", 2, 400, 600),
    ]
    (off, on) = result.summary()
    assert (off["variant"], off["ingest_p99_ms"], off["ratio_p99"]) == ("off", 1500, 3.75)
    assert (on["variant"], on["ingest_p99_ms"], on["ratio_p99"]) == ("on", 600, 1.25)
    assert result.improvement() == {"inline": 3.0}
    text = "\n".join(result.lines())
    assert "off ÷ on, inline: ×3.00" in text
    assert result.to_dict()["runs"][0]["ingest"]["queued_p99_ms"] == 1500.0  # no app timings


def test_bench_contention_refuses_bad_sizes_before_any_work(settings) -> None:
    from houkai.bench.contention import run

    with pytest.raises(ValidationError, match="positive"):
        run(settings, clients=0)
    with pytest.raises(ValidationError, match="unknown setup"):
        run(settings, setups=("cluster",))
