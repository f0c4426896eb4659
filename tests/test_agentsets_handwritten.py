"""What every hand-written agent-memory set (``team``, ``assistant``, ``engineer``) must
hold: the committed JSON is its module's, ids resolve, a current answer is the newest
statement of its topic, the split is by topic, and no sentence is borrowed from another
set. Each set's own rules are in its ``test_agentset_<name>.py``."""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

import pytest

from houkai.bench import agentset_run
from houkai.bench.agentsets import SETS, assistant, engineer, team
from houkai.bench.agentsets.common import KINDS

#: Each set, its module, and the sets it must borrow no sentence from (written before it).
HANDWRITTEN: tuple[tuple[ModuleType, tuple[str, ...]], ...] = (
    (team, ("coding", "personal")),
    (assistant, ("coding", "personal", "team")),
    (engineer, ("coding", "personal", "team", "assistant")),
)


@pytest.fixture(
    scope="module", params=HANDWRITTEN, ids=[m.__name__.rsplit(".", 1)[1] for m, _ in HANDWRITTEN]
)
def written(request) -> tuple[ModuleType, tuple[str, ...], dict[str, Any]]:
    module, others = request.param
    data = agentset_run.load(module.__name__.rsplit(".", 1)[1])
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
