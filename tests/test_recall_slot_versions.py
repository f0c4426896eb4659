"""A fact set many times without a supersede link: a question about the present ranks the
newest value first, however each version was worded (ADR 0114). The collection holds the
same slot of other services and other slots of the same one, as an agent's notes do."""

from __future__ import annotations

import pytest
from _dated import ranking, write_dated

from houkai import MemoryStore
from houkai.recall.asking import intent

#: cart-api's deploy target over a year, oldest first, each worded its own way: the
#: wordings' cosines run from 0.61 to 0.79, and no question word is the versions' alone
DEPLOY_TARGETS = [
    ("cart-api deploy target is GKE.", 394),
    ("The deploy target of cart-api is Fly.io.", 273),
    ("Updated the deploy target for cart-api: Cloud Run.", 226),
    ("Updated the deploy target for cart-api: AKS.", 128),
    ("We run cart-api with deploy target Nomad from now on.", 90),
    ("cart-api deploy target switched to EKS today.", 30),
]
NEIGHBOURS = [
    ("cart-api production port is 7558.", 36),
    ("Changed cart-api cache TTL from 120 seconds to 3600 seconds.", 3),
    ("The deploy target of quota-keeper is Cloud Run.", 50),
    ("billing-api deploy target = Heroku", 12),
    ("search-indexer deploy target is ECS.", 8),
    ("Bumped geo-lookup deploy target to Nomad.", 5),
    ("The Node version of cart-api is 22.6.3.", 19),
    ("CI for search-indexer is Buildkite.", 20),
    ("The search indexer stores its data in CockroachDB.", 200),
    ("The search indexer uses FastAPI for its web framework.", 150),
]


@pytest.fixture
def written(store: MemoryStore) -> list[str]:
    return write_dated(store, DEPLOY_TARGETS + NEIGHBOURS)


@pytest.mark.parametrize(
    "question",
    [
        "cart-api deploy target",
        "What's cart-api's deploy target?",
        "Which deploy target does cart-api use these days?",
        "cart-api deploy target now",
    ],
)
def test_the_newest_of_six_versions_comes_first(
    store: MemoryStore, written: list[str], question: str
) -> None:
    versions, newest = written[: len(DEPLOY_TARGETS)], written[len(DEPLOY_TARGETS) - 1]
    ranked = ranking(store, question, k=10)
    assert ranked[0][0] == newest, [store.get(mid).text for mid, _ in ranked[:3]]
    # the older versions follow it, grouped as one topic
    assert ranked[0][1]["stages"].get("current_group")
    assert set(versions) <= {mid for mid, _ in ranked}


def test_a_sibling_fact_of_a_subject_named_in_words_is_no_version(
    store: MemoryStore, written: list[str]
) -> None:
    """ "the search indexer" names no identifier in the question: notes that share only the
    subject are siblings, and the answer keeps its place above a newer one (ADR 0088)."""
    answer = written[len(DEPLOY_TARGETS) + len(NEIGHBOURS) - 2]
    ranked = ranking(store, "What DB is behind the search indexer?")
    assert ranked[0][0] == answer


@pytest.mark.parametrize(
    "question",
    [
        "What deploy target did cart-api start with?",
        "What was cart-api's deploy target originally?",
        "Which deploy target did cart-api start out with?",
    ],
)
def test_what_a_slot_started_with_is_its_oldest_version(
    store: MemoryStore, written: list[str], question: str
) -> None:
    """ "start with" asks for the first value, as "originally" does: the oldest version
    first, not the newest last among the rest."""
    assert intent(question) == "past"
    assert ranking(store, question, k=10)[0][0] == written[0]


@pytest.mark.parametrize(
    "question",
    [
        "What do order numbers start with now?",
        "What do our Stripe API keys start with?",
        "What should I start with?",
    ],
)
def test_start_with_in_the_present_asks_no_first_value(question: str) -> None:
    assert intent(question) == "present"
