"""The ``current`` stage reads a new value of the same thing as an update, without a word
of change: "quayside/infra: Terraform 1.7.4" after "quayside/infra uses Terraform 1.5.7"
(ADR 0099). What each number is the value of (its anchor), and when two notes restate one
fact, are read per text; the store-level tests run small real-Redis collections of the
shape the blind ``engineer`` set holds, each larger than the stage's ten top candidates."""

from __future__ import annotations

import time

from _dated import ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.bench.locomo import backdate
from houkai.recall.stages import default_names
from houkai.recall.statements import restates, value_slots


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


def test_in_one_sitting_a_new_value_counts_as_saying_it_is_an_update(store: MemoryStore):
    """Within the hour only a note that says it is an update replaces one (ADR 0093): a new
    value of the same anchor, written under the same subject, says so too."""
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
    ranked = ranking(store, "what node version do I need for the dashboard?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == new and old in ids
