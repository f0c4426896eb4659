"""DecayEngine (§6): the exact formula, score_all, and streaming prune on Redis Stack."""

from __future__ import annotations

import math
import time

import pytest

from houkai import DecayEngine, Memory

DAY = 86_400.0


def _mem(
    importance: float, days_idle: float, now: float, access_count: int = 0, type: str = "episodic"
) -> Memory:
    return Memory(
        id="x",
        text="t",
        type=type,
        importance=importance,
        last_accessed=now - days_idle * DAY,
        access_count=access_count,
    )


def _add(store, *specs: tuple) -> list[Memory]:
    """Write (text, importance[, extra fields]) rows in one batched model call."""
    items = [{"text": t, "importance": i, **(extra[0] if extra else {})} for t, i, *extra in specs]
    return store.remember_many(items)


def _age(store, memory: Memory, days: float, now: float, **fields) -> None:
    """Backdate a stored memory's last access (and set other raw fields)."""
    mapping = {"last_accessed": repr(now - days * DAY)}
    mapping.update({k: str(v) for k, v in fields.items()})
    store.set_raw_fields({memory.id: mapping})


# ---------------------------------------------------------------- the formula
@pytest.mark.parametrize(
    ("importance", "days", "expected", "pruned"),
    [
        (0.9, 1, 0.81, False),
        (0.9, 7, 0.45, False),
        (0.9, 30, 0.04, True),
        (0.5, 1, 0.45, False),
        (0.1, 7, 0.05, True),  # 0.0497 < 0.05
    ],
)
def test_score_table_from_design(importance, days, expected, pruned):
    engine = DecayEngine(None)
    now = 1_700_000_000.0
    score = engine.score(_mem(importance, days, now), now=now)
    assert round(score, 2) == expected
    assert score == pytest.approx(importance * math.exp(-0.1 * days))
    assert (score < engine.min_score) is pruned


def test_defaults_match_seed():
    engine = DecayEngine(None)
    assert (engine.decay_rate, engine.min_score, engine.protect_types, engine.frequency_weight) == (
        0.1,
        0.05,
        ("procedural",),
        0.0,
    )


def test_reinforcement_factor():
    now = 1_700_000_000.0
    plain = DecayEngine(None)
    reinforced = DecayEngine(None, frequency_weight=0.2)
    often = _mem(0.5, 25, now, access_count=10)
    never = _mem(0.5, 25, now, access_count=0)
    # frequency_weight = 0 → factor exactly 1, access count irrelevant
    assert plain.score(often, now) == plain.score(never, now) == 0.5 * math.exp(-2.5)
    assert reinforced.score(never, now) == plain.score(never, now)
    assert reinforced.score(often, now) == pytest.approx(
        0.5 * math.exp(-2.5) * (1 + 0.2 * math.log(11))
    )
    # the seed's example: ~10 recalls survive a prune that drops the never-reread twin
    assert reinforced.score(never, now) < 0.05 <= reinforced.score(often, now)
    # the score may exceed importance with reinforcement
    assert reinforced.score(_mem(0.5, 0, now, access_count=100), now) > 0.5


def test_now_before_last_access_clamps_to_importance():
    now = 1_700_000_000.0
    assert DecayEngine(None).score(_mem(0.7, -3, now), now) == 0.7


def test_default_now_is_current_time():
    m = Memory(id="x", text="t", importance=0.8, last_accessed=time.time() - 10 * DAY)
    assert DecayEngine(None).score(m) == pytest.approx(0.8 * math.exp(-1.0), rel=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"decay_rate": -0.1}, "decay_rate"),
        ({"decay_rate": float("nan")}, "decay_rate"),
        ({"min_score": "x"}, "min_score"),
        ({"frequency_weight": -1}, "frequency_weight"),
        ({"protect_types": ("procedual",)}, "protect_types"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DecayEngine(None, **kwargs)


def test_protect_types_accepts_config_string():
    assert DecayEngine(None, protect_types="procedural, feedback").protect_types == (
        "procedural",
        "feedback",
    )
    assert DecayEngine(None, protect_types=None).protect_types == ()


# ---------------------------------------------------------------- on a real store
def test_empty_store(store):
    engine = DecayEngine(store)
    assert engine.score_all() == []
    assert engine.prune() == []
    assert engine.prune(dry_run=True, now=time.time() + 1000 * DAY) == []


def test_score_all_sorted_desc_and_includes_superseded(store):
    now = time.time()
    a, b, c = _add(store, ("alpha fact", 0.9), ("beta fact", 0.2), ("gamma fact", 0.6))
    store.supersede(b.id, a.id)
    pairs = DecayEngine(store).score_all(now=now + 5 * DAY)
    assert [m.id for m, _ in pairs] == [a.id, c.id, b.id]
    scores = [s for _, s in pairs]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] == pytest.approx(0.9 * math.exp(-0.5), rel=1e-6)


