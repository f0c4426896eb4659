"""The ``current`` and ``entity`` recall stages (ADR 0078) on small real-Redis collections."""

from __future__ import annotations

import itertools
import time
from types import SimpleNamespace

import pytest

from houkai import MemoryStore
from houkai.bench.locomo import backdate
from houkai.domain.model import HybridWeights
from houkai.recall.asking import intent, named_things
from houkai.recall.statements import is_code

DAY = 86_400.0
FILLER = [
    "The team lunch moved to the Thai place on Fridays.",
    "Remember to water the office plants on Mondays.",
    "The quarterly report template lives in the shared drive.",
    "Standup notes are posted in the team channel.",
    "The printer on the third floor jams with thick paper.",
    "Parking passes renew every January.",
    "The coffee machine descaling kit is under the sink.",
    "Design reviews happen on Wednesday afternoons.",
]


def test_intent_reads_present_past_and_neither():
    assert intent("Which database does the billing service use now?") == "present"
    assert intent("Which database does the billing service use?") == "present"  # no marker
    assert intent("How old is Leo?") == "present"  # "how old" asks no past
    assert intent("Which linter did we use before ruff?") == "past"
    assert intent("What was the original port of the ledger worker?") == "past"
    assert intent("When did Caroline go to the support group?") == ""  # a past event
    assert intent("What did we ship last week?", window=True) == ""
    assert intent("Which invoice batch closed on March 14?") == ""  # a day, not now
    assert intent("invoice run of 14.03.2026") == intent("Anything on 3/14?") == ""
    # a time of day is a slot that may move: who runs it, whether it is still there
    assert intent("Who runs the 10am standup?") == intent("Is standup at 10am?") == "present"


@pytest.mark.parametrize(
    ("old", "new", "question"),
    [
        # "10am" is found by 10, am and 10h00: the update lacks one word of the question
        ("Standup is at 10am in the big room.", "Standup moved to 11am.", "Is standup at 10am?"),
        ("Standup is at 10am in the big room.", "Standup moved to 11am.",
         "Is standup still at 10am?"),
        ("Weekly sync is on Tuesdays at 3pm.", "Weekly sync moved to Wednesdays at 4pm.",
         "Is the weekly sync on Tuesdays?"),  # a weekday is no named thing, plural or not
        ("Rent is $1,800 a month.", "Rent went up to $1,950 a month from June.",
         "Is rent $1,800?"),  # a quantity's change says it is an update
        ("The API rate limit is 100 requests per minute.",
         "Rate limit raised to 250 requests per minute.", "What is the API rate limit?"),
        ("Tim is vegetarian.", "Tim eats fish now; he's pescatarian.", "Is Tim vegetarian?"),
    ],
)  # fmt: skip
def test_a_question_naming_the_old_value_gets_the_update(
    store: MemoryStore, old: str, new: str, question: str
):
    """Asked whether the old value holds, the update answers (ADR 0118)."""
    _, update = _write(store, [(old, 90), (new, 5)])
    ranked = _ranked(store, question)
    assert ranked[0][0] == update, question
    assert ranked[0][1]["stages"]["current_group"] == 2


def test_a_question_about_a_day_gets_that_day_not_the_newest(store: MemoryStore):
    """A log of the same event on different days is a history, but a question naming one
    day asks about that day: the newest does not take its place (ADR 0118)."""
    days = _write(
        store,
        [(f"Invoice batch closed on 14.{m:02d}.2026", 200 - 30 * m) for m in (1, 2, 3, 4, 5, 6)],
    )
    for question in ("invoice of March 14", "Which invoice batch closed on 3/14?"):
        ranked = _ranked(store, question)
        assert ranked[0][0] == days[2], question
        assert "intent" not in ranked[0][1]["stages"].get("question", {})


def test_named_things_are_names_and_identifiers_not_reference_points_or_acronyms():
    assert named_things("What's checkout-web's local port?") == ["checkout-web"]
    assert named_things("How do I reach Grandma Rose?") == ["Grandma Rose"]  # one name
    assert named_things("Which linter did Atlas use before Ruff?") == ["Atlas"]
    assert named_things("What CI does Atlas use?") == ["Atlas"]
    assert named_things("What does error E1042 mean?") == ["E1042"]
    assert named_things("What did commit 2383888 change?") == ["2383888"]  # a record's number
    assert named_things("What happened in 2022?") == []  # a year is no record
    assert named_things("Is standup at 10am?") == named_things("Who has 10:30am?") == []
    assert named_things("Is the backup-2am job done?") == ["backup-2am"]  # a name with a time
    assert named_things("What's in PR #5012?") == ["#5012"]  # a numbered record (ADR 0119)
    assert named_things("item #1 or C# tips") == []


