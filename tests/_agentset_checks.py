"""Checks every hand-written agent-memory set's labels must pass (the ``team`` and
``assistant`` sets' tests share them): ids resolve, a current answer is the newest
statement of its topic, the split is by topic, no sentence is borrowed from another set."""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

from houkai.bench import agentset_run
from houkai.bench.agentsets import SETS
from houkai.bench.agentsets.common import KINDS


def assert_committed(data: dict[str, Any], module: ModuleType) -> None:
    """Nobody edits the JSON by hand: the committed file is what *module* builds, and the
    set is one the suite knows."""
    assert data == json.loads(json.dumps(module.build().document()))
    assert data["name"] in SETS


def assert_ids_resolve(data: dict[str, Any]) -> None:
    """350–450 memories and 100–150 questions; every answer exists; a link points at an
    older statement."""
    ids = [m["id"] for m in data["memories"]]
    assert len(ids) == len(set(ids)) and 350 <= len(ids) <= 450
    assert 100 <= len(data["queries"]) <= 150
    by_id = {m["id"]: m for m in data["memories"]}
    for q in data["queries"]:
        assert q["relevant"] and set(q["relevant"]) <= set(by_id), q
        assert q["kind"] in KINDS and q["split"] in ("dev", "test")
    for m in data["memories"]:
        if "supersedes" in m:
            assert by_id[m["supersedes"]]["days_ago"] > m["days_ago"], m
        assert 0 < m["days_ago"] < 200 and m["text"].strip()


def assert_current_answers_are_newest(data: dict[str, Any]) -> None:
    by_id = {m["id"]: m for m in data["memories"]}
    for q in data["queries"]:
        if q["kind"] != "current":
            continue
        answer = by_id[q["relevant"][0]]
        same = [m for m in data["memories"] if m.get("topic") == answer["topic"]]
        assert len(same) >= 2, q["text"]  # the older value exists
        assert min(same, key=lambda m: m["days_ago"])["id"] == answer["id"], q["text"]


def assert_split_by_topic(data: dict[str, Any]) -> None:
    """One topic's questions in one split; about half of them dev."""
    splits: dict[str, set[str]] = {}
    for q in data["queries"]:
        splits.setdefault(q["topic"], set()).add(q["split"])
    assert all(len(s) == 1 for s in splits.values())
    dev = sum(1 for q in data["queries"] if q["split"] == "dev")
    assert 0.4 <= dev / len(data["queries"]) <= 0.6
    assert agentset_run.questions(data, "dev") and agentset_run.questions(data, "test")


def borrowed(data: dict[str, Any], others: tuple[str, ...]) -> list[str]:
    """The texts of *data* sharing a run of five words with a memory or question of the
    sets named *others*."""

    def runs(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}

    theirs: set[tuple[str, ...]] = set()
    for name in others:
        other = agentset_run.load(name)
        for item in other["memories"] + other["queries"]:
            theirs |= runs(item["text"])
    return [i["text"] for i in data["memories"] + data["queries"] if runs(i["text"]) & theirs]
