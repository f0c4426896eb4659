"""The ``current`` stage knows an update by how it says so (ADR 0086): "now", "moved",
"no longer". An agent's update is often worded unlike the fact it replaces ("Move my
daily summary to 9:00" beside "I want my daily summary at 8:30"), so neither the vectors
nor a repeated value groups them; the update's own words and the topic's word do. Small
real-Redis collections."""

from __future__ import annotations

from _dated import ranking, scored_candidates, write_dated

from houkai import MemoryStore
from houkai.bench import agentset_run
from houkai.bench.agentsets import SETS
from houkai.domain.text import tokenize
from houkai.recall.state import ECHO_MOST, _distinct, topic_words
from houkai.recall.statements import CHANGE_WORDS, STOP, UPDATE_WORDS

OFFICE = [
    "Remember to send the monthly client health summary to Sanjay.",
    "Kenji's patching window: Sunday 06:00–08:00 for all client servers.",
    "Weekly status call with Halden Freight — Tuesdays 10:00.",
    "Reception is ext 200; Heron, the main conference room, is ext 250.",
    "Website relaunch: Jon Reyes owns it (design and content).",
    "Tom works at Spotify; he prefers email.",
    "Dana's partner is called Ines.",
    "Zoe (daughter) is employed by Shopify.",
    "Grandma Rose is into jigsaw puzzles now.",
    "The office moves to Kestrel Yard in October.",
]
# With OFFICE every collection below holds more than the stage's ten top candidates: the
# rules are exercised at the size they were decided at.