def test_codes_are_identifiers_with_digits_not_measures():
    assert all(is_code(t) for t in ("099b874", "INV-2026-0412", "E1042", "2383888", "hf-prod-01"))
    measures = ("1990s", "25k", "3pm", "300ms", "64GB", "1080p", "60fps", "5min")
    assert not any(is_code(t) for t in ("checkout-web", "Grandma Rose", *measures))


OLD_DB = "The billing service stores its data in Postgres 14."
NEW_DB = "Migrated the billing service to Postgres 16, Postgres 14 is read-only."
NOW_DB = "Which database does the billing service use now?"


def _write(store: MemoryStore, dated: list[tuple[str, float]]) -> list[str]:
    """Write *dated* (text, days ago) and the filler; return the dated memories' ids."""
    now = time.time()
    written = store.remember_many([t for t, _ in dated] + FILLER)
    backdate(store, {m.id: now - days * DAY for m, (_, days) in zip(written, dated, strict=False)})
    return [m.id for m in written[: len(dated)]]


def _ranked(store: MemoryStore, question: str, **options) -> list[tuple[str, dict]]:
    hits = store.recall(question, k=5, mode="hybrid", touch=False, explain=True, **options)
    return [(m.id, e) for m, _, e in hits]


def test_the_newer_of_two_memories_on_a_topic_ranks_first_for_what_it_is_now(
    store: MemoryStore,
):
    old, new = _write(
        store,
        [
            (OLD_DB, 200),
            (NEW_DB, 30),
        ],
    )
    for question in (
        "Which database does the billing service use now?",
        "Which database does the billing service use?",  # no "now": the fact changed
    ):
        ranked = _ranked(store, question)
        assert ranked[0][0] == new, question
        assert ranked[0][1]["stages"]["question"]["intent"] == "present"
        assert ranked[0][1]["stages"]["current_group"] == 2
    # without the stage the blend ranks the old statement first: the stage is what moved it
    assert (
        _ranked(store, "Which database does the billing service use?", stages=("query",))[0][0]
        == old
    )
    # a question about the past gets the older one first
    ranked = _ranked(store, "Which database did the billing service use before?")
    assert ranked[0][0] == old
    assert ranked[0][1]["stages"]["question"]["intent"] == "past"


def test_an_update_written_seconds_later_in_one_sitting_still_replaces(store: MemoryStore):
    # an agent's session, or an import replaying a history: seconds apart, not hours
    old, new = _write(
        store,
        [
            (OLD_DB, 30 / DAY),
            (NEW_DB, 10 / DAY),
        ],
    )
    ranked = _ranked(store, "Which database does the billing service use?")
    assert ranked[0][0] == new
    assert ranked[0][1]["stages"]["current_group"] == 2
    assert _ranked(store, "Which database did the billing service use before?")[0][0] == old


def test_read_seconds_apart_is_not_written_seconds_apart(store: MemoryStore):
    # by last access (the caller's recency basis), two recent reads make no update
    _write(
        store,
        [
            (OLD_DB, 30 / DAY),
            (NEW_DB, 10 / DAY),
        ],
    )
    question = "Which database does the billing service use?"
    assert _ranked(store, question)[0][1]["stages"]["current_group"] == 2  # by creation
    by_reads = _ranked(store, question, weights=HybridWeights(recency_basis="accessed"))
    assert all("current_group" not in e["stages"] for _, e in by_reads)
    assert {e["stages"].get("current_left") for _, e in by_reads[:2]} == {"read within the hour"}


