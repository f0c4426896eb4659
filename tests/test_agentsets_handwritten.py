"""What every hand-written agent-memory set (``team``, ``assistant``, ``engineer``,
``support``, ``research``) must hold: the committed JSON is its module's, ids resolve, a
current answer is the newest statement of its topic, every kind is asked in realistic
proportions, the split is by topic, no sentence is borrowed from another set, and its
label checks refuse a wrong label; and what those written blind (``assistant``,
``engineer``, ``support``, ``research``) hold besides: they run in every suite, are tagged
loosely, mostly restate their updates and hold a good share of noise. No recall runs here:
the blind sets were written without looking at how recall ranks them."""

from __future__ import annotations

import json
import re
from collections import Counter
from types import ModuleType
from typing import Any

import pytest

from houkai.bench import agentset_run
from houkai.bench.agentsets import SETS, assistant, engineer, research, support, team
from houkai.bench.agentsets.common import KINDS, SUITE_SETS
from houkai.bench.agentsets.team import topic_of

#: Each set, its module, and the sets it must borrow no sentence from (written before it).
HANDWRITTEN: tuple[tuple[ModuleType, tuple[str, ...]], ...] = (
    (team, ("coding", "personal")),
    (assistant, ("coding", "personal", "team")),
    (engineer, ("coding", "personal", "team", "assistant")),
    (support, ("coding", "personal", "team", "assistant", "engineer")),
    (research, ("coding", "personal", "team", "assistant", "engineer", "support")),
)
#: The sets written blind, and how many updates each holds at least.
BLIND: tuple[tuple[ModuleType, int], ...] = (
    (assistant, 50),
    (engineer, 55),
    (support, 55),
    (research, 55),
)


@pytest.fixture(scope="module", params=HANDWRITTEN, ids=[m.SET.name for m, _ in HANDWRITTEN])
def written(request) -> tuple[ModuleType, tuple[str, ...], dict[str, Any]]:
    module, others = request.param
    data = agentset_run.load(module.SET.name)
    return module, others, data


def test_the_committed_json_is_what_the_module_builds(written):
    """Nobody edits the JSON by hand; the module's text is the set, one the suite knows."""
    module, _, data = written
    assert data == json.loads(json.dumps(module.build().document()))
    assert data["name"] in SETS


def test_ids_resolve_and_every_answer_exists(written):
    _, _, data = written
    ids = [m["id"] for m in data["memories"]]
    assert len(ids) == len(set(ids)) and 350 <= len(ids) <= 450
    assert 100 <= len(data["queries"]) <= 150
    by_id = {m["id"]: m for m in data["memories"]}
    for q in data["queries"]:
        assert q["relevant"] and set(q["relevant"]) <= set(by_id), q
        assert q["kind"] in KINDS and q["split"] in ("dev", "test")
    for m in data["memories"]:
        if "supersedes" in m:  # a link always points at an older statement
            assert by_id[m["supersedes"]]["days_ago"] > m["days_ago"], m
        assert 0 < m["days_ago"] < 200 and m["text"].strip()


def test_a_current_answer_is_the_newest_of_several_statements(written):
    _, _, data = written
    by_id = {m["id"]: m for m in data["memories"]}
    for q in data["queries"]:
        if q["kind"] != "current":
            continue
        answer = by_id[q["relevant"][0]]
        same = [m for m in data["memories"] if m.get("topic") == answer["topic"]]
        assert len(same) >= 2, q["text"]  # the older value exists
        assert min(same, key=lambda m: m["days_ago"])["id"] == answer["id"], q["text"]


def test_every_kind_is_asked_in_realistic_proportions(written):
    _, _, data = written
    kinds = Counter(q["kind"] for q in data["queries"])
    assert set(kinds) == set(KINDS)
    n = sum(kinds.values())
    assert kinds["current"] / n >= 0.2 and kinds["distractor"] / n >= 0.15
    assert kinds["paraphrase"] / n >= 0.15
    assert kinds["multi-hop"] >= 10 and kinds["past"] >= 10 and kinds["keyword"] >= 10
    for q in data["queries"]:
        if q["kind"] == "multi-hop":  # two memories, the topic named on its own
            assert len(q["relevant"]) >= 2 and q["topic"].startswith("mh."), q["text"]


def test_the_split_is_disjoint_by_topic_and_about_half(written):
    _, _, data = written
    splits: dict[str, set[str]] = {}
    for q in data["queries"]:
        splits.setdefault(q["topic"], set()).add(q["split"])
    assert all(len(s) == 1 for s in splits.values())
    dev = sum(1 for q in data["queries"] if q["split"] == "dev")
    assert 0.4 <= dev / len(data["queries"]) <= 0.6
    assert agentset_run.questions(data, "dev") and agentset_run.questions(data, "test")


