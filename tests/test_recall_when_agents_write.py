"""A question that asks when lifts the notes that state a time in the words agents write
it ("Mondays at 11:00", "2 November", "Sept 15"), as it lifts "last week" or a year, and
not a note that states none (ADR 0104). Each collection is larger than the stages' ten
top candidates."""

from __future__ import annotations

from _dated import ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore


def _lifted(store: MemoryStore, question: str) -> dict[str, float]:
    """Each hit's ``answer_time`` lift, by id (0 for none)."""
    return {
        mid: explain["stages"].get("answer_time", 0.0)
        for mid, explain in ranking(store, question, k=10)
    }


def test_a_weekday_and_a_clock_time_say_when(store: MemoryStore) -> None:
    weekly, notes, title, *_ = write_dated(
        store,
        [
            ("Amara and I meet Mondays at 11:00, weekly.", 60),
            ("My 1:1 notes with Amara from 2024 are in the shared doc.", 120),
            ("Amara Nwosu is the Director of Product.", 200),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    lifted = _lifted(store, "When is my 1:1 with Amara?")
    assert lifted[weekly] > 0 and lifted[notes] > 0  # a weekday and a clock time, a year
    assert lifted[title] == 0
    assert next(iter(lifted)) == weekly


def test_a_day_of_a_month_says_when(store: MemoryStore) -> None:
    born, moved, party, *_ = write_dated(
        store,
        [
            ("Marisol turns 40 on 2 November; send a card a week ahead.", 120),
            ("Marisol's renewal at the climbing gym moved to Sept 15.", 80),
            ("Marisol's favourite restaurant is Cervejaria Ramiro.", 150),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    lifted = _lifted(store, "When is Marisol's birthday?")
    assert lifted[born] > 0 and lifted[moved] > 0
    assert lifted[party] == 0
    # not a question that asks when: no lift at all
    assert not any(_lifted(store, "What does Marisol like?").values())