def test_an_update_worded_unlike_the_old_fact_comes_first_for_the_present(
    store: MemoryStore,
):
    old, new, *_ = write_dated(
        store,
        [
            ("I want my daily summary at 8:30, bullet points, ten lines max.", 120),
            ("Move my daily summary to 9:00 — I do the school drop-off now. Still bullets.", 20),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ranked = ranking(store, "What time do I get my daily summary?")
    assert ranked[0][0] == new
    assert ranked[0][1]["stages"]["current_group"] == 2
    assert ranked[1][0] == old
    # the past gets the old fact first, from the same group
    ranked = ranking(store, "What time did I get my daily summary before the school run?")
    assert ranked[0][0] == old
    assert ranked[0][1]["stages"]["current_group"] == 2


def test_an_update_may_miss_one_word_of_the_question(store: MemoryStore):
    old, new, *_ = write_dated(
        store,
        [
            ("Pemberton dashboard due 15 December.", 90),
            ("Pemberton's due date is now 15 January (after the freeze).", 10),
            ("Pemberton weekly on Wednesdays at 14:00 with Ruth.", 80),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # the update lacks "dashboard", which the old fact holds: without its "now" it would
    # read as a sibling fact ("opens" beside "closes") and keep its place behind
    ranked = ranking(store, "When is the Pemberton dashboard due?")
    assert ranked[0][0] == new
    assert ranked[1][0] == old


def test_another_entitys_update_does_not_take_the_first_slot(store: MemoryStore):
    etl, other, *_ = write_dated(
        store,
        [
            ("Dropped Drone for the ETL repo, CI is on CircleCI now.", 60),
            ("Dropped Drone for the React Native app, CI is on GitHub Actions now.", 20),
            ("The ETL repo uses Express for its web framework.", 90),
            *((text, 100 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # the newer update lacks two of the question's words ("ETL", "repo"): it is about
    # something else, however it says "now"
    ranked = ranking(store, "Which CI system runs the ETL repo's builds?")
    assert ranked[0][0] == etl
    assert "current_group" not in dict(ranked)[other].get("stages", {})


def test_an_update_on_another_attribute_of_the_same_person_stays_where_it_is(
    store: MemoryStore,
):
    job, diet, *_ = write_dated(
        store,
        [
            ("Mia from work's job: a bakery on Elm Street.", 200),
            ("Mia from work is low-sodium now.", 10),
            ("Mia from work's birthday is 2 November.", 250),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # "work" is in every note about Mia (her name is "Mia from work"): it is no topic word,
    # so the newer note on her diet is no update of her job
    ranked = ranking(store, "Where does Mia work?")
    assert ranked[0][0] == job
    assert "current_group" not in dict(ranked)[diet].get("stages", {})


def test_two_updates_of_different_facts_are_no_echo_of_each_other(embedder):
    """Both say "moved": a word of change is no value an update repeats of the fact it
    replaces, so it cannot make "Tamsin moved to the Payroll team" and "Osprey launch moved
    to January 12" one topic; what they state still can."""
    cands = scored_candidates(
        embedder,
        [
            ("Osprey launch moved to January 12; the certification slot slipped.", 81, 0.9),
            ("User has taken over Osprey as PM; Tamsin moved to the Payroll team.", 40, 0.8),
            ("Lithic account manager for Osprey is Paige Whitfield.", 120, 0.7),
        ],
    )
    launch, owner, _ = _distinct(cands, frozenset({"osprey", "launch"}), ECHO_MOST)
    assert "moved" not in launch | owner
    assert {"january", "certification"} <= launch and {"tamsin", "payroll"} <= owner
    cands = scored_candidates(
        embedder,
        [
            ("Release day moves to Tuesday; QA asked for a day of slack.", 20, 0.9),
            ("Martin moves to Tidewatch from Monday.", 10, 0.8),
        ],
    )
    day, martin = _distinct(cands, frozenset(), ECHO_MOST)
    assert "moves" not in day | martin and "tuesday" in day


def test_every_word_that_says_a_fact_changed_is_no_value() -> None:
    """The echo rule skips the words :data:`UPDATE_WORDS` matches, whatever their form: in
    these and in every memory of the committed agent sets (:data:`CHANGE_WORDS` is a list
    beside the pattern, so this is what keeps the two in step)."""
    committed = [m["text"] for name in SETS for m in agentset_run.load(name)["memories"]]
    for text in (
        "Moved to Express.",
        "Switched to biome; eslint dropped.",
        "Sanjay is Tue–Thu now, no longer Mondays.",
        "Standup moves to 9:15 starting tomorrow.",
        "Hugo took over Marigold; Elise handed over the keys.",
        "Upgraded billing-api; the team migrates to Java 17.",
        *committed,
    ):
        for m in UPDATE_WORDS.finditer(text):
            words = [w for w in tokenize(m[0]) if w not in STOP]  # "no longer": longer
            assert not words or words[0] in CHANGE_WORDS, (text, m[0])  # "now" is a stop word


def test_update_words() -> None:
    for text in (
        "Sanjay Rao is Tue–Thu now.",
        "notify-service moved to Express.",
        "`cargo nextest run` no longer works.",
        "They relocated to Toronto.",
        "Back to Harvest from November.",
        "Standup moves to 9:15 starting tomorrow.",
        "The team switches to Linear next sprint.",
        "Hugo takes over Marigold from Devon.",
        "New rota starting Monday.",
        "Halden calls go fortnightly from now on.",
        "Rent went up to $1,950 a month from June.",  # a quantity's new value
        "Rate limit raised to 250 requests per minute.",
        "Churn fell to 3% after the fix.",
    ):
        assert UPDATE_WORDS.search(text), text
    for text in (
        "Birchway has to launch by 31 October — their new clinic opens 1 Nov.",
        "Tim collects LEGO sets.",
        "Knowledge is power.",
        "Nice dance moves at the party.",
        "Changes to the cardholder agreement go through legal.",
        "Looked at moving to Teams; decided to stay on Slack.",  # a plan, not a change
        "The on-call rotation hands over every Monday.",  # a routine
        "Timeouts when the upstream takes over 30s.",
        "Emma is starting kindergarten.",
        "Starting salary was 90k.",
        "The docs build fails on a Redoc version; ignored for now.",  # a stance for a while
        "User sketched a pricing idea for Pelican; parked for now.",
        "I went up to the Rocky Mountains last summer.",  # no value follows
        "Priya raised to the team that the API is flaky.",
    ):
        assert not UPDATE_WORDS.search(text), text


def test_topic_words_are_few_and_no_part_of_the_name() -> None:
    def held(*texts: str) -> list[frozenset[str]]:
        return [frozenset(t.split()) for t in texts]

    # "When do I get my daily summary?": "daily" is the two versions' own word; "summary"
    # is held by a third note as well, still few of ten
    summary = held("daily summary", "daily summary", "summary", *(["get"] * 7))
    assert topic_words(summary, frozenset()) == {"daily", "summary"}
    # "Where does Mia work?": every note naming Mia holds "work" ("Mia from work"), so it
    # is part of her name here, however few notes hold it; "mia" is named
    mia = held("mia work", "mia work", "mia work", *(["other"] * 7))
    assert topic_words(mia, frozenset({"mia"})) == set()
    # a word most of the candidates hold names no topic
    assert "get" not in topic_words(summary, frozenset())
