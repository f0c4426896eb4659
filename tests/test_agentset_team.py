"""The hand-written ``team`` agent-memory set (issue #29): it loads, its labels hold."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from houkai.bench import agentset_run
from houkai.bench.agentsets import SETS, team
from houkai.bench.agentsets.common import KINDS


@pytest.fixture(scope="module")
def data():
    return agentset_run.load("team")


def test_the_committed_json_is_what_the_module_builds(data):
    """Nobody edits the JSON by hand; the module's text is the set."""
    assert data == json.loads(json.dumps(team.build().document()))
    assert "team" in SETS


def test_ids_resolve_and_every_answer_exists(data):
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


def test_every_kind_is_asked_in_realistic_proportions(data):
    kinds = Counter(q["kind"] for q in data["queries"])
    assert set(kinds) == set(KINDS)
    n = sum(kinds.values())
    assert kinds["current"] / n >= 0.2 and kinds["distractor"] / n >= 0.15
    assert kinds["multi-hop"] >= 10 and kinds["past"] >= 10 and kinds["keyword"] >= 10


def test_a_current_answer_is_the_newest_of_several_statements(data):
    by_id = {m["id"]: m for m in data["memories"]}
    for q in data["queries"]:
        if q["kind"] != "current":
            continue
        answer = by_id[q["relevant"][0]]
        same = [m for m in data["memories"] if m.get("topic") == answer["topic"]]
        assert len(same) >= 2, q["text"]  # the older value exists
        assert min(same, key=lambda m: m["days_ago"])["id"] == answer["id"], q["text"]


def test_the_split_is_disjoint_by_topic_and_about_half(data):
    splits: dict[str, set[str]] = {}
    for q in data["queries"]:
        splits.setdefault(q["topic"], set()).add(q["split"])
    assert all(len(s) == 1 for s in splits.values())
    dev = sum(1 for q in data["queries"] if q["split"] == "dev")
    assert 0.4 <= dev / len(data["queries"]) <= 0.6
    assert agentset_run.questions(data, "dev") and agentset_run.questions(data, "test")


def test_no_sentence_is_shared_with_the_templated_sets(data):
    """Hand-written: no run of five words in common with the coding or personal set."""

    def runs(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}

    templated: set[tuple[str, ...]] = set()
    for name in ("coding", "personal"):
        other = agentset_run.load(name)
        for item in other["memories"] + other["queries"]:
            templated |= runs(item["text"])
    shared = [i["text"] for i in data["memories"] + data["queries"] if runs(i["text"]) & templated]
    assert shared == []


def test_the_label_checks_refuse_a_wrong_label():
    memories = team.parse_memories()
    questions = team.parse_questions()
    stale = [dict(q, keys=["hf.deadline.1"]) if q["kind"] == "current" else q for q in questions]
    with pytest.raises(ValueError, match="not on an update"):
        team.check(memories, stale)
    hidden = [dict(q, keys=["hf.budget.1"]) if q["kind"] == "past" else q for q in questions]
    with pytest.raises(ValueError, match="hidden or new"):
        team.check(memories, hidden)
    unknown = [*questions, {"kind": "keyword", "keys": ["nope"], "topic": "x", "text": "?"}]
    with pytest.raises(ValueError, match="unknown memories"):
        team.check(memories, unknown)


def test_agentset_run_reads_the_set_unchanged(settings, embedder):
    """The runner the suite uses ingests all 400 memories, applies the supersede links and
    asks the chosen split (a few dev questions: no score is looked at here)."""
    result = agentset_run.run(
        "team", {"plain": {"mode": "hybrid", "stages": ()}}, split="dev", settings=settings, limit=4
    )
    assert result["benchmark"] == "agent-team" and result["split"] == "dev"
    assert result["memories"] == len(agentset_run.load("team")["memories"])
    (plain,) = result["modes"]
    assert plain["mode"] == "plain" and plain["n"] == 4 == result["questions"]
    assert set(plain["by_kind"]) <= set(KINDS) and 0.0 <= plain["recall@5"] <= 1.0
