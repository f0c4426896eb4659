"""The ``overlap`` stage (ADR 0107): the best keyword match counts in full only when it
holds enough of the question (by IDF); a match of one common word counts for its share of
a full match. BM25 and the normalisation need no Redis; the recalls run through a
real-Redis collection."""

from __future__ import annotations

import math

import pytest

from houkai.domain.model import Memory
from houkai.recall.candidates import Candidate, normalise_lexical
from houkai.recall.parsed import read_query
from houkai.recall.stages import default_names
from houkai.recall.synonyms import vocabulary
from houkai.store.lexstats import TermStats, bm25_scores, full_match_bm25

WITH = (*default_names(), "overlap")  # opt-in (ADR 0107)

TAXES = "Tax accountant: Priscilla Moy, CPA. The 2025 return is on extension."
PELICAN = "Pelican auto-extracts merchant, date, total and tax from a receipt photo."


def _stats(df: dict[str, int], n: int = 100) -> TermStats:
    return TermStats(n_docs=n, total_len=8 * n, df=df, stemmed=True)


def _idf(df: int, n: int = 100) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_a_full_match_weighs_each_question_term_once_at_the_average_length() -> None:
    stats = _stats({"tax": 4, "taxes": 4, "accountant": 1})
    full = full_match_bm25(["tax", "accountant"], stats)
    assert full == pytest.approx(_idf(4) + _idf(1))
    texts = {"a": "tax accountant " + "x " * 6}  # eight tokens: the average length
    scores = bm25_scores(["tax", "accountant"], texts, None, "k", stats)
    assert scores["a"] == pytest.approx(full)  # tf 1 at dl = avgdl scores exactly that
    # a question of two forms of one stem counts the stem once
    assert full_match_bm25(["taxes", "tax"], stats) == pytest.approx(_idf(4))
    # a synonym folds into its term's frequency, as BM25 folds it
    folded = _stats({"tax": 4, "levy": 2})
    assert full_match_bm25(["tax"], folded, {"tax": ("levy",)}) == pytest.approx(_idf(6))
    assert full_match_bm25(["tax", "unread"], stats) == 0.0  # statistics it lacks: no floor
    # a word no memory holds is part of a full match, with the largest IDF of all
    unseen = _stats({"tax": 4, "zqxwv": 0})
    assert full_match_bm25(["tax", "zqxwv"], unseen) == pytest.approx(_idf(4) + _idf(0))


def _pool(*bm25: float) -> dict[str, Candidate]:
    return {
        str(i): Candidate(memory=Memory(id=str(i), text=str(i)), bm25=b) for i, b in enumerate(bm25)
    }


def test_below_the_ceiling_the_best_match_scores_its_share() -> None:
    pool = _pool(1.0, 0.5, 0.0)
    # each call returns the best's lexical, what explain's stages.overlap is read from
    assert normalise_lexical(pool) == 1.0  # without a ceiling the best scores 1
    assert [c.lexical for c in pool.values()] == [1.0, 0.5, 0.0]
    assert normalise_lexical(pool, ceiling=4.0) == 0.25
    assert [c.lexical for c in pool.values()] == [0.25, 0.125, 0.0]
    assert normalise_lexical(pool, ceiling=0.5) == 1.0  # a best above the ceiling keeps 1
    assert [c.lexical for c in pool.values()] == [1.0, 0.5, 0.0]
    nothing = _pool(0.0, 0.0)
    assert normalise_lexical(nothing, ceiling=4.0) == 0.0
    assert [c.lexical for c in nothing.values()] == [0.0, 0.0]


#: Each holds one word of the wordy question below, so every word of it is one the
#: collection holds: the floor binds because the best match holds two of six.
FILLERS = [
    "Paperwork season for the household: receipts, forms and the return.",
    "Spring cleaning is on the calendar for April.",
    "Filing deadlines for the club are in March.",
    "Dad prepares lunches on Sundays.",
]
WORDY = "Which accountant prepares the household tax filing in spring?"


