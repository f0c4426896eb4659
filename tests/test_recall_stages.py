"""Hybrid recall's question-reading stages: query understanding, context, PRF, switches."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from houkai.bench import heldout, locomo
from houkai.recall.query import parse_query, time_proximity
from houkai.recall.request import RecallRequest
from houkai.recall.stages import STAGES, resolve_stages
from houkai.recall.stages.params import BASE

AS_OF = datetime(2026, 6, 1, 12, tzinfo=UTC).timestamp()
DAY = 86_400.0


def _date(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


# ---------------------------------------------------------------- the parse
def test_time_expressions_become_windows_against_as_of() -> None:
    yesterday = parse_query("What broke yesterday?", AS_OF)
    assert yesterday.window == (_date("2026-05-31"), _date("2026-06-01"))
    assert yesterday.kind == "temporal"
    may = parse_query("What did Caroline paint in May 2023?", AS_OF)
    assert may.window == (_date("2023-05-01"), _date("2023-06-01"))
    day = parse_query("What happened on 8 May 2023?", AS_OF)
    assert day.window == (_date("2023-05-08"), _date("2023-05-09"))
    for written in ("3/14/2026", "14.03.2026", "14/03/2026"):  # one order is a date
        numeric = parse_query(f"What happened on {written}?", AS_OF)
        assert numeric.window == (_date("2026-03-14"), _date("2026-03-15")), written
    assert parse_query("What happened on 4/5/2026?", AS_OF).window is None  # April or May
    assert parse_query("anything on 14.03.2026", AS_OF).exact == ["14.03.2026"]  # as ISO
    before = parse_query("what did we decide before the launch in March", AS_OF)
    assert before.window == (float("-inf"), _date("2026-03-01"))
    ago = parse_query("status three weeks ago", AS_OF)
    lo, hi = ago.window
    assert lo < AS_OF - 21 * DAY < hi


def test_recency_exact_tokens_and_names() -> None:
    latest = parse_query("What is the latest status of the billing service?", AS_OF)
    assert latest.recency == "latest" and latest.kind == "recency"
    assert parse_query("When did we first meet?", AS_OF).recency == "first"
    keyword = parse_query('Why is ORN-4821 blocked in "vendor onboarding" by parse_invoice?', AS_OF)
    assert keyword.kind == "keyword"
    assert {"ORN-4821", "vendor onboarding", "parse_invoice"} <= set(keyword.exact)
    names = parse_query("What did Caroline tell Melanie about the Atlas project?", AS_OF)
    assert names.names == ["Caroline", "Melanie", "Atlas"]
    # a name after "before" is the reference point, not whom the question is about
    assert parse_query("Who was our babysitter before Luz?", AS_OF).names == []
    assert parse_query("Where did Caroline live before Sweden?", AS_OF).names == ["Caroline"]
    assert parse_query("how do we deploy", AS_OF).to_dict() == {"kind": "general"}


def test_time_proximity_is_one_inside_and_decays_outside() -> None:
    window = (100 * DAY, 101 * DAY)
    assert time_proximity(100.5 * DAY, window, DAY) == 1.0
    assert time_proximity(102 * DAY, window, DAY) == pytest.approx(0.3679, abs=1e-3)


def test_stage_switches_are_validated(store) -> None:
    assert resolve_stages(None) == STAGES
    assert resolve_stages("query, prf") == ("query", "prf")
    assert resolve_stages(()) == ()
    with pytest.raises(ValueError, match="unknown recall stage"):
        store.recall("x", mode="hybrid", stages=["query", "llm"])
    with pytest.raises(ValueError, match="as_of"):
        store.recall("x", mode="hybrid", as_of="yesterday")


# ---------------------------------------------------------------- sequences
def test_remember_many_sequence_writes_follows_links(store) -> None:
    a, b, c = store.remember_many(["one", "two", "three"], sequence=True)
    assert store.get(b.id).links[0].to == a.id and store.get(b.id).links[0].rel == "follows"
    assert [m.id for m, _ in store.neighbors(b.id, rel="follows", direction="in")] == [c.id]
    (lone,) = store.remember_many(["alone"])
    assert store.get(lone.id).links == []


def _backdate(store, stamps: dict[str, float]) -> None:
    locomo.backdate(store, stamps)


EXCHANGE = [
    "User: which database should we use for the analytics events pipeline?",
    "Assistant: ClickHouse.",
]
FILLER = [
    f"The analytics events pipeline {x}."
    for x in (
        "writes to the database every minute",
        "needs a database migration next sprint",
        "database schema lives in the events repo",
        "stores raw events before the database load",
        "was reviewed by the database team",
        "dashboard reads from the events database",
    )
]


COOKING = [
    "Simmer the tomato sauce for twenty minutes.",
    "Knead the bread dough until it is smooth.",
    "Toast the cumin seeds before grinding them.",
    "Rest the steak for five minutes after searing.",
    "Whisk the eggs with a pinch of salt.",
    "Fold the berries gently into the batter.",
]
QUERY = "which database should we use for the analytics events pipeline"


def _rank(hits, memory_id: str) -> int:
    return [m.id for m, *_ in hits].index(memory_id)


def test_context_stage_ranks_the_answer_turn_with_its_question(store) -> None:
    store.remember_many(FILLER + COOKING)
    _, answer = store.remember_many(EXCHANGE, sequence=True)
    plain = store.recall(QUERY, k=14, mode="hybrid", stages=(), touch=False, explain=True)
    hits = store.recall(
        QUERY, k=14, mode="hybrid", stages=("context", "fitted"), touch=False, explain=True
    )
    assert _rank(hits, answer.id) <= _rank(plain, answer.id)
    explained = {m.id: e for m, _, e in hits}
    before = {m.id: s for m, s, _ in plain}
    question = next(m.id for m, _, _ in hits if m.text.startswith("User:"))
    # The previous turn asked a question: the answer gains context · its score, in full.
    lift = explained[answer.id]["stages"]["context"]
    assert lift == pytest.approx(BASE.context * before[question], rel=1e-3)
    assert explained[answer.id]["score"] == pytest.approx(before[answer.id] + lift, rel=1e-3)


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
def test_explain_changes_no_rank_and_no_score(store, fusion: str) -> None:
    """The parts of each score are built only for a caller who asks for them; asking
    must not move a hit nor change its score."""
    store.remember_many(FILLER + COOKING)
    store.remember_many(EXCHANGE, sequence=True)
    now = datetime.now(UTC).timestamp()  # recency measured from one clock for both
    for stages in ((), None):
        ask = {"k": 12, "mode": "hybrid", "stages": stages, "touch": False, "fusion": fusion}
        ask["as_of"] = now
        quiet = store.recall(QUERY, **ask)
        told = store.recall(QUERY, explain=True, **ask)
        assert [(m.id, s) for m, s in quiet] == [(m.id, s) for m, s, _ in told]
        assert all("score" in e for _, _, e in told)


def test_context_stage_brings_neighbours_into_the_pool(store) -> None:
    store.remember_many(FILLER + COOKING)
    _, answer = store.remember_many(EXCHANGE, sequence=True)

    def gathered(stages: tuple[str, ...]):
        request = RecallRequest(QUERY, k=2, overfetch=1, mode="hybrid", stages=stages)
        return store.recaller.gather(store.recaller.prepare(request, params=BASE))

    plain, context = gathered(()), gathered(("context",))
    assert answer.id not in plain
    assert context[answer.id].context is True


def test_context_neighbours_respect_the_filters(store) -> None:
    store.remember_many(FILLER)
    items = [{"text": EXCHANGE[0], "tags": ["chat"]}, {"text": EXCHANGE[1]}]
    _, answer = store.remember_many(items, sequence=True)
    hits = store.recall(
        "which database for analytics events", k=5, mode="hybrid", tag="chat", touch=False
    )
    assert answer.id not in [m.id for m, _ in hits]  # untagged neighbour stays out


# ---------------------------------------------------------------- time and safety
STATUS = [
    ("Status of the billing service: it was still failing its load test.", 75),
    ("Status of the billing service: it passed the load test with a config fix.", 20),
    ("Status of the billing service: it shipped to all users.", 1),
]


def test_time_stage_ranks_the_memory_from_that_time(store) -> None:
    written = store.remember_many([t for t, _ in STATUS])
    _backdate(store, {m.id: AS_OF - d * DAY for m, (_, d) in zip(written, STATUS, strict=True)})
    for query, expected in (
        ("What was the status of the billing service yesterday?", 2),
        ("How was the billing service doing three weeks ago?", 1),
        ("What was the status of the billing service in March 2026?", 0),
        ("What was the first status of the billing service?", 0),
    ):
        hits = store.recall(query, k=3, mode="hybrid", as_of=AS_OF, touch=False, explain=True)
        assert hits[0][0].id == written[expected].id, query
        assert hits[0][2]["query"]["kind"] in ("temporal", "recency")


def test_dateless_memories_keep_their_order(store) -> None:
    """Memories all written "now": a time expression must not reshuffle them."""
    store.remember_many([t for t, _ in STATUS] + FILLER)
    query = "What was the status of the billing service last week?"
    plain = store.recall(query, k=5, mode="hybrid", stages=(), touch=False)
    timed = store.recall(query, k=5, mode="hybrid", stages=("query",), touch=False)
    assert [m.id for m, _ in timed] == [m.id for m, _ in plain]


def test_exact_tokens_raise_the_lexical_weight(store) -> None:
    store.remember_many(["ORN-4821 is blocked on legal review", "ORN-4812 is done"])
    (hit,) = store.recall(
        "what about ORN-4821", k=1, mode="hybrid", stages=("query",), explain=True, touch=False
    )
    (plain,) = store.recall("what about ORN-4821", k=1, mode="hybrid", stages=(), explain=True)
    assert hit[2]["weights"]["lexical"] == pytest.approx(2 * plain[2]["weights"]["lexical"])
    assert hit[2]["query"]["exact"] == ["ORN-4821"]


def test_names_boost_memories_tagged_with_them(store) -> None:
    a = store.remember("Went hiking on the weekend", tags=["Caroline"])
    b = store.remember("Went hiking on the weekend too", tags=["Melanie"])
    hits = store.recall(
        "Where did Caroline go hiking?", k=2, mode="hybrid", stages=("query",), explain=True
    )
    scores = {m.id: e for m, _, e in hits}
    assert scores[a.id]["stages"]["names"] > 0
    assert "names" not in scores[b.id]["stages"] or scores[b.id]["stages"]["names"] == 0


def test_prf_stage_is_explained_and_semantic_mode_is_untouched(store) -> None:
    store.remember_many(FILLER)
    hits = store.recall("analytics events", k=3, mode="hybrid", explain=True, touch=False)
    assert all("prf" in e["stages"] for _, _, e in hits)
    assert hits[0][2]["stages"]["active"] == [
        "query",
        "synonyms",
        "context",
        "lineage",
        "prf",
        "specific",
        "current",
        "entity",
        "aspect",
        "casing",
        "bridge",
    ]  # the defaults (ADR 0078, 0086, 0090, 0096, 0102, 0116)
    semantic = store.recall("analytics events", k=3, explain=True, touch=False)
    assert all("stages" not in e for _, _, e in semantic)


def test_setting_turns_the_stages_off(settings, embedder) -> None:
    from dataclasses import replace

    from houkai import MemoryStore

    off = MemoryStore(collection="t-stages-off", settings=replace(settings, recall_stages=""))
    try:
        off.remember_many(FILLER)
        (hit,) = off.recall("analytics events", k=1, mode="hybrid", explain=True, touch=False)
        assert "stages" not in hit[2]
    finally:
        off.drop()


# ---------------------------------------------------------------- bench data
def test_heldout_set_is_complete() -> None:
    data = heldout.load()
    ids = {m["id"] for m in data["memories"]}
    kinds = {q["kind"] for q in data["queries"]}
    assert kinds == set(heldout.KINDS)
    assert len(data["memories"]) >= 300 and len(data["queries"]) >= 150
    assert all(set(q["relevant"]) <= ids for q in data["queries"])


def test_locomo_split_selection() -> None:
    convs = [locomo.Conversation(str(i), [], []) for i in range(10)]
    assert [c.sample_id for c in locomo.select(convs, "0-4")] == ["0", "1", "2", "3", "4"]
    assert [c.sample_id for c in locomo.select(convs, "5,7")] == ["5", "7"]
    with pytest.raises(ValueError, match="out of range"):
        locomo.select(convs, "8-12")
