"""The stages of ADR 0051: a question rarely answers a question; episodes hang together.

* ``asks`` (query stage): a memory that is itself a question ("What movies do
  you like?") loses ``asks``; it shares the question's words, not its answer.
* ``episode`` (context stage): for a question naming someone, the turns of a
  recorded exchange written in one episode (no gap over ``episode_gap``) share
  their best member's standing: ``+ episode · (episode's best − overall best)``.
  A collection written all at once is one episode: nothing moves. Notes that
  follow no other memory are no session of talk: nothing moves either (ADR 0086).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest
from _recall_ctx import apply

from houkai.bench import locomo
from houkai.domain.model import Memory
from houkai.recall.candidates import Candidate
from houkai.recall.stages.params import BASE

AS_OF = 1_780_000_000.0
DAY = 86_400.0
QUIET = replace(BASE, names=0.0, prf=0.0, context=0.0, context_next=0.0, answer_time=0.0)


@pytest.fixture
def store(make_store):
    return make_store()


def _cand(mid: str, text: str, score: float, created_at: float = AS_OF) -> Candidate:
    memory = Memory(id=mid, text=text, created_at=created_at, last_accessed=created_at)
    return Candidate(memory=memory, score=score)


def _apply(cands, active, question: str | None, params) -> None:
    apply(cands, active, question, AS_OF, params)
    cands.sort(key=lambda c: -c.score)


# ---------------------------------------------------------------- asks
def test_a_question_ranks_below_the_statement_that_answers() -> None:
    asks = _cand("q", "Nate: What movies have you seen lately?", 0.70)
    tells = _cand("s", "Joanna: I watched Little Women last night.", 0.65)
    cands = [asks, tells]
    _apply(cands, ("query",), "What movies has Joanna seen?", replace(QUIET, asks=0.1))
    assert [c.memory.id for c in cands] == ["s", "q"]
    assert asks.score == pytest.approx(0.60)
    assert asks.explain["stages"]["asks"] == pytest.approx(-0.1)
    assert "asks" not in tells.explain["stages"]
    # Without the query stage (no parse) nothing moves.
    again = [_cand("q", asks.memory.text, 0.70), _cand("s", tells.memory.text, 0.65)]
    _apply(again, ("context",), None, replace(QUIET, asks=0.1))
    assert [c.memory.id for c in again] == ["q", "s"]


def test_the_question_still_lends_its_answer_context() -> None:
    """The penalty comes after the smoothing: the answer after a question keeps its lift."""
    from houkai.domain.model import Link

    question = _cand("q", "Any tips on time management?", 0.80)
    answer = _cand("a", "Use a planner.", 0.40)
    answer.memory.links = [Link(to="q", rel="follows")]
    cands = [question, answer]
    _apply(
        cands, ("query", "context"), "time management tips", replace(QUIET, asks=0.1, context=0.3)
    )
    assert answer.explain["stages"]["context"] == pytest.approx(0.3 * 0.80)
    assert question.score == pytest.approx(0.70)


# ---------------------------------------------------------------- episode
def _episodes(recorded: bool = True) -> list[Candidate]:
    """Two sessions of a chat (each turn ``follows`` the one before), or the same lines as
    an agent's separate notes (*recorded* false)."""
    from houkai.domain.model import Link

    old = AS_OF - 30 * DAY
    cands = [
        _cand("best", "Tim: I finished The Name of the Wind.", 0.90, old),
        _cand("same", "Tim: My book collection keeps growing.", 0.60, old + 600),
        _cand("stray", "Tim: Reading is a nice way to relax.", 0.70, AS_OF),
        _cand("stray2", "Tim: I love a good story.", 0.50, AS_OF + 60),
    ]
    if recorded:
        for before, after in pairwise(cands):
            after.memory.links = [Link(to=before.memory.id, rel="follows")]
    return cands