def test_prune_dry_run_then_apply(store):
    now = time.time()
    ep = {"type": "episodic"}
    stale, fresh, weak = _add(
        store,
        ("old deployment note", 0.9, ep),
        ("recent deployment note", 0.9, ep),
        ("trivial remark", 0.1, ep),
    )
    _age(store, stale, 30, now)
    _age(store, weak, 7, now)
    engine = DecayEngine(store)

    preview = engine.prune(dry_run=True, now=now)
    assert sorted(m.id for m in preview) == sorted([stale.id, weak.id])
    assert store.count() == 3  # nothing deleted

    removed = engine.prune(now=now)
    assert sorted(m.id for m in removed) == sorted([stale.id, weak.id])
    assert store.get(stale.id) is None and store.get(weak.id) is None
    assert store.get(fresh.id) is not None
    assert engine.prune(now=now) == []


def test_prune_protects_procedural(store):
    now = time.time()
    runbook, note = _add(
        store,
        ("runbook: restart the api", 0.01, {"type": "procedural"}),
        ("a passing note", 0.01, {"type": "episodic"}),
    )
    removed = DecayEngine(store).prune(now=now + 400 * DAY)
    assert [m.id for m in removed] == [note.id]
    assert store.get(runbook.id) is not None
    # nothing protected → the runbook goes too
    assert [m.id for m in DecayEngine(store, protect_types=()).prune(now=now + 400 * DAY)] == [
        runbook.id
    ]


def test_prune_custom_now(store):
    m = store.remember("keep me for a while", importance=0.5)
    engine = DecayEngine(store)
    assert engine.prune(now=time.time()) == []
    # 0.5·e^(−0.1·d) < 0.05 ⇔ d > 23.03 days
    assert engine.prune(dry_run=True, now=m.last_accessed + 23 * DAY) == []
    assert [x.id for x in engine.prune(dry_run=True, now=m.last_accessed + 23.1 * DAY)] == [m.id]


def test_prune_includes_superseded_skips_expired(store):
    now = time.time()
    old, new, expired = _add(
        store,
        ("the build uses make", 0.01),
        ("the build uses bazel", 0.9),
        ("short-lived", 0.01, {"expires_at": now - 10}),
    )
    store.supersede(old.id, new.id)
    removed = DecayEngine(store).prune(now=now)
    assert [m.id for m in removed] == [old.id]
    assert removed[0].superseded_by == new.id
    assert store.get(expired.id) is not None  # left for purge_expired


def test_prune_reinforcement_on_store(store):
    now = time.time()
    often, never = _add(store, ("frequently recalled fact", 0.5), ("never recalled fact", 0.5))
    _age(store, often, 25, now, access_count=10)
    _age(store, never, 25, now)
    assert sorted(m.id for m in DecayEngine(store).prune(dry_run=True, now=now)) == sorted(
        [often.id, never.id]
    )
    removed = DecayEngine(store, frequency_weight=0.2).prune(now=now)
    assert [m.id for m in removed] == [never.id]
    assert store.get(often.id) is not None


def test_prune_is_journaled_as_decay(store):
    m = store.remember("forgettable", importance=0.01)
    DecayEngine(store).prune(now=time.time() + 100 * DAY)
    entries = [e for e in store.journal.tail(10) if e.op == "forget"]
    assert len(entries) == 1
    entry = entries[0]
    assert entry.actor == "decay" and entry.id == m.id
    assert entry.before["text"] == "forgettable"
    assert store.actor == "lib"


