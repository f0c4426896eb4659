"""ADR 0061: RM3 as a second lexical candidate query, and names the collection never
mentions are no lexical cue (no stems, no lexical boost)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from houkai import MemoryStore
from houkai.recall import lexical_feedback
from houkai.recall.request import RecallRequest
from houkai.recall.stages.params import BASE

#: The stages with knobs in these tests (``current``/``entity`` would re-rank the pool).
STAGES = ("query", "context", "prf", "specific")

FILLER = [
    "Anna enjoys novels and poems",
    "Sam borrowed three novels from the library",
    "Lee writes poems about the sea",
    "The library opens at nine",
    "Kim likes magazines about cars",
] + [f"The weather on day {i} was mild and grey" for i in range(60)]
# The question's words find the first two; only "Zorbel" (rare, in both top hits) leads to
# the third, which shares no word with the question and sits far from it in meaning.
BOOKS = [
    "Tim said his favourite book is Zorbel",
    "Tim read a book about Zorbel on the train",
    "The Zorbel cover has a dragon and a map",
]
QUERY = "What books has Tim read?"


@pytest.fixture()
def library(store: MemoryStore) -> MemoryStore:
    store.remember_many(BOOKS + FILLER)
    return store


def _prepared(store: MemoryStore, stages: tuple[str, ...], params=BASE, size: int = 2):
    """A hybrid recall of QUERY set up and gathered through the public steps (pool = size)."""
    request = RecallRequest(
        QUERY, k=size, overfetch=1, mode="hybrid", stages=stages, touch=False, explain=True
    )
    ctx = store.recaller.prepare(request, params=params)
    return ctx, store.recaller.gather(ctx)


def _pool(store: MemoryStore, stages: tuple[str, ...], params=BASE, size: int = 2):
    ctx, pool = _prepared(store, stages, params, size)
    return pool, ctx.lexical_active


def test_expansion_takes_rare_words_of_the_top_hits_not_the_question_words(
    library, monkeypatch
) -> None:
    exp = lexical_feedback.expansion(
        library.client, library.keys.lexstats, ["books", "tim", "read"], BOOKS[:2], 3
    )
    assert exp.terms == ["zorbel"]  # "train", "favourite": in no other memory, find nothing
    none = lexical_feedback.expansion(
        library.client, library.keys.lexstats, ["x"], BOOKS[:2], n_terms=0
    )
    assert none.terms == []
    monkeypatch.setattr(lexical_feedback, "RM3_POSTINGS", 2)  # "zorbel" has 3 postings
    bounded = lexical_feedback.expansion(
        library.client, library.keys.lexstats, ["books", "tim", "read"], BOOKS[:2], 3
    )
    assert bounded.terms == []  # the expansion query never walks past its budget


# Without the specificity prior, which would scale the RM3 share it is checked against.
RM3_STAGES = tuple(s for s in STAGES if s != "specific")


def _scored(store: MemoryStore, params, size: int = 2):
    ctx, pool = _prepared(store, RM3_STAGES, params, size)
    cands = store.recaller.score(ctx, list(pool.values()))
    return pool, {c.memory.id: c for c in cands}


def test_rm3_brings_in_a_candidate_the_question_could_not_find(library) -> None:
    third = next(m for batch in library.iter_memories() for m in batch if m.text == BOOKS[2])
    off, _ = _pool(library, STAGES, replace(BASE, rm3_terms=0))
    assert third.id not in off
    without_prf, _ = _pool(library, ("query", "context"))
    assert third.id not in without_prf  # RM3 belongs to the prf stage
    pool, scored = _scored(library, replace(BASE, rm3_weight=0.0))
    assert pool[third.id].rm3 == ("zorbel",)
    explained = scored[third.id].explain["stages"]
    assert explained["rm3_candidate"] == ["zorbel"]  # explain says why it is in the pool
    assert "rm3" not in explained  # found, but not scored by the expansion


def test_rm3_weight_lifts_what_holds_the_expansion(library) -> None:
    """``+ rm3_weight · share of the expansion``: the memory holding "Zorbel" gains."""
    third = next(m for batch in library.iter_memories() for m in batch if m.text == BOOKS[2])
    _, plain = _scored(library, replace(BASE, rm3_weight=0.0), size=8)
    _, lifted = _scored(library, replace(BASE, rm3_weight=0.2), size=8)
    gain = lifted[third.id].explain["stages"]["rm3"]
    assert gain == pytest.approx(0.2)  # it holds the whole expansion
    # scores past 0.9 are folded into (0.9, 1) (ranks unchanged): compare them unbounded
    lifted_score = lifted[third.id].explain.get("unbounded_score", lifted[third.id].score)
    plain_score = plain[third.id].explain.get("unbounded_score", plain[third.id].score)
    assert lifted_score == pytest.approx(plain_score + gain, abs=1e-4)
    others = [c for c in lifted.values() if "zorbel" not in c.memory.text.lower()]
    assert others  # the pool holds memories without the expansion word ...
    assert all(c.explain["stages"].get("rm3", 0.0) == 0.0 for c in others)  # ... and they gain 0


def test_a_name_the_collection_never_mentions_is_no_lexical_cue(store: MemoryStore) -> None:
    store.remember_many(
        [
            "The staging database is restored from a snapshot every night.",
            "Release notes are drafted by the product manager.",
            "The production cluster has twelve nodes.",
        ]
    )
    query = "How often does the pre-production Postgres get reset?"
    hits = store.recall(query, k=3, mode="hybrid", explain=True, touch=False)
    parsed = hits[0][2]["query"]
    assert parsed["names"] == ["Postgres"] and parsed["names_unseen"] == ["Postgres"]
    assert "stems" not in parsed  # exact tokens: "production" does not match "product"
    by_text = {m.text: e for m, _, e in hits}
    assert by_text["Release notes are drafted by the product manager."]["lexical"] == 0.0
    assert hits[0][2]["weights"]["lexical"] == pytest.approx(BASE.lexical)  # no name boost
    store.remember("The Postgres team meets on Mondays.")
    seen = store.recall(query, k=3, mode="hybrid", explain=True, touch=False)[0][2]
    assert "names_unseen" not in seen["query"] and seen["query"]["stems"] is True
    assert seen["weights"]["lexical"] == pytest.approx(BASE.lexical * BASE.lexical_names)


def test_the_rm3_share_is_weighted_and_relative_to_the_best_holder() -> None:
    exp = lexical_feedback.Expansion(
        terms=["zorbel", "dragons"], weights={"zorbel": 2.0, "dragons": 1.0}
    )
    shares = exp.scores({"both": "Zorbel has a dragon", "one": "Dragons!", "none": "a map"})
    assert shares == {"both": 1.0, "one": pytest.approx(1 / 3), "none": 0.0}
    alone = exp.scores({"one": "Dragons!", "none": "a map"})
    assert alone["one"] == 1.0  # the best holder scores 1, whatever it holds


def test_a_sequence_neighbour_gets_its_share_of_the_expansion(store: MemoryStore) -> None:
    """The context round runs after RM3: the neighbours it brings in are scored by the
    expansion too, like every other candidate of the final pool."""
    store.remember_many(FILLER)
    written = store.remember_many(BOOKS, sequence=True)  # the cover follows the train ride
    cover = written[2]
    params = replace(BASE, rm3_limit=0, rm3_weight=0.2)  # the RM3 query itself adds nothing
    pool, scored = _scored(store, params)
    assert pool[cover.id].context  # brought in as the train ride's next turn ...
    assert pool[cover.id].rm3 == ()  # ... not by the expansion query
    assert scored[cover.id].explain["stages"]["rm3"] == pytest.approx(0.2)
