"""The ``current`` stage groups an update with the fact it replaces by the word it repeats
(ADR 0085), on small real-Redis collections: an update is often phrased unlike the old
fact and names the project another way, but it repeats the replaced value."""

from __future__ import annotations

import time

from _dated import ranking, write_dated

from houkai import MemoryStore
from houkai.domain.model import Memory
from houkai.recall.asking import StateQuery, named_things
from houkai.recall.candidates import Candidate
from houkai.recall.coverage import entity_penalty, tag_things
from houkai.recall.query import parse_query
from houkai.store.lexstats import TermStats

SERVICE = [
    "Code owner for notify-service is Ravi.",
    "notify-service listens on port 5173 locally.",
    "We ship notify-service to AWS Lambda with the release workflow.",
    "Formatter/linter in notify-service: ruff.",
    "The ETL repo uses Express for its web framework.",
    "Database for the ETL repo: Postgres 15.",
]


def test_an_update_that_names_the_project_another_way_is_grouped_by_the_value_it_repeats(
    store: MemoryStore,
):
    old, new, *_ = write_dated(
        store,
        [
            ("The notification service uses chi for its web framework.", 200),
            (
                "notify-service now uses Express as its web framework; the chi app is gone.",
                30,
            ),
            *((text, 150 + i) for i, text in enumerate(SERVICE)),
        ],
    )
    question = "What web framework does notify-service use?"
    ranked = ranking(store, question)
    assert ranked[0][0] == new
    assert ranked[0][1]["stages"]["current_group"] == 2
    # the old fact names the project "the notification service": it holds less of the
    # question's named thing, which alone kept the two apart
    assert ranked[1][0] == old
    assert ranked[1][1]["stages"]["entity"] < 0
    # a question about the past gets the older one first, from the same group
    ranked = ranking(store, "Which web framework did notify-service use originally?")
    assert ranked[0][0] == old
    assert ranked[0][1]["stages"]["current_group"] == 2


def test_two_projects_updates_that_share_a_word_are_not_one_topic(store: MemoryStore):
    billing, indexer, *_ = write_dated(
        store,
        [
            ("Bumped billing-api from Go 1.21 to Java 17.", 100),
            ("Bumped the search indexer from Java 17 to Java 21.", 130),
            ("billing-api now requires Go 1.21; Python 3.10 support was dropped.", 170),
            *((text, 150 + i) for i, text in enumerate(SERVICE)),
        ],
    )
    # both repeat "bumped", which no other candidate holds; only the first is about what
    # the question asks (the billing service), so they are not one topic's old and new
    ranked = dict(ranking(store, "Which runtime was the billing service on before Java 17?"))
    assert billing in ranked
    assert "current_group" not in ranked[indexer]["stages"]


def test_a_short_acronym_is_no_name_of_the_question() -> None:
    """ "CI" or "API" is a term many memories share: it neither doubles the lexical weight
    nor makes the question one about someone (the ``context`` stage's episode prior)."""
    parse = parse_query("Which CI builds the API of Atlas?", time.time())
    assert parse.names == ["Atlas"]
    assert parse_query("Who reviews the billing API?", time.time()).names == []
    assert parse_query("Who reviews PRs on the data pipeline?", time.time()).names == []
    assert parse_query("Which APIs does Atlas call?", time.time()).names == ["Atlas"]
    assert named_things("Which CI builds the API of Atlas?") == ["Atlas"]


def test_a_word_of_letters_and_digits_is_an_exact_token() -> None:
    """A commit hash or an error code is an identifier even without a dash: the lexical
    weight rises for it as for ``ORN-4821``."""
    now = time.time()
    assert parse_query("What did commit 099b874 change?", now).exact == ["099b874"]
    assert parse_query("What does error E1042 mean?", now).kind == "keyword"
    # "mp3" is too short to be an id; a time of day is asked for (ADR 0117)
    assert parse_query("Is the mp3 at 10am?", now).exact == ["10am"]


