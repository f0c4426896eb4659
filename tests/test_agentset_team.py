"""The hand-written ``team`` agent-memory set (issue #29): it loads, its labels hold."""

from __future__ import annotations

from collections import Counter

import pytest

from houkai.bench import agentset_run
from houkai.bench.agentsets import team
from houkai.bench.agentsets.common import KINDS


@pytest.fixture(scope="module")
def data():
    return agentset_run.load("team")


def test_every_kind_is_asked_in_realistic_proportions(data):
    kinds = Counter(q["kind"] for q in data["queries"])
    assert set(kinds) == set(KINDS)
    n = sum(kinds.values())
    assert kinds["current"] / n >= 0.2 and kinds["distractor"] / n >= 0.15
    assert kinds["multi-hop"] >= 10 and kinds["past"] >= 10 and kinds["keyword"] >= 10


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
