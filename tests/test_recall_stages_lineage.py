"""The ``lineage`` stage: a superseded memory that matches the question passes its match
to the live memory that replaced it. Small real-Redis collections, each larger than the
stages' top candidates."""

from __future__ import annotations

from _dated import ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.recall.stages import default_names, lineage
from houkai.store.lexstats import term_stats

WITH = default_names()
WITHOUT = tuple(s for s in WITH if s != "lineage")
QUESTION = "Which time tracking tool are we using at the moment?"
NOISE = [
    ("Timesheets are due every Friday by 17:00.", 30),
    ("Client calls are scheduled in CET.", 25),
    ("The new laptop tool bag is in the supply cupboard.", 20),
]


def _switch(store: MemoryStore, supersede: bool = True) -> tuple[str, str]:
    old, new, *_ = write_dated(
        store,
        [
            ("We're switching time tracking from Harvest to Toggl Track in July.", 150),
            ("Back to Harvest from November: Toggl couldn't push hours into our invoices.", 40),
            *NOISE,
            *((text, 100 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    if supersede:
        store.supersede(old, new)
    return old, new


def test_the_memory_that_replaced_one_worded_like_the_question_comes_first(
    store: MemoryStore,
):
    old, new = _switch(store)
    before = [mid for mid, _ in ranking(store, QUESTION, k=10, stages=WITHOUT)]
    ranked = ranking(store, QUESTION, k=10, stages=WITH)
    assert old not in before  # superseded: default recall hides it
    assert before.index(new) > 0  # the update shares no word of the question
    assert ranked[0][0] == new
    stages = ranked[0][1]["stages"]
    assert stages["lineage"] > 0
    assert stages["replaces"] == [old]  # explain names what passed its match on
    assert old not in dict(ranked)


def test_the_heir_joins_the_pool_when_its_own_search_missed_it(store: MemoryStore):
    _, new = _switch(store)
    hits = store.recall(QUESTION, k=1, mode="hybrid", touch=False, stages=WITHOUT)
    assert [m.id for m, _ in hits] != [new]
    hits = store.recall(QUESTION, k=1, mode="hybrid", touch=False, stages=WITH)
    assert [m.id for m, _ in hits] == [new]


def test_a_chain_of_replacements_passes_to_its_live_end(store: MemoryStore):
    first, second, third, *_ = write_dated(
        store,
        [
            ("The staging database runs Postgres 13 on a VM.", 200),
            ("Upgraded it to Postgres 15 last night.", 120),
            ("We're on Aurora since the migration.", 30),
            *NOISE,
            *((text, 100 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    store.supersede(first, second)
    store.supersede(second, third)
    ranked = ranking(store, "What does the staging database run?", k=10, stages=WITH)
    assert ranked[0][0] == third
    assert first in ranked[0][1]["stages"]["replaces"]
    assert {first, second}.isdisjoint(dict(ranked))


def test_the_recalls_filters_hold_for_the_heir(store: MemoryStore):
    old = store.remember("We're switching time tracking from Harvest to Toggl.", tags=["tools"])
    new = store.remember("Back to Harvest from November: Toggl couldn't push hours.")
    store.supersede(old.id, new.id)
    store.remember_many([t for t, _ in NOISE] + OFFICE)
    assert ranking(store, QUESTION, k=10, stages=WITH)[0][0] == new.id
    ranked = ranking(store, QUESTION, k=10, stages=WITH, tag="tools")
    assert new.id not in dict(ranked)  # the heir lacks the tag the recall asks for


def test_nothing_passes_without_a_supersede_link_or_when_superseded_are_shown(
    store: MemoryStore,
):
    old, new = _switch(store, supersede=False)
    ranked = ranking(store, QUESTION, k=10, stages=WITH)
    assert all("lineage" not in e["stages"] for _, e in ranked)
    store.supersede(old, new)
    ranked = ranking(store, QUESTION, k=10, stages=WITH, include_superseded=True)
    assert old in dict(ranked)  # shown, it ranks for itself
    assert all("lineage" not in e["stages"] for _, e in ranked)


def test_a_question_about_the_past_is_left_alone(store: MemoryStore):
    _switch(store)
    ranked = ranking(store, "Which time tracking tool did we use originally?", k=10, stages=WITH)
    assert all("lineage" not in e["stages"] for _, e in ranked)


def test_a_weak_match_passes_nothing_on(store: MemoryStore):
    """Only a replaced memory that would have ranked among the best three lifts its heir:
    the ten superseded memories nearest any question are mostly noise for it."""
    old, heir, *_ = write_dated(
        store,
        [
            ("We're using a new tool for standups at the moment: Meet.", 90),
            ("Back to Zoom: Meet kept dropping calls.", 30),
            ("Time tracking: log hours daily in the time tracking tool.", 60),
            ("The time tracking tool sends a reminder on Fridays.", 50),
            ("Time tracking reports go to finance every month.", 40),
            *((text, 100 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    store.supersede(old, heir)
    ranked = dict(ranking(store, QUESTION, k=10, stages=WITH))
    assert ranked.get(heir, {}).get("stages", {}).get("lineage", 0.0) == 0.0


def _flag(store: MemoryStore) -> bool | None:
    return term_stats(store.core.client, store.core.keys.lexstats, []).superseded


def test_a_collection_without_superseded_memories_is_searched_once(store: MemoryStore, monkeypatch):
    """The first recall finds none and says so in the statistics recall reads anyway; the
    next recalls skip the search. A supersede turns it back on at once."""
    old, new = _switch(store, supersede=False)
    searched: list[str] = []
    leg = lineage.knn_leg  # the stage's KNN over the superseded memories
    monkeypatch.setattr(lineage, "knn_leg", lambda *a, **k: searched.append(a[3]) or leg(*a, **k))
    assert _flag(store) is None
    ranking(store, QUESTION, stages=WITH)
    assert _flag(store) is False
    assert len(searched) == 1
    ranking(store, QUESTION, stages=WITH)
    assert len(searched) == 1  # the flag says there is nothing to find
    store.supersede(old, new)
    assert _flag(store) is True
    assert ranking(store, QUESTION, k=10, stages=WITH)[0][0] == new


def test_a_memory_written_superseded_sets_the_flag(store: MemoryStore):
    """An import or an undo writes the superseded state with the memory."""
    old, new = _switch(store, supersede=False)
    ranking(store, QUESTION, stages=WITH)
    memory = store.get(old)
    memory.superseded_by = new
    store.core.write([memory], fields=["superseded_by"])
    assert _flag(store) is True
    assert ranking(store, QUESTION, k=10, stages=WITH)[0][0] == new


TICKETS = [
    ("Bramble & Vine escalation ESC-2410: driver app crashes on launch. Zendesk #51877.", 60),
    ("ESC-2410 resolved in mobile 6.3.1. Sam says no crashes in a week.", 30),
    ("Zendesk #48213: Kestrel wanted a CSV export of driver hours.", 50),
    ("Zendesk #52240 (Saltmarsh): geofence alerts firing late.", 20),
    ("Invoice 88123 is due on Friday.", 40),
    ("Invoice 88123 was paid on Monday; the receipt is in the shared drive.", 10),
    *NOISE,
]


def test_a_replaced_memory_is_found_by_an_id_only_it_holds(store: MemoryStore):
    """ "zendesk 51877": the one note that holds the ticket's number was replaced by one
    that never repeats it. Hidden, no question could find it (ADR 0120)."""
    escalation, resolved, *_ = write_dated(store, TICKETS)
    store.supersede(escalation, resolved)
    before = ranking(store, "zendesk 51877", k=5, stages=WITHOUT)
    assert escalation not in dict(before)
    ranked = ranking(store, "zendesk 51877", k=5, stages=WITH)
    assert ranked[0][0] == escalation
    assert ranked[0][1]["stages"]["record"] is True  # explain says why it is back
    assert ranked[1][0] == resolved  # and the note that replaced it comes next
    hits = store.recall("zendesk 51877", k=3, mode="hybrid", touch=False)
    assert hits[0][0].superseded_by == resolved  # returned as it is: superseded
    # a question about the past asks the same, and no id, no record
    assert ranking(store, "what was zendesk 51877 about", k=3)[0][0] == escalation
    assert escalation not in dict(ranking(store, "driver app crashes on launch", k=5))


def test_a_replaced_memory_stays_hidden_when_a_live_one_holds_the_id(store: MemoryStore):
    ids = write_dated(store, TICKETS)
    due, paid = ids[4], ids[5]
    store.supersede(due, paid)
    ranked = ranking(store, "invoice 88123", k=5)
    assert ranked[0][0] == paid
    assert due not in dict(ranked)
