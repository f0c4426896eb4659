"""The ``current`` stage reads a new value of the same thing as an update, without a word
of change: "quayside/infra: Terraform 1.7.4" after "quayside/infra uses Terraform 1.5.7"
(ADR 0099). What each number is the value of (its anchor), and when two notes restate one
fact, are read per text; the store-level tests run small real-Redis collections of the
shape the blind ``engineer`` set holds, each larger than the stage's ten top candidates."""

from __future__ import annotations

import time

import pytest
from _dated import ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.bench.locomo import backdate
from houkai.recall.stages import default_names
from houkai.recall.statements import restates, restates_plainly, value_slots


def test_a_number_is_read_with_what_it_is_the_value_of():
    assert value_slots("quayside/infra uses Terraform 1.5.7, pinned.") == {("terraform", "1.5.7")}
    assert ("nvmrc", "20.11.1") in value_slots("web-dashboard: `.nvmrc` is 20.11.1.")
    node = "web-dashboard needs Node 18 (`.nvmrc` says 18.19.0)."
    assert {("node", "18"), ("nvmrc", "18.19.0")} <= value_slots(node)
    assert {("standup", "9:45")} <= value_slots("Payments standup is at 9:45 ET.")
    # a count's unit is left off, and is no anchor: two latencies are two facts
    assert value_slots("p99 ~310ms after the fix.") == {("p99", "310")}
    assert value_slots("p99 is 240 ms.") == {("p99", "240")}
    assert not restates("billing-api p50 is 40 ms.", "billing-api p99 is 240 ms.")
    assert value_slots("No numbers here.") == frozenset()


def test_a_value_behind_a_word_of_circumstance_has_no_anchor():
    # "has", "until": the number is no value of the word before them
    assert value_slots("billing-api has 3 replicas.") == frozenset()
    assert value_slots("billing-api: deploy freeze until 20 Dec.") == frozenset()
    assert not restates("billing-api has 12 endpoints.", "billing-api has 3 replicas.")
    # an anchor is read within the value's clause, never across a sentence or a bracket
    assert value_slots("Runs on Kafka. 12 partitions.") == frozenset()
    assert value_slots("Postgres (16) in prod.") == frozenset()
    # "v18" is a value; "/v1/" in a path is not; "10am" and "10pm" differ
    assert value_slots("Node v18 is required.") == {("node", "18")}
    assert value_slots("POST /v1/invoices is 240 ms.") == {("invoic", "240")}
    assert restates("Standup at 10pm.", "Standup at 10am.")
    # a date a note opens with is no subject: these are two services' facts
    assert not restates(
        "2024-05-01: billing-api on Python 3.12.", "2024-04-01: notifier on Python 3.11."
    )
    assert restates("Node 20 is required for web.", "Node 18 is required for web.")


def test_two_notes_restate_one_fact_when_an_anchor_gets_a_new_number():
    old = "quayside/infra uses Terraform 1.5.7, pinned in `.terraform-version`."
    assert restates("quayside/infra: Terraform 1.7.4 in `.terraform-version`.", old)
    assert restates("billing-api runs on Python 3.12.", "billing-api is on Python 3.10.")
    # the same value again is an echo, not a new value
    assert not restates("quayside/infra pins Terraform 1.5.7 via tfenv.", old)
    # another subject's value is no new value of this one's, nor another anchor's
    assert not restates("shipments-api runs on Python 3.12.", "billing-api is on Python 3.10.")
    assert not restates("Tom's desk is 14.", "Tim's desk is 12.")
    assert not restates("billing-api listens on port 8043.", "billing-api is on Python 3.10.")
    # one owner's thing, named shorter the second time; a number written with dashes is one
    # value (ADR 0119)
    assert restates("Ravi's number: 555-0199.", "Ravi's phone number is 555-0142.")
    assert not restates("Sprint retro is Friday at 4pm.", "Sprint planning is Monday at 10am.")
    # the identifier a note opens with is its subject, no value: two invoices, not one
    # invoice's new number; a run's id later in a note is a value
    assert not restates(
        "Invoice INV-2026-0421 for Halcyon is due May 10.",
        "Invoice INV-2026-0412 for Pemberton is due May 1.",
    )
    assert ("r", "0473") in value_slots("CS-ASR new best: 18.9 WER on dev, r-0473.")