@pytest.mark.parametrize(("apart_days", "replaces"), [(20.0, True), (600 / DAY, False)])
def test_in_one_sitting_only_a_newer_note_that_says_so_is_an_update(
    store: MemoryStore, apart_days: float, replaces: bool
):
    # "… is Aurora Postgres" says nothing of replacing, nor gives Postgres a new version:
    # weeks later it is the state now, minutes after the other it is as likely a sibling
    # written in the same session ("Postgres 16" would be a new value: ADR 0099)
    _, new = _write(
        store,
        [
            (OLD_DB, apart_days + 1 / DAY),
            ("The billing service database is Aurora Postgres.", 1 / DAY),
        ],
    )
    ranked = _ranked(store, "Which database does the billing service use?")
    grouped = [e["stages"].get("current_group") for _, e in ranked[:2]]
    assert (grouped == [2, 2]) is replaces
    if replaces:
        assert ranked[0][0] == new
    else:  # explain says why the newer did not move up
        left = {e["stages"].get("current_left") for _, e in ranked[:2]}
        assert left == {"within the hour, no update word"}


def test_a_sibling_fact_is_not_taken_for_an_update(store: MemoryStore):
    opens, _ = _write(
        store,
        [("The Berlin office opens at 8am.", 60), ("The Berlin office closes at 6pm.", 10)],
    )
    ranked = _ranked(store, "What time does the Berlin office open?")
    assert ranked[0][0] == opens  # the newer "closes" lacks the word asked for
    assert "current" not in ranked[0][1]["stages"]


def test_conversation_turns_keep_their_order(store: MemoryStore):
    turns = store.remember_many(
        [
            "Caroline: I started painting landscapes in oil.",
            "Melanie: That sounds lovely!",
            "Caroline: Painting landscapes is what I do on weekends now.",
        ],
        sequence=True,
    )
    store.remember_many(FILLER)
    hits = store.recall("What does Caroline paint?", k=3, mode="hybrid", explain=True)
    assert all("current" not in e["stages"] for _, _, e in hits)
    assert {m.id for m, _, _ in hits} >= {turns[0].id, turns[2].id}


ATLAS = [
    "Atlas uses Postgres 16.",
    "Atlas is owned by Priya.",
    "Atlas listens on port 8080.",
    "Atlas tests run with make test.",
    "Atlas logs go to Grafana Loki.",
]
BEACON = [b.replace("Atlas", "Beacon") for b in ATLAS]
NOTES = [f"Note: the {w} review is scheduled." for w in ("budget", "hiring", "roadmap", "pricing")]


def test_a_memory_about_another_project_that_shares_the_words_does_not_outrank_the_right_one(
    store: MemoryStore,
):
    right, other = (
        m.id
        for m in store.remember_many(
            ["Atlas runs on Fly.io.", "Beacon is deployed to ECS; the deploy happens from main."]
        )
    )
    store.remember_many(ATLAS + BEACON + FILLER + NOTES)
    question = "Where is Atlas deployed?"
    # untagged, the query stage reads that the notes opening with "Atlas" are about it
    # (houkai.recall.subjects): its doubled lexical weight for a named thing does not let
    # the words the Beacon note shares win; the opt-in subjects stage lifts them further
    ranked = _ranked(store, question, stages=("query", "context", "prf"))
    order = [mid for mid, _ in ranked]
    assert right in order and other not in order[: order.index(right)]
    assert dict(ranked)[right]["stages"]["names"] > 0
    with_subjects = ("query", "context", "prf", "subjects")
    order = [mid for mid, _ in _ranked(store, question, stages=with_subjects)]
    assert right in order and other not in order
    hits = store.recall(question, k=20, mode="hybrid", touch=False, explain=True)
    order = [m.id for m, _, _ in hits]
    assert order.index(right) < order.index(other)
    by_id = {m.id: e for m, _, e in hits}
    assert by_id[other]["stages"]["entity"] < 0  # what the stage took, shown in explain
    assert by_id[right]["stages"]["question"]["entities"] == ["Atlas"]
    assert "entity" not in by_id[right]["stages"]


def test_a_memory_without_the_identifier_asked_for_does_not_outrank_the_one_with_it(
    store: MemoryStore,
):
    """A note that shares the question's other words and names rare things ("Conventional
    Commits") outranked the one commit the question names; missing that identifier now
    costs half a candidate's score."""
    wanted, convention = (
        m.id
        for m in store.remember_many(
            [
                "Commit 099b874 in checkout-web: added select_related (N+1 queries).",
                "Commit messages follow Conventional Commits (feat:, fix:, chore:).",
            ]
        )
    )
    store.remember_many(
        [
            f"Commit {h} in {s}: fixed a flaky test."
            for h, s in (("4f1e2aa", "billing-api"), ("77c0d3b", "ledger-worker"))
        ]
        + FILLER
    )
    question = "What did commit 099b874 change?"
    ranked = dict(_ranked(store, question))
    assert next(iter(ranked)) == wanted
    assert ranked[convention]["stages"]["entity"] < 0
    assert "entity" not in ranked[wanted]["stages"]


