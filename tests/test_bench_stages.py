"""``houkai bench stages``: the same-run ratios, medians and verdicts, a tiny real run, the
seed driver's failure path and the CLI (no timing assertions)."""

from __future__ import annotations

import json
import sys
import uuid

import pytest
from _childenv import bench_cli

from houkai import MemoryStore
from houkai.bench import findable, stage_cost
from houkai.bench.recall import drop_collections
from houkai.bench.scratch import bench_store
from houkai.bench.seed_client import SeedDriver, SeedUnavailable
from houkai.bench.stage_cost_report import (
    DEFAULTS,
    PLAIN,
    SEED,
    Sample,
    StageCostResult,
    rows,
    seed_ratios,
    stage_sets,
    verdicts,
)
from houkai.corpora import clustered
from houkai.corpora.clustered import asked_about, worded_question
from houkai.domain.config import Settings
from houkai.domain.model import ValidationError


def _s(size: int, rnd: int, name: str, phase: str, p50: float, system: str = "houkai") -> Sample:
    return Sample(size, rnd, system, "library", name, phase, 10, p50, p50 * 2, p50, load1=1.5)


def test_stage_sets_are_plain_defaults_and_each_stage_off() -> None:
    sets = stage_sets(("query", "prf", "entity"))
    assert [(s.name, s.stages) for s in sets] == [
        (PLAIN, ()),
        (DEFAULTS, ("query", "prf", "entity")),
        ("-query", ("prf", "entity")),
        ("-prf", ("query", "entity")),
        ("-entity", ("query", "prf")),
    ]


def test_ratios_are_medians_of_same_round_ratios() -> None:
    # Round 1 ran on a loaded machine: everything doubled. Same-round ratios stay 1.5;
    # a ratio of medians (30/12 = 2.5) would not.
    samples = [
        _s(100, 0, PLAIN, "warm", 10.0),
        _s(100, 0, DEFAULTS, "warm", 15.0),
        _s(100, 1, PLAIN, "warm", 20.0),
        _s(100, 1, DEFAULTS, "warm", 30.0),
        _s(100, 2, PLAIN, "warm", 12.0),
        _s(100, 2, DEFAULTS, "warm", 12.0),
        _s(100, 0, PLAIN, "cold", 20.0),
        _s(100, 0, DEFAULTS, "cold", 22.0),
    ]
    table = {(r.stage_set, r.phase): r for r in rows(samples)}
    warm = table[(DEFAULTS, "warm")]
    assert warm.ratios == [1.5, 1.5, 1.0]
    assert warm.ratio == 1.5 and warm.p50_ms == 15.0 and warm.p95_ms == 30.0
    assert table[(PLAIN, "warm")].ratio == 1.0
    assert table[(DEFAULTS, "cold")].ratio == 1.1
    (over, cold) = verdicts(samples)
    assert over["phase"] == "warm" and over["ratio"] == 1.5 and over["holds"] is False
    assert cold["phase"] == "cold" and cold["holds"] is True


def test_verdicts_use_the_largest_size_and_the_seed_same_round() -> None:
    samples = [
        _s(20, 0, PLAIN, "warm", 10.0),
        _s(20, 0, DEFAULTS, "warm", 50.0),  # the small size misses: not the target's size
        _s(20, 0, DEFAULTS, "cold", 12.0),
        _s(20, 0, SEED, "cold", 30.0, system=SEED),
        _s(20, 1, DEFAULTS, "cold", 20.0),
        _s(20, 1, SEED, "cold", 30.0, system=SEED),
        _s(20, 2, DEFAULTS, "cold", 14.0),  # no seed pass this round: no ratio
        _s(100, 0, PLAIN, "warm", 10.0),
        _s(100, 0, DEFAULTS, "warm", 11.0),
    ]
    assert seed_ratios(samples) == {20: [0.4, 0.6667]}
    by_target = {(v["size"], v["limit"]): v for v in verdicts(samples)}
    assert by_target[(100, 1.2)]["ratio"] == 1.1 and by_target[(100, 1.2)]["holds"]
    seed = by_target[(20, 0.5)]
    assert seed["ratio"] == pytest.approx(0.533, abs=1e-3) and seed["holds"] is False
    seed_row = next(r for r in rows(samples) if r.system == SEED)
    assert seed_row.ratio is None and seed_row.p50_ms == 30.0