def test_a_new_value_said_without_a_word_of_change_takes_the_first_slot(store: MemoryStore):
    old, new, *_ = write_dated(
        store,
        [
            ("quayside/infra uses Terraform 1.5.7, pinned in `.terraform-version` (tfenv).", 170),
            ("quayside/infra: Terraform 1.7.4 in `.terraform-version`.", 70),
            ("Never run `terraform apply` by hand; Atlantis applies on merge.", 160),
            ("User asked how to pin a Terraform provider version; explained the block.", 60),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    question = "what terraform version does the infra repo use now?"
    # the old note holds "uses", a word the question asks that the new one lacks: without
    # the new value it would be a sibling, not the update, and rank below the old
    others = tuple(s for s in default_names() if s != "current")
    assert ranking(store, question, stages=others)[0][0] == old
    ranked = ranking(store, question, k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == new and old in ids
    assert dict(ranked)[new]["stages"]["current_group"] >= 2
    # a question about the past still gets the old value first
    past = [m for m, _ in ranking(store, "what terraform version did the infra repo use before?")]
    assert past.index(old) < past.index(new)


def test_a_long_note_with_a_new_value_joins_the_chain_it_updates(store: MemoryStore):
    """A restated note that goes on about something else is further from the old fact in
    meaning (cosine under ``current_similarity``); the new value under the same opening
    words links it at ``current_shared``, as an echo would."""
    oldest, older, new, *_ = write_dated(
        store,
        [
            ("billing-api is on Python 3.10.", 170),
            ("billing-api runs on Python 3.11 (bumped in PAY-1377; the Dockerfile base is "
             "`python:3.11-slim`).", 120),
            ("billing-api runs on Python 3.12. DeprecationWarnings are errors in its pytest "
             "config, so `datetime.utcnow()` anywhere breaks the suite.", 20),
            ("shipments-api runs Python 3.12 with Django 5.0.", 30),
            ("Use httpx, not requests, in new Python code.", 100),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )  # fmt: skip
    ranked = ranking(store, "What Python version is billing-api on now?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == new and {older, oldest} <= set(ids)
    assert dict(ranked)[new]["stages"]["current_group"] == 3


def test_a_new_value_of_another_thing_of_the_subject_is_no_update(store: MemoryStore):
    """ "billing-api replica is Postgres 16" gives Postgres a new number under the same
    opening words, but says it is of the replica: it lacks "database", which the older
    note and the question hold, and may not (it restates, but not plainly)."""
    database, replica, *_ = write_dated(
        store,
        [
            ("billing-api database is Postgres 14, on pg-shared-01.", 170),
            ("billing-api replica is Postgres 16, read-only, for reports.", 20),
            ("billing-api listens on port 8000.", 150),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    assert restates_plainly(
        "quayside/infra: Terraform 1.7.4.", "quayside/infra uses Terraform 1.5.7."
    )
    assert not restates_plainly(
        "billing-api replica is Postgres 16.", "billing-api database is Postgres 14."
    )
    ranked = ranking(store, "Which Postgres version does the billing-api database run?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids.index(database) < ids.index(replica)
    assert "current" not in dict(ranked)[replica].get("stages", {})


def test_the_same_value_shape_about_other_people_moves_nothing(store: MemoryStore):
    tim, tom, *_ = write_dated(
        store,
        [
            ("Tim's desk on the third floor is number 12, by the window.", 170),
            ("Tom's desk on the third floor is number 14, by the printer.", 40),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ranked = ranking(store, "Which desk does Tim sit at?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == tim and tom in ids
    assert "current_group" not in dict(ranked)[tim].get("stages", {})


@pytest.mark.parametrize(
    ("question", "stages"),
    [
        # read as typed: the question names nothing
        (
            "what node version do I need for the dashboard?",
            tuple(s for s in default_names() if s != "casing"),
        ),
        # named (so is the typed question with ``casing``): the update never says "Node",
        # yet restates the anchor plainly (ADR 0102)
        ("What Node version do I need for the dashboard?", default_names()),
    ],
)
def test_in_one_sitting_a_new_value_counts_as_saying_it_is_an_update(
    store: MemoryStore, question: str, stages: tuple[str, ...]
):
    """Within the hour only a note that says it is an update replaces one (ADR 0093): a new
    value of the same anchor, written under the same subject, says so too, whether or not
    it repeats the name the question asks about."""
    texts = [
        "web-dashboard needs Node 18 (`.nvmrc` says 18.19.0).",
        "web-dashboard staging is the Vercel deployment of main.",
        "web-dashboard: `.nvmrc` is 20.11.1. Run `nvm use` before `pnpm install`.",
        "web-dashboard tests: `pnpm --filter dashboard test` (Jest).",
        *OFFICE,
    ]
    written = store.remember_many(texts)
    now = time.time()
    backdate(store, {m.id: now - 3000 + 60 * i for i, m in enumerate(written)})
    old, new = written[0].id, written[2].id
    ranked = ranking(store, question, k=10, stages=stages)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == new and old in ids


def test_a_new_value_about_someone_else_under_a_shared_prefix_is_no_update(
    store: MemoryStore,
):
    """A newer note that names none of the question's names links to the older one only
    when it restates the value plainly (ADR 0102): "Office seating: Ben's desk is now in
    room 14" opens like "Office seating: Anna's desk is in room 12" but is Ben's."""
    anna, _ben, *_ = write_dated(
        store,
        [
            ("Office seating: Anna's desk is in room 12.", 120),
            ("Office seating: Ben's desk is now in room 14.", 20),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ranked = ranking(store, "Which room is Anna's desk in?", k=10)
    assert ranked[0][0] == anna


def test_a_number_restated_under_a_shorter_name_takes_the_first_slot(store: MemoryStore):
    """No word of change, and the new note names its slot with fewer words: "Ravi's
    number" after "Ravi's phone number" (ADR 0119)."""
    old, new, *_ = write_dated(
        store,
        [
            ("Ravi's phone number is 555-0142.", 150),
            ("Ravi's number: 555-0199.", 12),
            ("Ravi's birthday is March 3.", 90),
            ("Mina's phone number is 555-0175.", 60),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ids = [mid for mid, _ in ranking(store, "What's Ravi's phone number?", k=10)]
    assert ids[0] == new and old in ids