def test_a_numbered_record_asked_for_keeps_its_slot_from_a_later_note_without_it(
    store: MemoryStore,
):
    """ "moved" makes the later note on ledgerkit an update of the pull request's, and the
    question asks about the present; but it asks for PR #5012, which the later note does
    not name: the record keeps the first slot (ADR 0119)."""
    pr, later = _write(
        store,
        [
            ("PR #5012: ledgerkit 3.0 upgrade in billing-api, `Journal.post` → "
             "`Journal.commit` in 14 files. Marcus approved, merged before the freeze.", 20),
            ("billing-api moved to ledgerkit 3.0.0. 3.x renamed `Journal.post()` to "
             "`Journal.commit()`.", 18),
        ],
    )  # fmt: skip
    ranked = _ranked(store, "What's in PR #5012?")
    assert ranked[0][0] == pr and later in dict(ranked), ranked
    assert dict(ranked)[pr]["stages"]["question"]["entities"] == ["#5012"]


@pytest.mark.parametrize("stages", [("current",), ("entity",)])
def test_each_new_stage_can_be_switched_alone(store: MemoryStore, stages):
    _write(store, [("Atlas ships through Argo CD.", 5)])
    hits = store.recall("How does Atlas ship?", k=1, mode="hybrid", stages=stages, explain=True)
    assert hits[0][2]["stages"]["active"] == list(stages)


def test_one_batch_is_a_history_in_its_order(store: MemoryStore):
    # an import replaying a history in one call: the call's order is the time order
    old, new, *_ = store.remember_many([OLD_DB, NEW_DB, *FILLER])
    ranked = _ranked(store, NOW_DB)
    assert ranked[0][0] == new.id
    assert ranked[0][1]["stages"]["current_group"] == 2
    # a search returns the exact instant, as get does: a SORTABLE number comes back
    # from the index rounded to 12 digits (10 ms), which would tie the whole batch
    recalled = {m.id: m.created_at for m, _ in store.recall(NOW_DB, k=5, touch=False)}
    assert recalled[old.id] == store.get(old.id).created_at < recalled[new.id]
    listed = {m.id: m.created_at for m in store.list_recent(limit=20)}
    assert listed[new.id] == store.get(new.id).created_at


def test_a_batch_in_the_other_order_leaves_the_older_fact_alone(store: MemoryStore):
    store.remember_many([NEW_DB, OLD_DB, *FILLER])  # the newest says nothing of an update
    ranked = _ranked(store, NOW_DB)
    assert all("current_group" not in e["stages"] for _, e in ranked)
    assert {e["stages"].get("current_left") for _, e in ranked[:2]} == {
        "within the hour, no update word"
    }


def test_written_at_the_same_instant_neither_is_newer(store: MemoryStore):
    old, new = _write(store, [(OLD_DB, 1.0), (NEW_DB, 1.0)])
    ranked = _ranked(store, NOW_DB)
    assert {i for i, _ in ranked[:2]} == {old, new}
    assert {e["stages"].get("current_left") for _, e in ranked[:2]} == {"same instant"}
    by_reads = _ranked(store, NOW_DB, weights=HybridWeights(recency_basis="accessed"))
    assert {e["stages"].get("current_left") for _, e in by_reads[:2]} == {"read within the hour"}


def test_a_clock_that_stands_still_or_steps_back_keeps_a_batchs_order(
    store: MemoryStore, monkeypatch
):
    ticks = iter([100.0, 100.0, 99.0])  # then 100.0 for ever
    clock = SimpleNamespace(time=lambda: next(ticks, 100.0))
    monkeypatch.setattr("houkai.store.memories.time", clock)  # what build_memory reads
    written = store.remember_many([OLD_DB, NEW_DB, "Billing runs nightly.", *FILLER])
    stamps = [m.created_at for m in written]
    assert all(b - a >= 1e-5 for a, b in itertools.pairwise(stamps))
    assert [store.get(m.id).created_at for m in written] == stamps
