"""Hybrid recall's keyword candidates under a postings budget (ADR 0053).

Past the budget only the rarest query terms *find* candidates; every pooled
memory is still scored over all terms with the same statistics, and below the
budget (any small collection) the query and the ranking are exactly as before.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from houkai.recall import candidates
from houkai.recall.parsed import read_query
from houkai.store import lexstats
from houkai.store.lexstats import TermStats, candidate_terms

TEXTS = [
    "Deploys of the billing service happen on Tuesday after the standup.",
    "The billing service stores invoices in Postgres.",
    "Zephyrine is the codename of the billing rewrite.",
    "The search service is deployed on Fridays.",
    "Invoices older than seven years are archived to cold storage.",
    "The standup moved to 9:30 because of the billing incident.",
    "Tuesday deploys need a second reviewer for the billing service.",
    "Cold storage costs are reviewed every quarter.",
]


def test_all_terms_under_the_budget_in_query_order():
    stats = TermStats(100, 1000, {"a": 5, "b": 50, "c": 1})
    assert candidate_terms(["b", "a", "c"], stats, budget=56) == ["b", "a", "c"]


def test_past_the_budget_the_rarest_terms_that_fit():
    stats = TermStats(10**6, 10**7, {"common": 90_000, "rare": 40, "mid": 4_000, "gone": 0})
    assert candidate_terms(["common", "rare", "mid", "gone"], stats, budget=5_000) == [
        "rare",
        "mid",
        "gone",
    ]
    # the rarest term always searches, even when it alone is over the budget
    assert candidate_terms(["common", "mid"], stats, budget=100) == ["mid"]


def _lexical_clauses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = candidates.search_args  # the keyword queries (the lexical leg and RM3) start there

    def spy(index: str, query: str, **kwargs: Any) -> Any:
        # with synonyms: ((@lex:(…))|(…)); under the recall's filter, which the rare-word
        # leg (asked without it, ADR 0113) does not carry
        if query.lstrip("(").startswith("@lex:") and "@sup:" in query:
            seen.append(query.split(")")[0])  # the terms, not the filters (they hold the time)
        return real(index, query, **kwargs)

    monkeypatch.setattr(candidates, "search_args", spy)
    return seen


def _ranking(store: Any, query: str, as_of: float) -> list[tuple[str, float, float, float]]:
    # one clock for every recall compared: the score's recency part would move with it
    hits = store.recall(query, k=8, mode="hybrid", touch=False, explain=True, as_of=as_of)
    return [(m.id, round(s, 6), e["lexical"], e["cosine"]) for m, s, e in hits]


def test_ranking_is_unchanged_below_the_budget(store, monkeypatch):
    store.remember_many([{"text": t} for t in TEXTS])
    clauses = _lexical_clauses(monkeypatch)
    query = "when do billing service deploys happen on tuesday"
    now = time.time()
    default = _ranking(store, query, now)
    monkeypatch.setattr(lexstats, "CANDIDATE_POSTINGS", 10**12)
    unlimited = _ranking(store, query, now)
    assert default == unlimited
    assert clauses[0] == clauses[-1]  # the same keyword query, every term in it
    assert all(term in clauses[0] for term in ("billing", "tuesday", "deploys"))


def test_past_the_budget_scores_stay_exact(store, monkeypatch):
    store.remember_many([{"text": t} for t in TEXTS])
    clauses = _lexical_clauses(monkeypatch)
    monkeypatch.setattr(lexstats, "CANDIDATE_POSTINGS", 1)  # only the rarest term searches
    hits = store.recall("billing zephyrine", k=8, mode="hybrid", touch=False, explain=True)
    assert "zephyrine" in clauses[-1] and "billing" not in clauses[-1]
    texts = {m.id: m.text for m, _, _ in hits}
    exact = lexstats.bm25_scores(["billing", "zephyrine"], texts, store.client, store.keys.lexstats)
    top = max(exact.values())
    for memory, _, explain in hits:  # every pooled memory scored over both terms
        assert explain["lexical"] == round(exact[memory.id] / top, 6)
    assert hits[0][0].text.startswith("Zephyrine")


def test_prefetched_statistics_give_the_same_scores(store):
    store.remember_many([{"text": t} for t in TEXTS])
    texts = {str(i): t for i, t in enumerate(TEXTS)}
    terms = ["billing", "storage", "tuesday", "absent"]
    stats = lexstats.term_stats(store.client, store.keys.lexstats, terms)
    assert stats.n_docs == len(TEXTS) and stats.df["absent"] == 0
    fresh = lexstats.bm25_scores(terms, texts, store.client, store.keys.lexstats)
    assert lexstats.bm25_scores(terms, texts, store.client, store.keys.lexstats, stats) == fresh


def _add_lexical(store: Any, pool: dict[str, Any], query: str) -> float:
    """The lexical leg of *query* (read once, as recall reads it) over *pool*, no vector."""
    read = read_query(store, query, time.time(), hybrid=True)
    assert read.stats is not None
    return candidates.add_lexical(store, pool, read.terms, read.stats, "*", 10, None)


def _served_and_serving(store: Any) -> tuple[str, str]:
    """Two memories sharing only the stem "serv": "served" and "serving"."""
    served, serving = store.remember_many(
        [
            {"text": "The request was served from the edge cache."},
            {"text": "Lunch is serving at noon."},
        ]
    )
    return served.id, serving.id


def test_keyword_candidates_match_exact_terms_not_stems(store):
    # BM25 counts exact tokens: a memory reached only through RediSearch's stem
    # expansion ("served" -> "serv" -> "serving") scores nothing for the term, and
    # walking the expansion cost several times the postings budget at 1M (ADR 0060).
    # (Two terms: a one-word query is a keyword lookup, scored over stems.)
    exact, stem_only = _served_and_serving(store)
    pool: dict[str, Any] = {}
    assert _add_lexical(store, pool, "served edge")
    assert set(pool) == {exact}
    assert pool[exact].lexical == 1.0 and stem_only not in pool


def test_a_question_scored_over_stems_finds_candidates_through_stems(store):
    # A question naming someone is scored over stems (ADR 0056), so the keyword query
    # keeps RediSearch's stem expansion: "serving" is a candidate for "served" and scores.
    # The name must be one the collection mentions (ADR 0061: an unseen name is no cue).
    served, serving = _served_and_serving(store)
    store.remember("Marguerite runs the cafe.")
    pool: dict[str, Any] = {}
    assert _add_lexical(store, pool, "What was served by Marguerite?")
    assert {served, serving} <= set(pool)
    assert pool[serving].lexical > 0