def test_result_round_trips_and_reports() -> None:
    samples = [_s(50, 0, PLAIN, "warm", 10.0), _s(50, 0, DEFAULTS, "warm", 13.0)]
    result = StageCostResult(
        samples=samples,
        config={"rounds": 1},
        machine={"cpu": "x", "nproc": 2, "loadavg_start": "1", "loadavg_end": "2"},
        seed={"status": "unavailable", "reason": "no interpreter at /nope"},
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["benchmark"] == "stages" and data["verdicts"][0]["ratio"] == 1.3
    again = StageCostResult.from_dict(data)
    assert again.to_dict() == data
    text = "\n".join(result.lines())
    assert "MISSED" in text and "no interpreter at /nope" in text and "1.30" in text
    table = result.markdown()
    assert "| 50 | defaults | — | — | 13.0 | 1.30 |" in table and "→ missed" in table


class FakeSeed:
    """Stands in for the seed's process: records what it was asked to answer."""

    asked: list[list[str]] = []

    def __init__(self, python: str, torch_threads: int = 0) -> None:
        self.info = {"ok": True, "versions": {"ai-houkai": "fake"}}

    def __enter__(self) -> FakeSeed:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def load(self, memories: list, vectors: object) -> dict[str, float]:
        return {"seconds": 0.0}

    def measure(self, texts: list[str], *, k: int, touch: bool) -> list[float]:
        FakeSeed.asked.append(list(texts))
        return [40.0 for _ in texts]


def test_interleaved_run_gives_the_seed_its_turn_per_query(
    settings: Settings, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stage_cost, "SeedDriver", FakeSeed)
    FakeSeed.asked = []
    prefix = f"tq-{uuid.uuid4().hex[:8]}"
    result = stage_cost.run(
        settings, [40], n_queries=3, rounds=2, collection_prefix=prefix, interleave=True,
        seed_python=sys.executable, seed_size=40,
    )  # fmt: skip
    seed = [s for s in result.samples if s.system == SEED]
    assert [(s.round, s.n, s.phase) for s in seed] == [(0, 3, "cold"), (1, 3, "cold")]
    timed = FakeSeed.asked[1:]  # the first call is the untimed warm-up
    assert len(timed) == 6 and all(len(texts) == 1 for texts in timed)  # one query per turn
    assert seed_ratios(result.samples)[40] and "seed (cold only)" in result.markdown()


def test_seed_driver_reports_why_it_cannot_run(tmp_path) -> None:
    with pytest.raises(SeedUnavailable, match="no interpreter"):
        SeedDriver(str(tmp_path / "missing-python")).__enter__()
    # houkai's own interpreter answers hello but has no seed: load fails with the reason.
    with SeedDriver(sys.executable) as driver:
        assert "ai-houkai" in driver.info["versions"]
        with pytest.raises(SeedUnavailable, match="ai_houkai"):
            driver.load([], __import__("numpy").zeros((0, 384), dtype="float32"))


def test_tiny_run_measures_every_stage_set(settings: Settings, embedder) -> None:
    prefix = f"ts-{uuid.uuid4().hex[:8]}"
    result = stage_cost.run(
        settings,
        [60],
        n_queries=4,
        rounds=2,
        collection_prefix=prefix,
        seed_python="/nonexistent/python",
    )
    data = result.to_dict()
    names = {s.name for s in stage_sets(stage_cost.resolve_stages(None, settings.recall_stages))}
    cold = [s for s in result.samples if s.phase == "cold"]
    warm = [s for s in result.samples if s.phase == "warm"]
    assert {s.stage_set for s in cold} == names and len(cold) == len(warm) == 2 * len(names)
    assert all(s.cache_misses == 4 and s.cache_hits == 0 for s in cold)
    assert all(s.cache_hits == 4 and s.cache_misses == 0 for s in warm)
    assert all(s.n == 4 and 0 < s.p50_ms <= s.p95_ms for s in result.samples)
    # round 2 ran the sets in the other order
    first = [s.stage_set for s in result.samples if s.round == 0 and s.phase == "cold"]
    second = [s.stage_set for s in result.samples if s.round == 1 and s.phase == "cold"]
    assert second == first[::-1]
    assert data["seed"]["status"] == "unavailable" and "no interpreter" in data["seed"]["reason"]
    assert {v["phase"] for v in data["verdicts"]} == {"warm", "cold"}
    with pytest.raises(ValidationError, match="rounds"):
        stage_cost.run(settings, [60], rounds=0)


def test_interleaved_round_times_every_set_per_query(settings: Settings, embedder) -> None:
    prefix = f"ti-{uuid.uuid4().hex[:8]}"
    result = stage_cost.run(
        settings, [50], n_queries=3, rounds=1, collection_prefix=prefix, interleave=True
    )
    assert result.config["interleave"] is True
    by = {(s.stage_set, s.phase): s for s in result.samples}
    names = {s.name for s in stage_sets(stage_cost.resolve_stages(None, settings.recall_stages))}
    assert {name for name, _ in by} == names and len(result.samples) == 2 * len(names)
    for name in names:
        cold, warm = by[(name, "cold")], by[(name, "warm")]
        assert cold.n == warm.n == 3
        assert (cold.cache_misses, cold.cache_hits) == (3, 0)  # a fresh cache per call
        assert (warm.cache_misses, warm.cache_hits) == (0, 3)  # filled before timing


def test_cli_errors_and_json(settings: Settings, embedder, tmp_path) -> None:
    invoke = bench_cli(settings, tmp_path, "bench", "stages")

    bad = invoke("--sizes", "ten")
    assert bad.exit_code != 0 and "Error:" in bad.output and "--sizes" in bad.output
    off = invoke("--sizes", "50", "--seed-python", sys.executable, "--seed-size", "70")
    assert off.exit_code != 0 and "--seed-size" in off.output
    saved = tmp_path / "out.json"
    prefix = f"tc-{uuid.uuid4().hex[:8]}"
    ok = invoke(
        "--sizes", "40", "--queries", "3", "--rounds", "1", "--collection-prefix", prefix,
        "--save", str(saved), "--json",
    )  # fmt: skip
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["config"]["sizes"] == [40] and data["seed"]["status"] == "not asked"
    assert json.loads(saved.read_text())["rows"] == data["rows"]
    table = tmp_path / "table.md"
    again = invoke(
        "--sizes", "40", "--queries", "2", "--rounds", "1", "--collection-prefix", prefix,
        "--markdown", str(table),
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert table.read_text().startswith("| N | stages |") and "| 40 | plain |" in table.read_text()


def test_a_clustered_corpus_is_timed_on_questions_worded_from_its_lines(
    settings: Settings, embedder, monkeypatch
) -> None:
    """``--corpus chat``: the collection holds the chat corpus (not the uniform one), every
    pass asks the questions worded from its lines, the report says how many, and the seed
    is refused, not skipped."""
    asked: list[str] = []

    def recording(corpus, n, seed=0):
        asked.extend(asked_about(corpus, n, seed))
        return list(asked)

    monkeypatch.setattr(clustered, "asked_about", recording)
    timed: list[str] = []
    real_recall = MemoryStore.recall

    def spy(self, query, *args, **kwargs):
        timed.append(query)
        return real_recall(self, query, *args, **kwargs)

    prefix = f"tc-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(MemoryStore, "recall", spy)
    result = stage_cost.run(
        settings, [80], n_queries=6, rounds=1, collection_prefix=prefix, corpus="chat", keep=True
    )
    monkeypatch.setattr(MemoryStore, "recall", real_recall)
    assert len(asked) == 6 and set(timed) == set(asked)  # the warm-up asks them too
    assert result.config["corpus"] == "chat" and result.config["queries_asked"] == {80: 6}
    assert "chat corpus, 6 queries" in "\n".join(result.lines())
    assert all(s.n == 6 and s.cache_misses + s.cache_hits == 6 for s in result.samples)
    store = bench_store(f"{prefix}-chat-80", settings)
    assert store.count() == 80
    assert {m.text for m in store.list_recent(limit=100)} == set(
        findable.make_corpus("chat", 80, 7).texts
    )
    drop_collections(settings, [80], f"{prefix}-chat")
    assert bench_store(f"{prefix}-chat-80", settings).count() == 0
    # without --keep the run drops its own collection, under the corpus's name
    stage_cost.run(settings, [60], n_queries=2, rounds=1, collection_prefix=prefix, corpus="logs")
    assert bench_store(f"{prefix}-logs-60", settings).count() == 0


def test_a_clustered_corpus_refuses_what_it_cannot_measure(settings: Settings) -> None:
    with pytest.raises(ValidationError, match="uniform corpus only"):
        stage_cost.run(settings, [80], corpus="logs", seed_python="/usr/bin/python3")
    with pytest.raises(ValidationError, match="corpus must be one of"):
        stage_cost.run(settings, [80], corpus="tickets")
    with pytest.raises(ValidationError, match=r"sizes of 40 or more .* \[30\]"):
        stage_cost.run(settings, [80, 30], corpus="chat")
    with pytest.raises(ValidationError, match="ends like a clustered corpus"):
        stage_cost.run(settings, [80], collection_prefix="bench-stages-chat")


def test_questions_worded_from_a_corpus_drop_what_they_ask_for() -> None:
    assert worded_question("Log entry 12: service search reported p95 latency of 523 ms") == (
        "service search reported latency of ms"
    )
    assert worded_question("Frank: can we move this to tomorrow?") == "can we move this to tomorrow"
    assert worded_question("The demo API gateway listens on port 40371") == (
        "The demo API gateway listens on port"
    )
    corpus = findable.make_corpus("logs", 3000, 7)  # 20 facts, then log lines
    asked = asked_about(corpus, 24, 7)
    assert len(asked) == len(set(asked)) == 24
    facts = {worded_question(corpus.texts[i]) for i in corpus.fact_indexes}
    # half about the facts; the log lines word only a few templates, facts fill the rest
    assert 12 < sum(q in facts for q in asked) < 24
    assert asked == asked_about(corpus, 24, 7)  # deterministic for a seed
    assert len(asked_about(corpus, 100, 7)) < 100  # no more than the corpus words
