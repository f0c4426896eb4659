"""The ``specific`` stage (ADR 0068): a prior for memories that say something concrete."""

from __future__ import annotations

import pytest

from houkai import MemoryStore
from houkai.store.specificity import specificity as shares
from houkai.store.specificity import words_of


def test_names_are_inner_capitalised_words_not_dates_or_sentence_starts():
    names, words = words_of(
        "[8 May 2023] Tim: Thanks! I read The Name of the Wind by Patrick Rothfuss on Monday."
    )
    assert names == {"name", "wind", "patrick", "rothfuss"}  # not Tim (after the stamp),
    # Thanks (the text's start after "Tim: "), I, May (the stamp), Monday (a weekday)
    assert {"patrick", "rothfuss", "read", "wind", "monday"} <= words
    assert "the" not in words and "by" not in words  # stop words and short words are not counted


def test_shares_count_rare_names_and_rare_words_capped_at_three():
    chatty = words_of("Sounds great, see you soon!")
    concrete = words_of("We moved the Zorbel cluster to Frankfurt after the Okapi outage.")
    df = {"sounds": 40, "great": 60, "see": 50, "soon": 30, "zorbel": 1, "frankfurt": 2,
          "okapi": 1, "cluster": 9, "moved": 12, "outage": 3}  # fmt: skip
    (c_names, c_rare), (k_names, k_rare) = shares([chatty, concrete], df, n_docs=100)
    assert (c_names, c_rare) == (0.0, 0.0)
    assert k_names == 1.0  # Zorbel, Frankfurt, Okapi: at most 10 % of the memories use each
    assert k_rare == 1.0  # zorbel, frankfurt, okapi, outage: four rare words, capped at three
    common = {**df, "frankfurt": 11}  # a name more than 10 memories in 100 use is common
    assert shares([concrete], common, n_docs=100)[0][0] == pytest.approx(2 / 3)
    # In a small collection a name is common past four memories, as a word is rare up to four.
    assert shares([concrete], df, n_docs=3)[0][0] == 1.0
    busier = {**df, "zorbel": 5, "okapi": 5}
    assert shares([concrete], busier, n_docs=6)[0][0] == pytest.approx(1 / 3)


@pytest.fixture()
def chat(store: MemoryStore) -> MemoryStore:
    store.remember_many(
        [
            "Tim: I love reading books, they are great, books are the best thing.",
            "Tim: Books are great, I love books and reading books every day.",
            "Tim: I finished The Name of the Wind by Patrick Rothfuss last week.",
        ]
        + [f"Tim: The weather on day {i} was mild and the tea was fine." for i in range(30)]
    )
    return store


def test_a_command_written_as_code_counts_as_a_rare_name(store: MemoryStore):
    from houkai.store.specificity import CODE_MARK, FREQUENCIES

    howto = "Run `make test-shipments` first; it needs `docker compose up -d postgres`. Use `5`."
    names, words = words_of(howto)
    assert {n for n in names if n.startswith(CODE_MARK)} == {
        "`make test-shipments",
        "`docker compose up -d postgres",
    }  # "`5`" is a number
    assert shares([(names, words)], {}, n_docs=100)[0][0] == pytest.approx(2 / 3)
    # a span is rare by construction: no frequency is asked for it, whatever the collection
    store.remember_many([howto, "shipments-api listens on port 8000 locally"])
    (named, _), (plain_named, _) = FREQUENCIES.priors(
        store.client, store.keys.lexstats, [howto, "shipments-api listens on port 8000 locally"]
    )
    assert named == pytest.approx(2 / 3) and plain_named == 0.0


def test_the_specific_memory_gains_in_proportion_to_its_score(chat: MemoryStore):
    hits = chat.recall("Which books has Tim read?", k=5, mode="hybrid", explain=True)
    by_text = {m.text: (score, e) for m, score, e in hits}
    score, explained = by_text[
        "Tim: I finished The Name of the Wind by Patrick Rothfuss last week."
    ]
    assert "specific" in explained["stages"]["active"]
    gain = explained["stages"]["specific"]
    score = explained.get("unbounded_score", score)  # the gain is reported before bounding
    assert 0 < gain < score
    # score × (1 + 0.25 · names + 0.15 · rare): names and rare words both at their cap
    assert gain == pytest.approx((score - gain) * 0.40, rel=1e-4)
    for text, (_, e) in by_text.items():
        if "Rothfuss" not in text:
            assert e["stages"].get("specific", 0.0) < gain