def test_episode_prior_keeps_the_best_hits_episode_together() -> None:
    cands = _episodes()
    _apply(cands, ("query", "context"), "What books has Tim read?", replace(QUIET, episode=0.5))
    by_id = {c.memory.id: c for c in cands}
    assert [c.memory.id for c in cands] == ["best", "same", "stray", "stray2"]
    # the other episode's best (0.70) is 0.20 below the top: both its members drop 0.5 × 0.20
    assert by_id["stray"].explain["stages"]["episode"] == pytest.approx(-0.1)
    assert by_id["stray2"].score == pytest.approx(0.40)
    assert "episode" not in by_id["best"].explain["stages"]
    assert "episode" not in by_id["same"].explain["stages"]


def test_episode_prior_needs_a_named_question_and_two_episodes() -> None:
    plain = _episodes()
    _apply(plain, ("query", "context"), "what books were read", replace(QUIET, episode=0.5))
    assert [c.memory.id for c in plain] == ["best", "stray", "same", "stray2"]
    assert all("episode" not in c.explain["stages"] for c in plain)
    dateless = [_cand(c.memory.id, c.memory.text, c.score) for c in _episodes()]
    for c, turn in zip(dateless, _episodes(), strict=True):
        c.memory.links = turn.memory.links
    _apply(dateless, ("query", "context"), "What books has Tim read?", replace(QUIET, episode=0.5))
    assert [c.memory.id for c in dateless] == ["best", "stray", "same", "stray2"]
    assert all("episode" not in c.explain["stages"] for c in dateless)


def test_episode_prior_reads_no_episode_into_notes_written_on_one_day() -> None:
    """An agent's notes that share a day are not about one thing: without a recorded
    exchange in the pool the prior stays off, whatever the dates say."""
    notes = _episodes(recorded=False)
    _apply(notes, ("query", "context"), "What books has Tim read?", replace(QUIET, episode=0.5))
    assert [c.memory.id for c in notes] == ["best", "stray", "same", "stray2"]
    assert all("episode" not in c.explain["stages"] for c in notes)


# ---------------------------------------------------------------- through recall
JOANNA = [
    {"text": "Joanna: I watched Little Women and loved the story.", "tags": ["Joanna"]},
    {"text": "Joanna: Which movies would you recommend to me?", "tags": ["Joanna"]},
    {"text": "Joanna: Movies are my favourite way to unwind.", "tags": ["Joanna"]},
]


def _joanna(store, sequence: bool) -> tuple[list[str], dict[str, dict]]:
    written = store.remember_many(JOANNA, sequence=sequence)
    locomo.backdate(store, {written[0].id: AS_OF - 40 * DAY, written[1].id: AS_OF - 40 * DAY})
    hits = store.recall(
        "What movies has Joanna watched?",
        k=3,
        mode="hybrid",
        as_of=AS_OF,
        explain=True,
        touch=False,
    )
    return [m.id for m in written], {m.id: e["stages"] for m, _, e in hits}


def test_recall_explains_asks_and_episode(store) -> None:
    # a recorded chat (each turn follows the one before) in two sessions, 40 days apart
    ids, stages = _joanna(store, sequence=True)
    assert stages[ids[1]]["asks"] == pytest.approx(-BASE.asks)
    # the recent session's turn, lifted by the question before it (an answer follows its
    # question), holds the best score: the older session's turns share a lower standing
    assert "episode" not in stages[ids[2]]
    assert stages[ids[0]]["episode"] < 0 and stages[ids[1]]["episode"] < 0
    plain = store.recall(
        "What movies has Joanna watched?", k=3, mode="hybrid", as_of=AS_OF, stages=(),
        explain=True, touch=False,
    )  # fmt: skip
    assert all("stages" not in e for _, _, e in plain)


def test_recall_reads_no_episode_into_separate_notes(make_store) -> None:
    ids, stages = _joanna(make_store(), sequence=False)
    assert next(iter(stages)) == ids[0]  # the answer first
    assert stages[ids[1]]["asks"] == pytest.approx(-BASE.asks)
    assert all("episode" not in s for s in stages.values())
