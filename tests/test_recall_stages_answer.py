"""The stages that read what kind of answer a question wants (ADR 0043).

* ``answer_time``: a "when" question favours memories that say when something
  happened ("last week", "in May"), not only ones that share its words.
* directional ``context``: an answer follows its question, so a turn is lifted
  by the score of a previous turn that asked a question (half as much by one
  that did not), and by ``context_next`` times its next turn.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from _recall_ctx import apply

from houkai.domain.model import Link, Memory
from houkai.recall.candidates import Candidate
from houkai.recall.query import parse_query, states_time
from houkai.recall.stages.context import smooth_with_neighbours
from houkai.recall.stages.params import BASE

AS_OF = 1_780_000_000.0


def test_states_time_ignores_a_leading_date_stamp() -> None:
    assert states_time("Lost my job last week, it has been rough.")
    assert states_time("We moved in May, finally.")
    assert states_time("Back in 2019 I ran my first marathon.")
    assert not states_time("[8 May 2023] Evan: The company downsized and I was part of that.")
    assert states_time("[8 May 2023] Evan: I lost my job two weeks ago.")


def test_states_time_reads_the_dates_and_times_of_an_agents_notes() -> None:
    """An agent writes a day of a month, a clock time or a weekday, not "last week"."""
    for text in (
        "Tom was born on 2 November; send a card a week ahead.",
        "Osprey launch moved to January 12.",
        "Renewal moved to Sept 15, procurement asked for time.",
        "Cobalt signed Oct 20th, three weeks late.",
        "Move my daily summary to 9:00, I do the school drop-off now.",
        "Product review is Thursdays at 1pm now, in person.",
        "Oakhurst biweekly call: Mondays 10am PT.",
        "Lunch with Priya at noon.",
    ):
        assert states_time(text), text
    for text in (
        "The vet put Biscuit on i/d Low Fat, 3/4 cup twice a day.",
        "Weekly 1:1 with Amara, bring the roadmap.",
        "The meeting may run long, 5 may join late.",
        "Pemberton runs on Postgres 16 with 3 replicas.",
    ):
        assert not states_time(text), text


def _cand(mid: str, text: str, score: float, previous: str | None = None) -> Candidate:
    links = [Link(to=previous, rel="follows")] if previous else []
    c = Candidate(memory=Memory(id=mid, text=text, links=links), score=score)
    return c


def test_answer_time_lifts_memories_that_say_when() -> None:
    parse = parse_query("When did Evan lose his job?", AS_OF)
    assert parse.when_question
    undated = _cand("a", "Evan: I lost my job, the company downsized.", 0.60)
    dated = _cand("b", "Evan: I lost my job last month.", 0.55)
    params = replace(BASE, answer_time=0.1, names=0.0, prf=0.0, context=0.0, context_next=0.0)
    cands = [undated, dated]
    apply(cands, ("query",), "When did Evan lose his job?", AS_OF, params)
    assert dated.score == pytest.approx(0.65) and undated.score == pytest.approx(0.60)
    assert dated.explain["stages"]["answer_time"] == pytest.approx(0.1)
    assert undated.explain["stages"].get("answer_time", 0) == 0
    # Not a "when" question: nothing moves.
    again = [_cand("a", undated.memory.text, 0.60), _cand("b", dated.memory.text, 0.55)]
    apply(again, ("query",), "Why did Evan lose his job?", AS_OF, params)
    assert [c.score for c in again] == [0.60, 0.55]


def test_context_lifts_the_turn_after_a_question_more_than_after_a_statement() -> None:
    question = _cand("q", "Any tips on studying or time management?", 0.80)
    answer = _cand("a", "Break it into smaller pieces and use a planner.", 0.40, previous="q")
    statement = _cand("s", "I have been studying a lot lately.", 0.80)
    reply = _cand("r", "Break it into smaller pieces and use a planner!", 0.40, previous="s")
    cands = [question, answer, statement, reply]
    smooth_with_neighbours(cands, 0.3, 0.0)
    assert answer.score == pytest.approx(0.40 + 0.3 * 0.80)
    assert reply.score == pytest.approx(0.40 + 0.5 * 0.3 * 0.80)
    assert answer.explain["stages"]["context"] == pytest.approx(0.24)
    assert "stages" not in question.explain  # context_next is 0: the question is not lifted


def test_context_next_lifts_a_turn_by_its_follower() -> None:
    first = _cand("f", "What did you think of the film?", 0.30)
    second = _cand("n", "Loved it, the score was great.", 0.90, previous="f")
    smooth_with_neighbours([first, second], 0.0, 0.1)
    assert first.score == pytest.approx(0.30 + 0.09)
    assert second.score == pytest.approx(0.90)


def test_answer_time_through_recall_is_explained(store) -> None:
    store.remember_many(
        [
            "Evan: the company downsized and I lost my job, it is rough.",
            "Evan: I lost my job three weeks ago, the company downsized.",
        ]
    )
    hits = store.recall(
        "When did Evan lose his job?", k=2, mode="hybrid", stages=("query",), explain=True
    )
    assert "lost my job three weeks ago" in hits[0][0].text
    assert hits[0][2]["stages"]["answer_time"] > 0
    assert hits[0][2]["query"]["when_question"] is True
