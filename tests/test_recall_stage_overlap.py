"""The ``overlap`` stage (ADR 0107): the best keyword match counts in full only when it
holds enough of the question (by IDF); a match of one common word counts for its share of
a full match. BM25 and the normalisation need no Redis; the recalls run through a
real-Redis collection."""

from __future__ import annotations

import math

import pytest

from houkai.domain.model import Memory
from houkai.domain.text import stem_tokens
from houkai.recall.candidates import Candidate, normalise_lexical
from houkai.recall.stages import default_names
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
    scores = bm25_scores(["tax", "accountant"], texts, None, "k", stats)  # type: ignore[arg-type]
    assert scores["a"] == pytest.approx(full)  # tf 1 at dl = avgdl scores exactly that
    # a question of two forms of one stem counts the stem once
    assert full_match_bm25(["taxes", "tax"], stats) == pytest.approx(_idf(4))
    # a synonym folds into its term's frequency, as BM25 folds it
    folded = _stats({"tax": 4, "levy": 2})
    assert full_match_bm25(["tax"], folded, {"tax": ("levy",)}) == pytest.approx(_idf(6))
    assert full_match_bm25(["tax", "unread"], stats) == 0.0  # statistics it lacks: no floor


def _pool(*bm25: float) -> dict[str, Candidate]:
    return {
        str(i): Candidate(memory=Memory(id=str(i), text=str(i)), bm25=b) for i, b in enumerate(bm25)
    }


def test_below_the_ceiling_the_best_match_scores_its_share() -> None:
    pool = _pool(1.0, 0.5, 0.0)
    assert normalise_lexical(pool)  # without a ceiling the best scores 1
    assert [c.lexical for c in pool.values()] == [1.0, 0.5, 0.0]
    assert normalise_lexical(pool, ceiling=4.0)
    assert [c.lexical for c in pool.values()] == [0.25, 0.125, 0.0]
    assert normalise_lexical(pool, ceiling=0.5)  # a best above the ceiling keeps 1
    assert [c.lexical for c in pool.values()] == [1.0, 0.5, 0.0]
    nothing = _pool(0.0, 0.0)
    assert not normalise_lexical(nothing, ceiling=4.0)
    assert [c.lexical for c in nothing.values()] == [0.0, 0.0]


def test_a_match_of_one_word_of_a_wordy_question_counts_for_its_share(store) -> None:
    store.remember_many([PELICAN, TAXES, "Groceries come on Saturdays."])
    question = "Which accountant prepares the household tax filing every spring?"
    on = store.recall(question, k=3, mode="hybrid", touch=False, explain=True, stages=WITH)
    off = store.recall(question, k=3, mode="hybrid", touch=False, explain=True)  # defaults
    lexical_on = {m.text: info["lexical"] for m, _, info in on}
    lexical_off = {m.text: info["lexical"] for m, _, info in off}
    # the best match ("tax", "accountant") holds two of six words: no full match
    assert lexical_off[TAXES] == 1.0
    assert 0 < lexical_on[TAXES] < 1.0
    assert lexical_on[PELICAN] < lexical_off[PELICAN]
    # the ratio between two matches is BM25's either way
    ratio_on = lexical_on[PELICAN] / lexical_on[TAXES]
    assert ratio_on == pytest.approx(lexical_off[PELICAN] / lexical_off[TAXES], rel=1e-4)
    info = next(i for m, _, i in on if m.text == TAXES)
    reached = info["stages"]["overlap"]  # the best BM25 over a full match's
    assert reached == pytest.approx(lexical_on[TAXES] * 0.4, abs=1e-4)
    assert "overlap" not in next(i for m, _, i in off if m.text == TAXES)["stages"]


def test_a_match_of_the_questions_words_keeps_its_full_score(store) -> None:
    store.remember_many([TAXES, PELICAN])
    on = store.recall("tax accountant", k=2, mode="hybrid", touch=False, explain=True, stages=WITH)
    assert on[0][0].text == TAXES
    assert on[0][2]["lexical"] == 1.0 and "overlap" not in on[0][2]["stages"]


def test_the_stage_leaves_the_plain_blend_alone(store) -> None:
    store.remember_many([PELICAN, TAXES])
    question = "Which accountant prepares the household tax filing every spring?"
    plain = store.recall(question, k=2, mode="hybrid", touch=False, explain=True, stages=())
    assert max(info["lexical"] for _, _, info in plain) == 1.0
    assert len(stem_tokens(question)) > 2
