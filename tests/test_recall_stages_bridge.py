"""The ``bridge`` stage: the second hop of a question about someone it does not name
(ADR 0089). Small real-Redis collections, each larger than the stages' top candidates."""

from __future__ import annotations

from _dated import ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.recall.stages import default_names

WITHOUT = default_names()  # bridge is opt-in (ADR 0089)
WITH = (*WITHOUT, "bridge")


def test_the_memory_about_the_person_the_best_hit_names_comes_second(store: MemoryStore):
    nurse, *_ = write_dated(
        store,
        [
            ("Ines is a nurse at the city hospital and works night shifts.", 90),
            ("Tom works at Spotify; he prefers email.", 80),
            ("Mia from work is low-sodium now.", 70),
            ("Dana is allergic to peanuts.", 60),
            ("Dana works as a teacher at the primary school.", 50),
            *((text, 100 + i) for i, text in enumerate(OFFICE)),  # "Dana's partner is called Ines."
        ],
    )
    question = "What does Dana's partner do for work?"
    before = [mid for mid, _ in ranking(store, question, k=10, stages=WITHOUT)]
    ranked = ranking(store, question, k=10, stages=WITH)
    ids = [mid for mid, _ in ranked]
    assert before.index(nurse) > 1  # the question never names Ines
    assert ids.index(nurse) == 1  # right below "Dana's partner is called Ines."
    assert dict(ranked)[nurse]["stages"]["bridge"] > 0


def test_a_name_the_memory_only_mentions_in_passing_is_no_bridge(store: MemoryStore):
    slack, *_ = write_dated(
        store,
        [
            ("Marta prefers async updates in Slack; no calls before 10.", 160),
            ("Oakridge insists on Teams. We stay on Slack internally.", 115),
            ("Oakridge: contract signed, still waiting on access.", 120),
            ("Oakridge's build agent runs in their Azure DevOps.", 84),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # the best hit names Slack and lacks "prefer"; Marta's note holds both, but Slack is
    # what Marta uses, not whom the note is about
    question = "Which video tool does the Oakridge team prefer?"
    ranked = ranking(store, question, k=10, stages=WITH)
    assert slack in [mid for mid, _ in ranked]
    assert all("bridge" not in e.get("stages", {}) for _, e in ranked)


def test_turns_of_a_recorded_conversation_are_no_bridge(store: MemoryStore):
    turns = [
        "Dana's partner is called Ines, by the way.",
        "Ines is a nurse at the city hospital and works night shifts.",
        "Tom works at Spotify and prefers email.",
        "Dana is allergic to peanuts.",
        "Dana works as a teacher at the primary school.",
        *OFFICE[:6],
    ]
    written = store.remember_many(turns, sequence=True)  # each turn follows the one before
    # a chat names its people in every turn: a name shared by two turns is no second hop
    ranked = ranking(store, "What does Dana's partner do for work?", k=10, stages=WITH)
    assert written[1].id in [mid for mid, _ in ranked]
    assert all("bridge" not in e.get("stages", {}) for _, e in ranked)


def test_the_question_s_own_name_is_no_bridge_even_as_a_possessive(store: MemoryStore):
    partner, nurse, teacher, *_ = write_dated(
        store,
        [
            ("Yesterday Dana's partner Ines started her new job.", 90),
            ("Ines is a nurse at the city hospital and works night shifts.", 95),
            ("Dana works as a teacher at the primary school.", 50),
            ("Tom works at Spotify; he prefers email.", 80),
            *((text, 100 + i) for i, text in enumerate(OFFICE[:6])),
        ],
    )
    # the best hit names Dana (asked as "Dana's") and Ines; only Ines is a second hop
    ranked = ranking(store, "What does Dana's partner do for work?", k=10, stages=WITH)
    moved = [mid for mid, e in ranked if "bridge" in e.get("stages", {})]
    assert ranked[0][0] == partner
    assert teacher not in moved
    assert [mid for mid, _ in ranked].index(nurse) == 1