def test_a_memory_tagged_with_the_project_is_about_it_whatever_it_calls_it(
    store: MemoryStore,
):
    """The ``entity`` stage reads a memory's tags with its text: the note that calls
    checkout-web "the storefront" is not taken for one about another service."""
    written = store.remember_many(
        [
            {
                "text": "The storefront dev server comes up on localhost:8000.",
                "tags": ["checkout-web"],
            },
            {"text": "The mobile app listens on port 8443 locally.", "tags": ["mobile-app"]},
            {"text": "The billing service listens on port 9090 locally.", "tags": ["billing-api"]},
            {"text": "checkout-web is hosted on ECS Fargate.", "tags": ["checkout-web"]},
            {"text": "checkout-web builds on GitLab CI.", "tags": ["checkout-web"]},
            *({"text": text} for text in SERVICE),
        ]
    )
    right, mobile, billing = (m.id for m in written[:3])
    ranked = dict(ranking(store, "What's checkout-web's local port?", k=10))
    assert "entity" not in ranked[right]["stages"]
    assert ranked[mobile]["stages"]["entity"] < 0 and ranked[billing]["stages"]["entity"] < 0


def test_a_tag_the_question_names_in_lower_case_is_a_named_thing() -> None:
    """ "the billing API" names ``billing-api`` by its first word; the words many memories
    use ("api") say nothing of which project. "web framework" does not name
    ``checkout-web``: a slug's first word names it."""
    stats = TermStats(n_docs=100, total_len=1000, df={"billing": 9, "api": 40, "web": 3})
    tags = ("billing-api", "checkout-web", "web")
    cands = [Candidate(Memory(id=tag, text="x", tags=[tag])) for tag in tags]
    typed = [Candidate(Memory(id="t", text="x", tags=["type:decision"]))]

    def things(question: str) -> list[str]:
        state = StateQuery(question=question, asked=frozenset(question.lower().split()))
        read = tag_things(state, cands, stats)
        return [f"{e}:{sorted(w)}" for e, w in zip(read.entities, read.words, strict=True)]

    assert things("which lint tool does the billing api use") == ["billing-api:['billing']"]
    # a namespace tag names no project ("type:decision" for "what type of db")
    assert tag_things(StateQuery(asked=frozenset({"type"})), typed, stats).entities == []
    assert things("which web framework does it use") == []  # nor the one-word tag "web"
    assert things("who owns it") == []


def test_a_tag_with_digits_is_no_record_identifier() -> None:
    """``s3-backups`` named as "the s3 backups" is a project: a memory without "s3" takes
    the entity stage's share, not the half an identifier the question names costs."""
    stats = TermStats(n_docs=100, total_len=1000, df={"s3": 5, "backups": 9, "nightly": 4})
    cands = [
        Candidate(Memory(id=i, text=t, tags=["s3-backups"] if i == "a" else []), score=1.0)
        for i, t in (("a", "The s3 backups run nightly."), ("b", "Backups run nightly."))
    ]
    asked = frozenset({"when", "do", "the", "s3", "backups", "run"})
    read = tag_things(StateQuery(asked=asked), cands, stats)
    assert read.entities == ["s3-backups"] and read.from_tags == {"s3-backups"}
    entity_penalty(cands, read, weight=0.15, code=0.5)
    assert cands[0].score == 1.0 and 0.5 < cands[1].score < 1.0


def test_a_memory_about_another_project_drops_when_the_question_names_its_tag_in_lower_case(
    store: MemoryStore,
):
    """Tagged ``billing-api`` and asked about "the billing API", the note on another
    service's linter no longer outranks the billing notes on words alone."""
    written = store.remember_many(
        [
            {"text": "billing-api: biome now, black + flake8 config deleted.",
             "tags": ["billing-api"]},
            {"text": "Formatter/linter in ledger-worker: golangci-lint.",
             "tags": ["ledger-worker"]},
            {"text": "billing-api uses Buildkite for CI.", "tags": ["billing-api"]},
            {"text": "ledger-worker deploys with Argo CD.", "tags": ["ledger-worker"]},
            *({"text": text} for text in SERVICE),
        ]
    )  # fmt: skip
    billing, ledger = (m.id for m in written[:2])
    ranked = dict(ranking(store, "Which lint tool does the billing API use?", k=10))
    assert ranked[ledger]["stages"]["entity"] < 0
    assert "entity" not in ranked[billing]["stages"]
    assert "billing-api" in ranked[billing]["stages"]["question"]["entities"]


def test_an_apostrophe_inside_words_quotes_no_phrase() -> None:
    """ "What's checkout-web's port?" holds two apostrophes, not a quoted phrase: it is not
    a keyword question (whose lexical weight doubles)."""
    now = time.time()
    assert parse_query("What's checkout-web's local port?", now).exact == []
    assert parse_query("What’s Tom’s birthday?", now).kind == "general"
    assert parse_query("What does 'vendor onboarding' mean?", now).exact == ["vendor onboarding"]
    assert parse_query("Why is it “blocked by legal”?", now).exact == ["blocked by legal"]
