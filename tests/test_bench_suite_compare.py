"""``houkai bench compare``: two suite results, set by set, with the suite's one-question
rule (a gain on one measure does not pay for a cost on the other). Reads files only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _childenv import bench_cli

from houkai.bench import suite_compare


def _result(split: str = "dev", **sets: tuple[float, float]) -> dict:
    """A suite result whose sets (name → defaults' R@5, MRR) hold 50 questions each."""
    return {
        "split": split,
        "sets": {
            name: {"modes": [{"mode": "defaults", "n": 50, "recall@5": r5, "mrr": mrr}]}
            for name, (r5, mrr) in sets.items()
        },
    }


def test_each_set_holds_gains_or_costs_by_one_questions_worth() -> None:
    before = _result(a=(0.80, 0.70), b=(0.80, 0.70), c=(0.80, 0.70), d=(0.80, 0.70))
    after = _result(
        a=(0.82, 0.70),  # one question of 50: holds
        b=(0.84, 0.70),  # two: gains
        c=(0.76, 0.70),  # two lost: costs
        d=(0.90, 0.66),  # five gained do not pay for two lost on MRR
    )
    rows = suite_compare.compare(before, after)
    assert [(r["set"], r["verdict"]) for r in rows] == [
        ("a", "holds"),
        ("b", "gains"),
        ("c", "costs"),
        ("d", "costs"),
    ]
    assert rows[1]["delta_r5"] == pytest.approx(0.04)
    r5, mrr = suite_compare.questions_worth(rows)
    assert r5 == pytest.approx(6.0) and mrr == pytest.approx(-2.0)


def test_only_the_sets_both_results_scored_are_compared() -> None:
    rows = suite_compare.compare(_result(a=(0.8, 0.7), b=(0.8, 0.7)), _result(b=(0.8, 0.7)))
    assert [r["set"] for r in rows] == ["b"]
    with pytest.raises(ValueError, match="share no set scored in mode 'plain'"):
        suite_compare.compare(_result(a=(0.8, 0.7)), _result(a=(0.8, 0.7)), mode="plain")
    with pytest.raises(ValueError, match="different splits"):
        suite_compare.compare(_result("dev", a=(0.8, 0.7)), _result("test", a=(0.8, 0.7)))


@pytest.fixture
def compare_cli(settings, tmp_path):
    return bench_cli(settings, tmp_path, "bench", "compare")


def _write(path: Path, data: dict) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def test_the_command_reports_every_set_and_check_fails_on_a_cost(compare_cli, tmp_path) -> None:
    before = _write(tmp_path / "before.json", _result(a=(0.80, 0.70), b=(0.80, 0.70)))
    after = _write(tmp_path / "after.json", _result(a=(0.84, 0.70), b=(0.76, 0.70)))
    shown = compare_cli(before, after, "-f", "tsv")
    assert shown.exit_code == 0
    lines = shown.output.splitlines()
    assert lines[1].split("\t")[-1] == "gains" and lines[2].split("\t")[-1] == "costs"
    assert "2 sets: 1 hold or gain, 1 cost (b); summed, in questions: R@5 +0.0" in shown.output
    assert compare_cli(before, after, "--check").exit_code == 1
    same = compare_cli(before, before, "--check", "--json")
    assert same.exit_code == 0
    assert {r["verdict"] for r in json.loads(same.output)["sets"]} == {"holds"}


def test_a_file_that_is_no_suite_result_is_a_clear_error(compare_cli, tmp_path) -> None:
    good = _write(tmp_path / "good.json", _result(a=(0.8, 0.7)))
    (tmp_path / "broken.json").write_text("{not json")
    broken = compare_cli(good, str(tmp_path / "broken.json"))
    assert broken.exit_code == 1 and "Error: " in broken.output and "not JSON" in broken.output
    other = compare_cli(good, _write(tmp_path / "other.json", {"benchmark": "locomo"}))
    assert other.exit_code == 1
    assert "not a `houkai bench suite` result" in other.output
    missing = compare_cli(good, str(tmp_path / "nope.json"))
    assert missing.exit_code == 1
    assert "Error: " in missing.output and "does not exist" in missing.output