def test_the_stage_is_switchable(chat: MemoryStore):
    hits = chat.recall(
        "Which books has Tim read?", k=5, mode="hybrid", explain=True,
        stages=("query", "context", "prf"),
    )  # fmt: skip
    assert all("specific" not in e["stages"] for _, _, e in hits)
    assert all("specific" not in e["stages"]["active"] for _, _, e in hits)


def test_reading_only_what_can_reach_the_top_k_changes_nothing_there(chat: MemoryStore):
    """With a depth, candidates too weak to reach it are skipped, exactly."""
    import copy
    import random

    from houkai.recall.candidates import Candidate
    from houkai.recall.stages.specific import specificity_prior

    memories = [m for batch in chat.iter_memories() for m in batch]
    rng = random.Random(5)
    pool = [Candidate(memory=m, score=rng.uniform(-0.2, 1.0)) for m in memories]
    rothfuss = next(c for c in pool if "Rothfuss" in c.memory.text)
    rothfuss.score = sorted(c.score for c in pool)[-4] * 0.9  # fifth or so: can still rise
    every, some = copy.deepcopy(pool), copy.deepcopy(pool)
    specificity_prior(chat, every, 0.25, 0.15)
    specificity_prior(chat, some, 0.25, 0.15, depth=3)

    def top(cands):
        return [(c.memory.id, round(c.score, 9)) for c in sorted(cands, key=lambda c: -c.score)][:3]

    assert top(some) == top(every)
    assert rothfuss.memory.id in [mid for mid, _ in top(every)]  # the prior decided the top 3
    skipped = [c for c in some if "specific" not in c.explain.get("stages", {})]
    assert len(skipped) > len(pool) // 2  # most of the pool was never read


def test_frequencies_are_reused_for_a_minute_and_forgotten_by_nuke(store: MemoryStore):
    from houkai.store.specificity import FREQUENCIES

    store.remember_many(["Zorbel moved to Frankfurt", "Okapi stayed home"])
    df, n_docs = FREQUENCIES.read(store.client, store.keys.lexstats, ["zorbel", "okapi"])
    assert (df["zorbel"], n_docs) == (1, 2)
    store.remember("Zorbel came back")
    again, _ = FREQUENCIES.read(store.client, store.keys.lexstats, ["zorbel"])
    assert again["zorbel"] == 1  # remembered, not read again (a prior may be a minute stale)
    store.nuke()
    fresh, n_docs = FREQUENCIES.read(store.client, store.keys.lexstats, ["zorbel"])
    assert (fresh["zorbel"], n_docs) == (0, 0)  # the emptied collection is read afresh


def test_each_texts_counts_live_as_long_as_the_frequencies_they_were_counted_with(
    store: MemoryStore, monkeypatch
):
    from houkai.store import specificity
    from houkai.store.specificity import Frequencies

    clock = [1000.0]
    monkeypatch.setattr(specificity.time, "monotonic", lambda: clock[0])
    text = "Met Theo about the Zephyr rollout plan"
    store.remember_many([text, "Okapi stayed home", "Lunch was late"])
    frequencies, key = Frequencies(), store.keys.lexstats
    first = frequencies.priors(store.client, key, [text])
    assert first[0][1] > 0  # "zephyr", "rollout": rare words in a small collection
    # five more memories make its words common; within the minute the counts stand
    store.remember_many([f"Zephyr rollout plan, step {i}" for i in range(5)])
    assert frequencies.priors(store.client, key, [text]) == first
    # a minute on, the texts met before are counted again, with the new frequencies
    clock[0] += specificity.FREQUENCIES_TTL + 1
    later = frequencies.priors(store.client, key, [text])
    assert later[0][1] < first[0][1]
    assert later == specificity.specificity(
        [words_of(text)], *Frequencies().read(store.client, key, words_of(text)[1])
    )
    # what a window counted is never kept by the next one, nor after forget()
    frequencies.forget(key)
    assert frequencies.priors(store.client, key, [text]) == later
    long_text = "Zephyr " + "words " * 500
    frequencies.priors(store.client, key, [long_text])
    assert long_text not in frequencies._windows[key].priors  # as long as a stem cache entry


def test_hybrid_scores_stay_in_zero_to_one_with_the_prior_and_keep_their_order(
    chat: MemoryStore,
):
    """A memory's own words score it near 1 before the prior; × (1 + 0.40) took it to 1.4,
    past the seed's documented [0, 1]. Scores past 0.9 are now folded into (0.9, 1)."""
    text = "Tim: I finished The Name of the Wind by Patrick Rothfuss last week."
    hits = chat.recall(text, k=10, mode="hybrid", explain=True)
    scores = [s for _, s, _ in hits]
    assert hits[0][0].text == text
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert hits[0][2]["unbounded_score"] > 1  # the prior did lift the best past 1
