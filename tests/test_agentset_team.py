"""The hand-written ``team`` agent-memory set (issue #29) through the suite's runner; the
checks every hand-written set shares are in ``test_agentsets_handwritten.py``."""

from __future__ import annotations

from houkai.bench import agentset_run
from houkai.bench.agentsets.common import KINDS


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