def test_no_sentence_is_borrowed_from_another_set(written):
    """Written by hand: no run of five words in common with the sets written before it."""
    _, others, data = written

    def runs(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}

    theirs: set[tuple[str, ...]] = set()
    for name in others:
        other = agentset_run.load(name)
        for item in other["memories"] + other["queries"]:
            theirs |= runs(item["text"])
    shared = [i["text"] for i in data["memories"] + data["queries"] if runs(i["text"]) & theirs]
    assert shared == []


@pytest.fixture(scope="module", params=BLIND, ids=[m.SET.name for m, _ in BLIND])
def blind(request) -> tuple[ModuleType, int, dict[str, Any]]:
    module, updates = request.param
    return module, updates, agentset_run.load(module.SET.name)


def test_a_blind_set_runs_in_every_suite(blind):
    """The set and its one-sitting copy run in every ``houkai bench suite``."""
    module, _, data = blind
    assert {module.NAME, f"{module.NAME}:sitting"} <= set(SUITE_SETS.split(","))
    assert data["name"] == module.NAME and data["as_of"] == module.AS_OF
    assert all(m["id"].startswith(module.SET.prefix) for m in data["memories"])


def test_a_blind_set_is_tagged_loosely_and_often_not(blind):
    """What an extractor writes: at least 40% of memories carry no tag at all, the rest
    one or two, in lower case."""
    _, _, data = blind
    untagged = sum(1 for m in data["memories"] if not m["tags"])
    assert untagged / len(data["memories"]) >= 0.4
    assert all(len(m["tags"]) <= 2 for m in data["memories"])
    assert all(t == t.lower() for m in data["memories"] for t in m["tags"])


def test_a_good_share_of_a_blind_set_is_noise(blind):
    """Day-to-day notes on no question's topic: a third or more of the set."""
    _, _, data = blind
    asked = {r for q in data["queries"] for r in q["relevant"]}
    topics = {m.get("topic") for m in data["memories"] if m["id"] in asked}
    noise = [m for m in data["memories"] if m.get("topic") not in topics]
    assert len(noise) / len(data["memories"]) >= 0.33


def test_a_blind_set_mostly_restates_its_updates(blind):
    """Between a fifth and 45% of the updates carry a ``supersedes`` link; the rest are
    restated."""
    _, least, data = blind
    by_topic = Counter(m["topic"] for m in data["memories"] if m.get("topic"))
    updates = sum(n - 1 for n in by_topic.values() if n > 1)
    linked = sum(1 for m in data["memories"] if "supersedes" in m)
    assert updates >= least and 0.2 <= linked / updates <= 0.45


def test_a_past_question_is_on_a_topic_without_a_link(blind):
    """A past answer is an older statement on a topic whose update has no link (a link
    would let default recall hide the answer)."""
    _, _, data = blind
    by_id = {m["id"]: m for m in data["memories"]}
    linked = {by_id[m["supersedes"]]["topic"] for m in data["memories"] if "supersedes" in m}
    for q in data["queries"]:
        if q["kind"] != "past":
            continue
        answer = by_id[q["relevant"][0]]
        same = [m for m in data["memories"] if m.get("topic") == answer["topic"]]
        assert answer["topic"] not in linked, q["text"]
        assert min(same, key=lambda m: m["days_ago"])["id"] != answer["id"], q["text"]


def test_the_label_checks_refuse_a_wrong_label(written):
    """A current question on an old statement, a past one on a linked topic or on the
    newest statement, and a question on an unknown memory are refused, naming the set."""
    module, _, _ = written
    declared = module.SET
    memories, questions = declared.parse_memories(), declared.parse_questions()
    declared.check(memories, questions)
    topics: dict[str, list[dict[str, Any]]] = {}
    for m in memories:
        if m["key"]:
            topics.setdefault(topic_of(m["key"]), []).append(m)
    linked = {topic_of(m["key"]) for m in memories if m["older"]}
    changed = {t: sorted(ms, key=lambda m: -m["days"]) for t, ms in topics.items() if len(ms) > 1}
    oldest = next(ms[0]["key"] for ms in changed.values())
    on_a_link = next(ms[0]["key"] for t, ms in changed.items() if t in linked)
    newest = next(ms[-1]["key"] for t, ms in changed.items() if t not in linked)

    def relabel(kind: str, key: str) -> list[dict[str, Any]]:
        return [dict(q, keys=[key]) if q["kind"] == kind else q for q in questions]

    with pytest.raises(ValueError, match=rf"{declared.name} set: current question .* not on an"):
        declared.check(memories, relabel("current", oldest))
    for key in (on_a_link, newest):
        with pytest.raises(ValueError, match="hidden or new"):
            declared.check(memories, relabel("past", key))
    unknown = [*questions, {"kind": "keyword", "keys": ["nope"], "topic": "x", "text": "?"}]
    with pytest.raises(ValueError, match="unknown memories"):
        declared.check(memories, unknown)
