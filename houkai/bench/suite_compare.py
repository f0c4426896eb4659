"""Two ``bench suite`` results side by side: what a change did to every set.

A recall change is decided on the whole suite, never on one set (issue #29). This reads
the JSON of a run before the change and of one after and gives, per set both scored in
one mode, R@5 and MRR before and after and whether the change holds, gains or costs more
than one question's worth (the rule the suite's per-stage verdicts use,
:func:`houkai.bench.suite.tolerance`). A gain on one measure does not pay for a cost on
the other: such a set costs. Nothing is run, so no Redis and no model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .suite import ROUNDING, questions_of, scored_sets, tolerance


def load(path: str | Path) -> dict[str, Any]:
    """A ``bench suite`` result from its JSON file; ValueError naming *path* when it is
    not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read it ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("sets"), dict):
        raise ValueError(f'{path}: not a `houkai bench suite` result (no "sets")')
    return data


def _scores(entry: dict[str, Any], mode: str) -> dict[str, Any] | None:
    for scores in entry.get("modes") or ():
        if scores.get("mode") == mode and "recall@5" in scores and "mrr" in scores:
            return scores
    return None


def compare(
    before: dict[str, Any], after: dict[str, Any], mode: str = "defaults"
) -> list[dict[str, Any]]:
    """Per set scored in *mode* in both results (in *after*'s order): the scores, their
    differences and a verdict (``holds``, ``gains``, ``costs``). ValueError when the two
    share no such set, or were run on different splits."""
    if before.get("split") != after.get("split"):
        raise ValueError(
            f"the results were run on different splits ({before.get('split')} and "
            f"{after.get('split')}): compare runs of one split"
        )
    earlier = dict(scored_sets(before))
    rows: list[dict[str, Any]] = []
    for name, entry in scored_sets(after):
        old = _scores(earlier.get(name) or {}, mode)
        new = _scores(entry, mode)
        if old is None or new is None:
            continue
        d5 = new["recall@5"] - old["recall@5"]
        dm = new["mrr"] - old["mrr"]
        slack = tolerance(entry) + ROUNDING
        if d5 < -slack or dm < -slack:
            verdict = "costs"
        elif d5 > slack or dm > slack:
            verdict = "gains"
        else:
            verdict = "holds"
        rows.append(
            {
                "set": name,
                "questions": questions_of(entry),
                "r5_before": old["recall@5"],
                "r5_after": new["recall@5"],
                "delta_r5": round(d5, 4),
                "mrr_before": old["mrr"],
                "mrr_after": new["mrr"],
                "delta_mrr": round(dm, 4),
                "verdict": verdict,
            }
        )
    if not rows:
        raise ValueError(f"the two results share no set scored in mode {mode!r}")
    return rows


def questions_worth(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """The R@5 and MRR differences summed over *rows*, each times its set's questions."""
    return (
        sum(r["delta_r5"] * r["questions"] for r in rows),
        sum(r["delta_mrr"] * r["questions"] for r in rows),
    )
