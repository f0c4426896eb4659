"""The hand-written, blind ``engineer`` agent-memory set: it loads, its labels hold.

No recall runs here: the set was written without looking at how recall ranks it, and its
tests check only the labels and the shape of the data.
"""

from __future__ import annotations

from collections import Counter

import pytest

from houkai.bench import agentset_run
from houkai.bench.agentsets import SETS, engineer
from houkai.bench.agentsets.common import KINDS, SUITE_SETS


@pytest.fixture(scope="module")
def data():
    return agentset_run.load("engineer")


def test_the_set_is_in_every_suite_run(data):
    """The blind set and its one-sitting copy run in every ``houkai bench suite``."""
    assert "engineer" in SETS
    assert {"engineer", "engineer:sitting"} <= set(SUITE_SETS.split(","))
    assert data["name"] == "engineer" and data["as_of"] == engineer.AS_OF
    assert all(m["id"].startswith("e") for m in data["memories"])


def test_its_size_and_dates(data):
    assert 380 <= len(data["memories"]) <= 440 and 110 <= len(data["queries"]) <= 145
    assert all(0 < m["days_ago"] < 200 for m in data["memories"])


def test_every_kind_is_asked_in_realistic_proportions(data):
    kinds = Counter(q["kind"] for q in data["queries"])
    assert set(kinds) == set(KINDS)
    n = sum(kinds.values())
    assert kinds["current"] / n >= 0.2 and kinds["distractor"] / n >= 0.15
    assert kinds["paraphrase"] / n >= 0.15
    assert kinds["multi-hop"] >= 10 and kinds["past"] >= 10 and kinds["keyword"] >= 10
    for q in data["queries"]:
        if q["kind"] == "multi-hop":  # two memories, the topic named on its own
            assert len(q["relevant"]) >= 2 and q["topic"].startswith("mh."), q["text"]


def test_tags_are_loose_and_often_missing(data):
    """What an extractor writes: at least 40% of memories carry no tag at all, the rest
    one or two, lowercase."""
    untagged = sum(1 for m in data["memories"] if not m["tags"])
    assert untagged / len(data["memories"]) >= 0.4
    assert all(len(m["tags"]) <= 2 for m in data["memories"])
    assert all(t == t.lower() for m in data["memories"] for t in m["tags"])


def test_a_good_share_is_noise(data):
    """Day-to-day notes on no question's topic: a third or more of the set."""
    asked = {r for q in data["queries"] for r in q["relevant"]}
    topics = {m.get("topic") for m in data["memories"] if m["id"] in asked}
    noise = [m for m in data["memories"] if m.get("topic") not in topics]
    assert len(noise) / len(data["memories"]) >= 1 / 3


def test_updates_are_mostly_restated_without_a_link(data):
    """Between a fifth and 45% of the updates carry a ``supersedes`` link; the rest are
    restated."""
    by_topic = Counter(m["topic"] for m in data["memories"] if m.get("topic"))
    updates = sum(n - 1 for n in by_topic.values() if n > 1)
    linked = sum(1 for m in data["memories"] if "supersedes" in m)
    assert updates >= 55 and 0.2 <= linked / updates <= 0.45


def test_past_questions_are_not_on_linked_topics(data):
    """A past answer is an older statement on a topic whose update has no link (a link
    would let default recall hide the answer)."""
    by_id = {m["id"]: m for m in data["memories"]}
    linked = {by_id[m["supersedes"]]["topic"] for m in data["memories"] if "supersedes" in m}
    for q in data["queries"]:
        if q["kind"] != "past":
            continue
        answer = by_id[q["relevant"][0]]
        same = [m for m in data["memories"] if m.get("topic") == answer["topic"]]
        assert answer["topic"] not in linked, q["text"]
        assert min(same, key=lambda m: m["days_ago"])["id"] != answer["id"], q["text"]


def test_the_label_checks_refuse_a_wrong_label():
    memories = engineer.parse_memories()
    questions = engineer.parse_questions()
    engineer.check(memories, questions)
    stale = [dict(q, keys=["billing.port.1"]) if q["kind"] == "current" else q for q in questions]
    with pytest.raises(ValueError, match=r"engineer set: current question .* not on an update"):
        engineer.check(memories, stale)
    hidden = [dict(q, keys=["auth.port.1"]) if q["kind"] == "past" else q for q in questions]
    with pytest.raises(ValueError, match="hidden or new"):
        engineer.check(memories, hidden)
    newest = [dict(q, keys=["billing.python.3"]) if q["kind"] == "past" else q for q in questions]
    with pytest.raises(ValueError, match="hidden or new"):
        engineer.check(memories, newest)
    unknown = [*questions, {"kind": "keyword", "keys": ["nope"], "topic": "x", "text": "?"}]
    with pytest.raises(ValueError, match="unknown memories"):
        engineer.check(memories, unknown)