def test_dry_run_writes_no_journal(store):
    store.remember("forgettable", importance=0.01)
    before = len(store.journal)
    assert len(DecayEngine(store).prune(dry_run=True, now=time.time() + 100 * DAY)) == 1
    assert len(store.journal) == before


def test_prune_streams_in_batches(store, monkeypatch):
    now = time.time()
    items = [{"text": f"note number {i}", "type": "episodic", "importance": 0.5} for i in range(45)]
    items += [
        {"text": f"important fact {i}", "type": "semantic", "importance": 1.0} for i in range(5)
    ]
    written = store.remember_many(items)
    doomed = {m.id for m in written if m.importance == 0.5}
    at = now + 25 * DAY  # 0.5·e^-2.5 = 0.041 < 0.05 ≤ 1.0·e^-2.5 = 0.082
    deletes: list[int] = []
    real_delete = store.delete

    def spy(memories):
        deletes.append(len(memories))
        return real_delete(memories)

    monkeypatch.setattr(store, "delete", spy)
    removed = DecayEngine(store).prune(now=at, batch_size=7)
    assert {m.id for m in removed} == doomed
    assert sum(deletes) == 45
    assert max(deletes) <= 7 and len(deletes) >= math.ceil(45 / 7)
    assert store.count() == 5


def test_iter_scores_streams_every_memory(store):
    store.remember_many([f"fact {i}" for i in range(12)])
    rows = list(DecayEngine(store).iter_scores(batch_size=5))
    assert len(rows) == 12 and len({m.id for m, _ in rows}) == 12
    with pytest.raises(ValueError, match="batch_size"):
        list(DecayEngine(store).iter_scores(batch_size=0))


def test_fallback_without_server_filter(store, monkeypatch):
    now = time.time()
    weak, _ = _add(store, ("weak note", 0.01), ("strong note", 0.9))
    engine = DecayEngine(store)
    monkeypatch.setattr(
        engine, "_aggregate_args", lambda *a: ["FT.AGGREGATE", store.keys.index, "*", "APPLY"]
    )
    assert [m.id for m in engine.prune(now=now)] == [weak.id]


def test_server_filters_candidates(store, monkeypatch):
    """Only (near-)candidates cross the wire: the server computes the score itself."""
    rows = [(f"fresh fact {i}", 0.9) for i in range(20)]
    *_, weak, often = _add(store, *rows, ("weak note", 0.01), ("often recalled", 0.5))
    now = time.time() + 60  # a minute later: none of the rows was just touched
    _age(store, often, 25, now, access_count=10)
    loaded: list[int] = []
    for weight, expected in ((0.0, {weak.id, often.id}), (0.2, {weak.id})):
        engine = DecayEngine(store, frequency_weight=weight)
        real_load = engine._load
        monkeypatch.setattr(
            engine, "_load", lambda keys, real=real_load: loaded.append(len(keys)) or real(keys)
        )
        loaded.clear()
        assert {m.id for m in engine.prune(dry_run=True, now=now)} == expected
        assert sum(loaded) == len(expected)


def test_prune_takes_another_pass_when_the_cursor_skipped_rows(store, monkeypatch):
    """RediSearch may skip rows of an open cursor while documents are deleted under it."""
    now = time.time()
    written = store.remember_many(
        [{"text": f"fading note {i}", "type": "episodic", "importance": 0.5} for i in range(12)]
    )
    engine = DecayEngine(store)
    real = engine._candidate_batches
    passes: list[int] = []

    def first_pass_cut_short(at, size):
        passes.append(1)
        batches = real(at, size)
        if len(passes) == 1:  # the first pass "loses" everything after its first batch
            yield next(batches)
            batches.close()
            return
        yield from batches

    monkeypatch.setattr(engine, "_candidate_batches", first_pass_cut_short)
    removed = engine.prune(now=now + 25 * DAY, batch_size=5)
    assert sorted(m.id for m in removed) == sorted(m.id for m in written)
    # cut short, the rest, then a pass that finds nothing new; the real cursor may skip
    # rows of the second pass too (the very RediSearch behaviour), which takes one more
    assert store.count() == 0 and len(passes) >= 3
    assert engine.prune(now=now + 25 * DAY, dry_run=True) == []
