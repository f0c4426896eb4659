"""The ``current`` stage tells an update from a sibling fact (ADR 0088): two notes about
one project that share only its name are not one topic; a newer note that tells of an
event, or answers less of the question, is not the update; a pronoun in the question is
no word an update must hold; an update ranked below the stage's ten best is found; a
past question gets the state it asks for. Small real-Redis collections of the shapes the
agent sets hold, each larger than the stage's ten top candidates, and candidate pools with
the model's real vectors where a test needs exact blend scores."""

from __future__ import annotations

from dataclasses import replace

from _dated import ranked_by_stage, ranking, scored_candidates, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.recall import asking, state
from houkai.recall.asking import asked_terms
from houkai.recall.statements import NO_CODE_NAME, opening_code_name, opening_owner


def test_the_newest_sibling_steps_aside_for_the_update_behind_it(store: MemoryStore):
    old, new, invoice, *_ = write_dated(
        store,
        [
            ("Pemberton dashboard due 15 December.", 140),
            ("Pemberton's due date is now 15 January (after the freeze).", 45),
            ("INV-2026-0457 to Pemberton, €15,000 (restart milestone).", 20),
            ("Pemberton weekly on Wednesdays at 14:00 with Ruth.", 135),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # the invoice repeats "15" and is the newest of the three, but it answers nothing of
    # "due": the two dates still form a group, and the one that says "now" leads it
    ranked = ranking(store, "When is the Pemberton dashboard due?", k=10)
    ids = [mid for mid, _ in ranked]
    assert invoice in ids
    assert ids[0] == new
    assert old in ids
    assert ranked[0][1]["stages"]["current_group"] == 2  # the invoice is out of the group
    assert "current_group" not in dict(ranked).get(invoice, {}).get("stages", {})


def test_notes_sharing_only_the_projects_name_keep_their_order(store: MemoryStore):
    framework, *_ = write_dated(
        store,
        [
            ("The search indexer uses FastAPI for its web framework.", 165),
            ("CI for search-indexer is Buildkite.", 150),
            ("The search indexer stores its data in CockroachDB.", 200),
            ("Code owner for search-indexer is Ravi.", 193),
            ("Local port for the search indexer: 9090.", 210),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # on "server-side toolkit" neither note holds a question word beyond the project's
    # name: the newer CI note is no update of the framework
    question = "What's the server-side toolkit behind search-indexer's endpoints?"
    plain = ranking(store, question, stages=())
    ranked = ranking(store, question)
    assert plain[0][0] == framework
    assert ranked[0][0] == framework
    assert all("current_group" not in e.get("stages", {}) for _, e in ranked)


def test_a_newer_note_of_an_event_is_no_new_state(store: MemoryStore):
    buildkite, *_ = write_dated(
        store,
        [
            ("ledger-worker builds on Buildkite; the pipeline file is in the repo root.", 200),
            (
                "In ledger-worker the build failed on CI because the dependency cache was "
                "stale; clearing the cache fixed it.",
                190,
            ),
            ("PRs on the ledger worker need a review from Marcus.", 195),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # "the build failed … was stale" tells what happened once; where builds run is
    # still what the older note says
    ranked = ranking(store, "Where do ledger-worker's builds happen?")
    assert ranked[0][0] == buildkite
    # an update that says so does take the first slot
    (moved,) = write_dated(store, [("ledger-worker moved its builds to GitHub Actions.", 5)])
    ranked = ranking(store, "Where do ledger-worker's builds happen?")
    assert ranked[0][0] == moved


def test_a_newer_note_of_what_happened_today_is_no_new_state(store: MemoryStore):
    """ "The standup ran 25 minutes today" tells of one day, not of the standup's time."""
    daily, moves, ran, *_ = write_dated(
        store,
        [
            ("Squad standup is daily at 9:30am MT on Zoom.", 152),
            (
                "Standup moves to 9:15 starting tomorrow so Dev can make his 9:45 staff meeting.",
                151,
            ),
            ("User's standup ran 25 minutes today; wants ideas to keep it under 15.", 148),
            ("Matteo works out of the New York office, so no meetings after 3pm.", 170),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    store.supersede(daily, moves)
    ranked = ranking(store, "What time is our daily standup?")
    assert ranked[0][0] == moves
    assert dict(ranked)[ran]["stages"].get("current", 0) <= 0


def test_the_questions_pronouns_are_no_words_an_update_must_hold(store: MemoryStore):
    assert "me" not in asked_terms("How far ahead should you remind me about invoices?")
    assert "us" not in asked_terms("Which days does Sanjay Rao work with us?")
    old, new, *_ = write_dated(
        store,
        [
            ("Sanjay Rao works Mon–Wed with us.", 150),
            ("Sanjay Rao is Tue–Thu now, his other client moved to Mondays.", 55),
            ("Sanjay Rao — freelance QA contractor, ext 233 when he's in.", 177),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # the update lacks "work" (one word, allowed as it says "now"); "us" would have been
    # a second
    ranked = ranking(store, "Which days does Sanjay Rao work with us?")
    assert ranked[0][0] == new
    assert ranked[1][0] == old


FAMILY = [
    "Tom's dentist is Dr. Okafor on Rua Augusta.",
    "Leo's football practice is on Thursdays at 18:00.",
    "The car is due for its inspection in March.",
    "Dana likes hiking in Sintra on Sundays.",
    "Book club meets on the first Monday of the month.",
]


def test_a_repeated_word_links_two_notes_on_a_name_only_when_the_newer_updates(
    store: MemoryStore,
):
    born, card, *_ = write_dated(
        store,
        [
            ("Grandma Rose was born on 30 January; send a card a week ahead.", 200),
            ("Picked a birthday card design for Grandma Rose; not sent yet.", 166),
            ("Rose asked to be reached by Signal from now on.", 21),
            *((text, 60 + i) for i, text in enumerate(OFFICE + FAMILY)),
        ],
    )
    # her name is in few memories, so it is a named thing; both notes say "card" and
    # hold no word of the question but her name: the newer is not the older one's
    # update, so neither moves
    ranked = ranking(store, "How do I reach Grandma Rose?", k=10)
    stages = {mid: e.get("stages", {}) for mid, e in ranked}
    assert card in stages and born in stages
    assert "current_group" not in stages[card]
    assert "current_group" not in stages[born]


def test_an_update_ranked_below_the_top_joins_the_fact_it_replaces(embedder):
    # the update is worded away from the question ("switched its linter"), so the blend
    # ranks it below the stage's top candidates; it repeats nothing but says it replaces
    # "Formatter/linter in ledger-worker: golangci-lint" — by its word "linter"
    cands = scored_candidates(
        embedder,
        [
            ("Formatter/linter in ledger-worker: golangci-lint.", 150, 0.90),
            ("HTTP layer of ledger-worker: Spring Boot.", 190, 0.70),
            ("Messaging for ledger-worker: SQS.", 220, 0.65),
            ("Messaging for ledger-worker moved to NATS.", 40, 0.30),  # another topic's
            ("The ledger worker switched its linter to biome.", 60, 0.40),
        ],
    )
    question = "What's ledger-worker's current formatter?"
    read = asking.read(question, None)
    read = replace(read, entities=["ledger-worker"])
    state.newest_first(cands, read, 0.65, 3, {}, shared=0.45)
    ranked = sorted(cands, key=lambda c: -c.score)
    assert ranked[0].memory.text.startswith("The ledger worker switched")
    assert ranked[0].explain["stages"]["current_group"] == 2
    assert cands[0].score == 0.40  # the old fact takes the slot the update had
    # the other topic's update replaces its own old fact, in that fact's slot, not higher
    assert (cands[3].score, cands[2].score) == (0.65, 0.30)
    # a past question gets the old fact first, from the same group the pull made
    cands = scored_candidates(
        embedder,
        [
            ("Formatter/linter in ledger-worker: golangci-lint.", 150, 0.9),
            ("HTTP layer of ledger-worker: Spring Boot.", 190, 0.7),
            ("Messaging for ledger-worker: SQS.", 220, 0.65),
            ("The ledger worker switched its linter to biome.", 60, 0.4),
        ],
    )
    past = asking.read("What did ledger-worker format with originally?", None)
    state.newest_first(cands, replace(past, entities=["ledger-worker"]), 0.65, 3, {}, 0.45)
    assert max(cands, key=lambda c: c.score).memory.text.startswith("Formatter/linter")
    assert cands[3].explain["stages"]["current_group"] == 2


def test_a_past_question_gets_the_member_it_asks_for(embedder):
    ports = [
        ("Local port for the ledger worker: 8000.", 200, 0.95),
        ("ledger-worker moved to port 4000 (clashed with another service on 8000).", 120, 0.90),
        ("ledger-worker moved to port 8081 (clashed with another service on 4000).", 30, 0.85),
        ("HTTP layer of ledger-worker: Spring Boot.", 190, 0.50),
    ]

    def first(question: str) -> str:
        read = replace(asking.read(question, None), entities=["ledger-worker"])
        best = ranked_by_stage(embedder, ports, read)[0]
        assert best.explain["stages"]["current_group"] == 3
        return best.memory.text

    # "before 8081": the one the 8081 note replaced, not the oldest the blend put first
    assert "port 4000" in first("Which port did ledger-worker use before 8081?")
    assert "port 4000" in first("Which port did ledger-worker use before we moved to 8081?")
    # "before 4000": the oldest
    assert first("Which port did ledger-worker use before 4000?").startswith("Local port")
    # the present: the newest
    assert "port 8081" in first("Which port is ledger-worker on now?")


def test_originally_asks_for_the_oldest_state(embedder):
    cands = scored_candidates(
        embedder,
        [
            ("Local port for the ledger worker: 8000.", 200, 0.80),
            ("ledger-worker moved to port 4000 (clashed with another service on 8000).", 120, 0.90),
            ("ledger-worker moved to port 8081 (clashed with another service on 4000).", 30, 0.85),
        ],
    )
    read = replace(asking.read("What was ledger-worker's original port?", None), entities=[])
    state.newest_first(cands, read, 0.65, 10, {}, 0.45)
    assert max(cands, key=lambda c: c.score).memory.text.startswith("Local port")


def test_an_update_that_tells_the_old_value_in_the_past_is_still_an_update(embedder):
    # "it was 10:00 until March" is past tense, but it repeats the old value: an update,
    # not a note of an event; a passive "is used by" is no event either
    for old, new in [
        (
            "Standup is at 10:00 in the Heron room.",
            "Standup is at 9:30 in the Heron room; it was 10:00 until March.",
        ),
        (
            "billing-api runs on Postgres 14.",
            "Postgres 16 is used by billing-api since the March upgrade.",
        ),
    ]:
        cands = scored_candidates(embedder, [(old, 200, 0.9), (new, 20, 0.8)])
        question = (
            "When is standup?" if "Standup" in old else "Which database does billing-api use?"
        )
        state.newest_first(cands, asking.read(question, None), 0.65, 10, {}, 0.45)
        assert cands[1].score == 0.9, new
        assert cands[1].explain["stages"]["current_group"] == 2


def test_an_update_of_an_update_takes_the_chain_s_slot(store: MemoryStore):
    runtime, go, java, *_ = write_dated(
        store,
        [
            ("Runtime for billing-api: Python 3.10.", 234),
            ("billing-api now requires Go 1.21; Python 3.10 support was dropped.", 171),
            ("Bumped billing-api from Go 1.21 to Java 17.", 112),
            ("Formatter/linter in billing-api: black + flake8.", 164),
            ("billing-api deploys to ECS Fargate.", 209),
            ("billing-api listens on port 9090 locally.", 227),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # Java 17 shares nothing with Python 3.10, but it names the Go 1.21 it replaced: the
    # three are one chain, and its newest answers a present question
    question = "Which language version does billing-api need?"
    ranked = ranking(store, question, k=10)
    ids = [mid for mid, _ in ranked]
    assert {runtime, go, java} <= set(ids)
    assert ids[0] == java
    # the update links written with the notes (ADR 0105) take the chain there, Java 17
    # in the Go 1.21 note's slot; without them the three are one group
    first = ranked[0][1]["stages"]
    assert first.get("updates") == go or first.get("current_group") == 3
    # asked about the past, the chain's newest goes last among its members
    past = [
        mid
        for mid, _ in ranking(
            store, "Which language version did billing-api need originally?", k=10
        )
    ]
    assert past.index(java) > past.index(runtime)


def test_an_update_naming_the_value_it_replaces_may_word_the_attribute_its_own_way(
    store: MemoryStore,
):
    chi, express, *_ = write_dated(
        store,
        [
            ("The notification service uses chi for its web framework.", 176),
            ("notify-service moved to Express; the chi app factory is gone.", 110),
            ("Code owner for notify-service is Ravi.", 215),
            ("notify-service listens on port 5173 locally.", 181),
            ("Formatter/linter in notify-service: ruff.", 238),
            ("Messaging for notify-service: Redis streams.", 192),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # "framework" is not in the update, but "chi" is: it replaces the framework
    question = "What framework does notify-service use?"
    plain = [mid for mid, _ in ranking(store, question, stages=(), k=10)]
    ranked = ranking(store, question, k=10)
    ids = [mid for mid, _ in ranked]
    assert plain.index(chi) < plain.index(express)
    assert ids.index(express) < ids.index(chi)
    assert dict(ranked)[express]["stages"]["current_group"] == 2


def test_an_update_about_another_subject_does_not_replace_by_its_echo(store: MemoryStore):
    etl, native, *_ = write_dated(
        store,
        [
            ("Dropped Drone for the ETL repo, CI is on CircleCI now.", 180),
            ("Dropped Drone for the React Native app, CI is on GitHub Actions now.", 40),
            ("The ETL repo uses Express for its web framework.", 203),
            ("Ingrid owns the ETL repo; ask them for reviews.", 196),
            ("The React Native app is released every second Thursday.", 150),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # both repeat "Drone", and the newer says it is an update; but the question names no
    # project the stage can check ("ETL" is a short acronym), so the reworded-update rule
    # stays off and the newer, lacking "ETL" and "repo", is no update of the ETL note
    ranked = ranking(store, "Which CI system runs the ETL repo's builds?", k=10)
    ids = [mid for mid, _ in ranked]
    assert native in ids
    assert ids[0] == etl


def test_a_chain_forms_whatever_order_its_links_rank_in(embedder):
    # Java 17 ranks above the Go 1.21 it replaced and shares nothing with Python 3.10:
    # the chain is read oldest link first, so Java still joins Python and Go
    cands = scored_candidates(
        embedder,
        [
            ("Runtime for billing-api: Python 3.10.", 234, 0.90),
            ("Bumped billing-api from Go 1.21 to Java 17.", 112, 0.80),
            ("billing-api now requires Go 1.21; Python 3.10 support was dropped.", 171, 0.70),
            ("billing-api deploys to ECS Fargate.", 209, 0.60),
        ],
    )
    read = asking.read("Which language version does billing-api need?", None)
    state.newest_first(cands, replace(read, entities=["billing-api"]), 0.65, 4, {}, 0.45)
    assert max(cands, key=lambda c: c.score).memory.text.startswith("Bumped")
    assert cands[1].explain["stages"]["current_group"] == 3
    assert "current_group" not in cands[3].explain.get("stages", {})


def test_two_services_facts_written_alike_are_no_fact_and_its_update(store: MemoryStore):
    """A coding agent writes a service's facts opening with its name in lower case; the
    newer "shipments-api … now" shares the older's values (EKS, Argo CD) and says it is an
    update, but it is another service's fact (ADR 0098)."""
    notifier, shipments, *_ = write_dated(
        store,
        [
            ("notifier deploys to EKS, namespace `notifier`, Argo CD app `notifier-prod`.", 157),
            ("shipments-api deploys to EKS now, namespace `shipments`, same Argo CD setup.", 40),
            ("notifier consumes from the SQS queue `notifications-prod`.", 170),
            ("notifier is built with Go 1.22.", 160),
            ("shipments-api runs Python 3.12 with Django 5.0.", 150),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ranked = ranking(store, "Where does notifier get deployed?", k=10)
    ids = [mid for mid, _ in ranked]
    assert shipments in ids
    assert ids[0] == notifier
    assert "current" not in dict(ranked)[shipments].get("stages", {})  # no slot dealt


def test_a_services_update_written_in_lower_case_still_takes_the_first_slot(
    store: MemoryStore,
):
    """The code-name rule keeps two services apart, never a service and its update, even
    one that opens with a verb in lower case."""
    old, new, *_ = write_dated(
        store,
        [
            ("notifier deploys to ECS, cluster `prod-eu1`, service `notifier`.", 170),
            ("moved notifier to EKS: namespace `notifier`, Argo CD app `notifier-prod`.", 40),
            ("shipments-api deploys to ECS, cluster `prod-eu1`.", 160),
            ("notifier is built with Go 1.22.", 150),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ranked = ranking(store, "Where does notifier get deployed?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == new and old in ids
    assert dict(ranked)[new]["stages"]["current_group"] >= 2


def test_a_code_name_is_read_only_where_a_note_opens_with_it():
    assert opening_code_name("billing-api is on Python 3.10.") == ({"bill", "api"}, True)
    assert opening_code_name("`notifier` deploys to EKS.") == ({"notifi"}, False)
    assert opening_code_name("  [8 May 2023] notifier deploys.") == ({"notifi"}, False)
    assert opening_code_name("sign-in-api is up.").stems == {"sign", "api"}  # "in": a stop word
    assert opening_code_name("LEDGER_BATCH_SIZE is 500.").identifier
    for text in (
        "Migrated mobile-app to DynamoDB.",  # a capitalised word: the sentence's
        "moved notifier to EKS.",  # a word of change
        "the standup moved to 10:00.",  # a stop word
        "2024-01-05: deploy freeze.",  # a date
        "",
    ):
        assert opening_code_name(text) == NO_CODE_NAME, text


def test_another_persons_fact_of_the_same_shape_is_no_update(store: MemoryStore):
    users, theos, *_ = write_dated(
        store,
        [
            ("User's primary care doctor is Dr. Miriam Costa at Kaiser Franklin.", 181),
            ("Theo's primary care doctor is Dr. Paul Nguyen, also at Kaiser Franklin.", 180),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # the newer note is Theo's, worded as the user's: two owners' facts, not one and its
    # update, so the current stage leaves the order the question's words gave
    ranked = ranking(store, "Who is my primary care doctor?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[:2] == [users, theos]
    assert all("current_group" not in e.get("stages", {}) for _, e in ranked)


def test_an_owner_is_read_only_where_a_note_opens_with_a_possessive():
    assert opening_owner("Theo's primary care doctor is Dr. Paul Nguyen.") == "theo"
    assert opening_owner("**Ben’s** desk is 4.") == "ben"
    assert opening_owner("billing-api's database is Aurora.") == "billing-api"
    for text in ("It's on Friday.", "Here's the plan.", "She's in Lisbon.", "The user's plan."):
        assert opening_owner(text) == "", text


def test_a_newer_note_that_says_it_is_an_update_may_open_with_another_owner(
    store: MemoryStore,
):
    old, new, *_ = write_dated(
        store,
        [
            ("User's manager is Dana Whitfield; 1:1s on Tuesdays.", 120),
            ("Ben's the user's manager now; Dana Whitfield moved to Sales.", 30),
            *((text, 60 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    # "Ben's" is "Ben is", and the note says "now": the update of the user's manager
    ranked = ranking(store, "Who is my manager?", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids[0] == new and old in ids
    assert dict(ranked)[new]["stages"]["current_group"] == 2