def _full_match_share(store, question: str, text: str) -> float:
    """*text*'s BM25 for *question* over a full match's, read as a default recall reads
    the question (synonyms folded)."""
    read = read_query(store, question, 0.0, hybrid=True, synonyms=vocabulary())
    assert read.stats is not None
    keys = store.core.keys
    scores = bm25_scores(
        read.terms, {"t": text}, store.core.client, keys.lexstats, read.stats, related=read.related
    )
    return scores["t"] / full_match_bm25(read.terms, read.stats, read.related)


def test_a_match_of_few_words_of_a_wordy_question_counts_for_its_share(store) -> None:
    store.remember_many([PELICAN, TAXES, *FILLERS])
    on = store.recall(WORDY, k=6, mode="hybrid", touch=False, explain=True, stages=WITH)
    off = store.recall(WORDY, k=6, mode="hybrid", touch=False, explain=True)  # defaults
    lexical_on = {m.text: info["lexical"] for m, _, info in on}
    lexical_off = {m.text: info["lexical"] for m, _, info in off}
    # the best match ("tax", "accountant") holds two of the question's six words
    share = _full_match_share(store, WORDY, TAXES)
    assert share < 0.4
    assert lexical_off[TAXES] == 1.0
    assert lexical_on[TAXES] == pytest.approx(share / 0.4, rel=1e-4)
    assert lexical_on[PELICAN] < lexical_off[PELICAN]
    # the ratio between two matches is BM25's either way
    ratio_on = lexical_on[PELICAN] / lexical_on[TAXES]
    assert ratio_on == pytest.approx(lexical_off[PELICAN] / lexical_off[TAXES], rel=1e-4)
    info = next(i for m, _, i in on if m.text == TAXES)
    assert info["stages"]["overlap"] == pytest.approx(share, abs=1e-4)
    assert "overlap" not in next(i for m, _, i in off if m.text == TAXES)["stages"]


def test_a_question_in_words_no_memory_holds_counts_its_matches_for_less(store) -> None:
    store.remember_many([PELICAN, TAXES, *FILLERS])
    (hit, *_) = store.recall(
        "tax accountant", k=2, mode="hybrid", touch=False, explain=True, stages=WITH
    )
    assert hit[0].text == TAXES  # every word held: the match is a full one
    assert hit[2]["lexical"] == 1.0 and "overlap" not in hit[2]["stages"]
    # the same match, for a question most of whose words no memory uses: worded away from
    # the memories, its keyword matches are weak evidence (ADR 0107)
    question = "tax accountant qualifications credentials licensing"
    (hit, *_) = store.recall(question, k=2, mode="hybrid", touch=False, explain=True, stages=WITH)
    assert hit[0].text == TAXES
    assert 0 < hit[2]["lexical"] < 1.0
    assert hit[2]["stages"]["overlap"] == pytest.approx(
        _full_match_share(store, question, TAXES), abs=1e-4
    )


def test_the_explained_share_is_the_pools_even_when_a_gate_drops_the_best(store) -> None:
    store.remember_many([PELICAN, TAXES, *FILLERS])
    full = store.recall(WORDY, k=6, mode="hybrid", touch=False, explain=True, stages=WITH)
    reached = next(i for m, _, i in full if m.text == TAXES)["stages"]["overlap"]
    cosine = {m.text: i["cosine"] for m, _, i in full}
    # a min_cosine that leaves the best keyword match out, and another match (the
    # paperwork note: one word, closer in meaning) in
    gate = cosine[TAXES] + 1e-6
    assert cosine[FILLERS[0]] > gate
    kept = store.recall(
        WORDY, k=6, mode="hybrid", touch=False, explain=True, stages=WITH, min_cosine=gate
    )
    assert TAXES not in {m.text for m, _, _ in kept}
    noted = [i["stages"]["overlap"] for _, _, i in kept if i["lexical"] > 0]
    assert noted and all(n == reached for n in noted)


def test_the_stage_leaves_the_plain_blend_alone(store) -> None:
    store.remember_many([PELICAN, TAXES, *FILLERS])
    plain = store.recall(WORDY, k=6, mode="hybrid", touch=False, explain=True, stages=())
    assert max(info["lexical"] for _, _, info in plain) == 1.0
    assert all("stages" not in info for _, _, info in plain)
