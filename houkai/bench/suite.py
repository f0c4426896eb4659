"""``houkai bench suite``: every retrieval yardstick in one run, every stage on and off.

A stage decision made on one benchmark does not carry to memories agents write (issue
#29): the stages tuned on LoCoMo did not move a set of agent memories at all. The suite
runs, in one process and with one mode list:

* the agent-memory sets (:mod:`houkai.bench.agentsets`), on their ``dev`` or ``test``
  split (decide on dev; test confirms and is never tuned on), and the earlier held-out
  set (:mod:`houkai.bench.heldout`, one split, never tuned on either);
* LoCoMo with all 1,986 questions (category 5 included) and the peers' definitions
  besides this project's own (any-hit and session-level recall), optionally a subset;
* LongMemEval from a local JSON file when one is given (no package ships its data;
  nothing is downloaded at run time).

The modes: the plain blend, the defaults, the defaults with each default stage off
(``-stage``) and with each opt-in stage on (``+stage``), and RRF. ``verdicts`` then
says, per stage and set, what turning it on changed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..recall.stages import names, resolve_stages
from . import agentset_run
from .agentsets.common import SUITE_SETS

QUICK_LOCOMO = 1  # conversations in a --quick run
#: A stage "holds" a set when turning it on costs at most one question's worth of R@5 and
#: of MRR (1/n on a set of n questions), and never more than this floor on a large set.
HOLD_TOLERANCE = 0.005
#: Scores are kept to four decimals (``agentset_run.summarise``): a difference of two of them
#: is off by up to this much, so exactly one question lost must not read as more.
ROUNDING = 1e-4


def questions_of(entry: dict[str, Any]) -> int:
    """How many questions a set's run asked (the agent sets, heldout, LoCoMo)."""
    n = entry.get("questions") or entry.get("queries")
    if not n and entry.get("modes"):
        n = entry["modes"][0].get("questions") or entry["modes"][0].get("n")
    return int(n or 0)


def tolerance(entry: dict[str, Any]) -> float:
    n = questions_of(entry)
    return max(HOLD_TOLERANCE, 1.0 / n) if n else HOLD_TOLERANCE


def suite_modes(defaults: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Mode name → recall options: plain, defaults, each stage toggled, RRF."""
    modes: dict[str, dict[str, Any]] = {
        "plain": {"mode": "hybrid", "stages": ()},
        "defaults": {"mode": "hybrid", "stages": defaults},
    }
    for stage in names():  # the registry's: a stage registered there is toggled here
        if stage == "fitted":
            continue  # maps every kind to the shared weights (ADR 0043): nothing to toggle
        if stage in defaults:
            modes[f"-{stage}"] = {
                "mode": "hybrid",
                "stages": tuple(s for s in defaults if s != stage),
            }
        else:
            modes[f"+{stage}"] = {"mode": "hybrid", "stages": (*defaults, stage)}
    modes["rrf"] = {"mode": "hybrid", "fusion": "rrf"}
    return modes


#: A mode that names its stages itself: ``stages:synonyms+lineage+current`` (``stages:``
#: alone is the plain blend under another name; ``default`` stands for the defaults, as
#: in ``recall(stages="default,overlap")``).
STAGE_LIST = "stages:"


def stage_list_mode(mode: str) -> dict[str, Any]:
    """The recall options of a ``stages:a+b+c`` mode: those stages, read as recall reads a
    stage list (:func:`~houkai.recall.stages.resolve_stages`), in the registry's order (a
    stage runs at its place whatever order the mode lists them in)."""
    try:
        listed = resolve_stages(mode.removeprefix(STAGE_LIST).replace("+", ","))
    except ValueError as exc:
        raise ValueError(f"mode {mode!r}: {exc}") from None
    return {"mode": "hybrid", "stages": tuple(s for s in names() if s in listed)}


def pick_modes(all_modes: dict[str, dict[str, Any]], spec: str | None) -> dict[str, Any]:
    """The modes *spec* names (all of *all_modes* when it names none), and any
    ``stages:a+b+c`` mode it spells out (:func:`stage_list_mode`)."""
    if not spec:
        return all_modes
    picked = [m.strip() for m in spec.split(",") if m.strip()]
    unknown = [m for m in picked if m not in all_modes and not m.startswith(STAGE_LIST)]
    if unknown:
        raise ValueError(
            f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(all_modes)}, "
            f"or {STAGE_LIST}<stage>+<stage>…"
        )
    return {m: all_modes[m] if m in all_modes else stage_list_mode(m) for m in picked}


def verdicts(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per stage and set: R@5 and MRR with the stage on minus off (from the defaults)."""
    rows: list[dict[str, Any]] = []
    for name, entry in scored_sets(result):
        by_mode = {m["mode"]: m for m in entry["modes"]}
        base = by_mode.get("defaults")
        if base is None:
            continue
        slack = tolerance(entry) + ROUNDING
        for mode, scores in by_mode.items():
            if mode[:1] not in "+-" or len(mode) < 2:
                continue
            on, off = (scores, base) if mode[0] == "+" else (base, scores)
            d5 = on["recall@5"] - off["recall@5"]
            dm = on["mrr"] - off["mrr"]
            rows.append(
                {
                    "stage": mode[1:],
                    "set": name,
                    "default": mode[0] == "-",
                    "delta_r5": round(d5, 4),
                    "delta_mrr": round(dm, 4),
                    "holds": d5 >= -slack and dm >= -slack,
                    # the stage gains more than one question's worth: leaving it out costs
                    "gains": d5 > slack or dm > slack,
                }
            )
    return rows


def scored_sets(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = [(name, entry) for name, entry in result["sets"].items()]
    if result.get("locomo"):
        out.append(("locomo", result["locomo"]))
    if result.get("longmemeval"):
        out.append(("longmemeval", result["longmemeval"]))
    return out


def run(
    *,
    sets: str = SUITE_SETS,
    split: str = "dev",
    locomo_path: str | Path | None = None,
    quick: bool = False,
    modes: str | None = None,
    settings: Any = None,
    longmemeval_path: str | Path | None = None,
    longmemeval_limit: int | None = None,
    misses: bool = False,
) -> dict[str, Any]:
    """Run every set of *sets* (names or JSON paths) on *split*, LoCoMo when
    *locomo_path* is given (one conversation with *quick*) and LongMemEval when
    *longmemeval_path* is, in the same modes."""
    from ..domain.config import get_settings

    defaults = resolve_stages(None, (settings or get_settings()).recall_stages)
    chosen = pick_modes(suite_modes(defaults), modes)
    if longmemeval_path is not None:
        from . import longmemeval

        longmemeval.load(longmemeval_path)  # a bad file fails now, not after the other sets
    started = time.perf_counter()
    result: dict[str, Any] = {
        "benchmark": "suite",
        "split": split,
        "defaults": list(defaults),
        "modes": list(chosen),
        "sets": {},
    }
    names = [s.strip() for s in sets.split(",") if s.strip()]
    variants = (agentset_run.SITTING, agentset_run.TYPED)
    if any(name == "heldout" + v for name in names for v in variants):
        raise ValueError(
            "heldout is no agent-memory set: ':sitting' and ':typed' apply to agent sets only"
        )
    # every set read (and checked) before the first runs: a bad file fails now
    loaded = {name: agentset_run.load(name) for name in names if name != "heldout"}
    for name in names:
        if name == "heldout":  # the earlier held-out set: one split, never tuned on
            from . import heldout

            result["sets"]["heldout"] = heldout.run(settings=settings, modes_options=chosen)
            continue
        entry = agentset_run.run(
            loaded[name], chosen, split=split, settings=settings, misses=misses
        )
        result["sets"][entry["benchmark"].removeprefix("agent-")] = entry
    if locomo_path is not None:
        from . import locomo

        result["locomo"] = locomo.run(
            locomo_path,
            modes=list(chosen),
            modes_options=chosen,
            settings=settings,
            limit=QUICK_LOCOMO if quick else None,
            categories=locomo.ALL_CATEGORIES,
        )
    if longmemeval_path is not None:
        result["longmemeval"] = longmemeval.run(
            longmemeval_path, chosen, settings=settings, limit=longmemeval_limit
        )
    result["verdicts"] = verdicts(result)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per set and mode: R@5, R@10, MRR, p50 and R@5 per kind or category."""
    out = []
    for name, entry in scored_sets(result):
        for m in entry["modes"]:
            parts = m.get("by_kind") or m.get("by_category") or {}
            out.append(
                {
                    "set": name,
                    "mode": m["mode"],
                    "n": m.get("n", m.get("questions", 0)),
                    "r5": m["recall@5"],
                    "r10": m.get("recall@10", 0.0),
                    "mrr": m["mrr"],
                    "p50_ms": m.get("p50_ms", 0.0),
                    "kinds": {k: v["recall@5"] for k, v in parts.items()},
                }
            )
    return out


def write(result: dict[str, Any], path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=1) + "\n")


SUMMARY_MODES = ("plain", "defaults", "rrf")


def split_of(result: dict[str, Any], name: str) -> str:
    """The questions set *name* was asked: the run's split, or ``all`` for the held-out set,
    LoCoMo and a set whose questions carry no split."""
    entry = result["sets"].get(name)
    if entry is None or name == "heldout":
        return "all"
    return str(entry.get("split", result["split"]))


def summary(result: dict[str, Any]) -> str:
    """The headline table: each set's R@5 / MRR for the plain blend, the defaults and RRF
    (LoCoMo whole and its categories 1–4), then the defaults on the peers' LoCoMo measures.
    The README carries a copy that ``tests/test_bench_suite.py`` holds to this."""
    lines = ["| set | " + " | ".join(SUMMARY_MODES) + " |", "|" + "---|" * (len(SUMMARY_MODES) + 1)]
    peers = ""
    for name, entry in scored_sets(result):
        by_mode = {m["mode"]: m for m in entry["modes"]}
        n = questions_of(entry)
        split = split_of(result, name)
        label = f"{name} {split} ({n} questions)" if split != "all" else f"{name} ({n} questions)"
        cells = [
            f"{by_mode[m]['recall@5']:.3f} / {by_mode[m]['mrr']:.3f}" if m in by_mode else "—"
            for m in SUMMARY_MODES
        ]
        if any("categories_1_4" in m for m in entry["modes"]):
            label = f"LoCoMo, all {n:,}"
            four = [
                f"{by_mode[m]['categories_1_4']['recall@5']:.3f} / "
                f"{by_mode[m]['categories_1_4']['mrr']:.3f}"
                if m in by_mode and "categories_1_4" in by_mode[m]
                else "—"
                for m in SUMMARY_MODES
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
            lines.append("| LoCoMo, categories 1–4 | " + " | ".join(four) + " |")
            d = by_mode.get("defaults", {})
            if all(k in d for k in ("any@5", "any@10", "session@5", "session@10")):
                peers = (
                    f"LoCoMo defaults on the peers' measures: any-hit R@5 {d['any@5']:.3f} / "
                    f"R@10 {d['any@10']:.3f}, session-level R@5 {d['session@5']:.3f} / "
                    f"R@10 {d['session@10']:.3f}."
                )
            continue
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if peers:
        lines += ["", peers]
    return "\n".join(lines) + "\n"


def markdown(result: dict[str, Any]) -> str:
    """The suite as Markdown: the summary, then one table per set (modes × R@5, MRR, p50,
    R@5 per kind or category; LoCoMo adds the peers' measures), then each stage's effect
    per set."""
    lines: list[str] = [
        "R@5 / MRR per set: the plain blend, the defaults and RRF.",
        "",
        *summary(result).splitlines(),
        "",
    ]
    for name, entry in scored_sets(result):
        modes = entry["modes"]
        parts = list(modes[0].get("by_kind") or modes[0].get("by_category") or {}) if modes else []
        peers = [p for p in ("any@5", "any@10", "session@5", "session@10") if p in modes[0]]
        split = split_of(result, name)
        n = questions_of(entry)
        lines += [f"**{name}** ({split}, {n} questions)", ""]
        head = ["mode", "R@5", "R@10", "MRR", *peers, "p50 ms", *(f"{p} R@5" for p in parts)]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for m in modes:
            table = m.get("by_kind") or m.get("by_category") or {}
            cells = [
                m["mode"],
                f"{m['recall@5']:.3f}",
                f"{m['recall@10']:.3f}" if "recall@10" in m else "—",
                f"{m['mrr']:.3f}",
                *(f"{m[p]:.3f}" for p in peers),
                f"{m['p50_ms']:.1f}" if "p50_ms" in m else "—",
                *(f"{table[p]['recall@5']:.2f}" if p in table else "" for p in parts),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        scored = [m for m in modes if "categories_1_4" in m]
        if scored:
            lines += ["", "Categories 1–4 only (the figures of earlier ADRs):", ""]
            lines += [
                "| mode | R@5 | R@10 | MRR | any@5 | any@10 | session@10 |",
                "|---|---|---|---|---|---|---|",
            ]
            for m in scored:
                c = m["categories_1_4"]
                lines.append(
                    f"| {m['mode']} | {c['recall@5']:.3f} | {c['recall@10']:.3f} | {c['mrr']:.3f} "
                    f"| {c['any@5']:.3f} | {c['any@10']:.3f} | {c['session@10']:.3f} |"
                )
        lines.append("")
    lines += stage_effects(result).splitlines()
    return "\n".join(lines)


def stage_effects(result: dict[str, Any]) -> str:
    """Each stage's effect per set, on minus off, with the verdict of the rule."""
    lines: list[str] = []
    effects = verdicts(result)  # recomputed from the scores: the rule, not a stored copy
    if effects:
        sets = list(dict.fromkeys(v["set"] for v in effects))
        lines += [
            "Each stage, on minus off (R@5 / MRR; ✗: costs more than one question's worth):",
            "",
        ]
        lines += ["| stage | default | " + " | ".join(sets) + " |", "|" + "---|" * (len(sets) + 2)]
        for stage in dict.fromkeys(v["stage"] for v in effects):
            row = {v["set"]: v for v in effects if v["stage"] == stage}
            default = "on" if next(iter(row.values()))["default"] else "opt-in"
            cells = [
                f"{row[s]['delta_r5']:+.3f} / {row[s]['delta_mrr']:+.3f}"
                + ("" if row[s]["holds"] else " ✗")
                if s in row
                else ""
                for s in sets
            ]
            lines.append(f"| {stage} | {default} | " + " | ".join(cells) + " |")
        lines.append("")
        lines += stage_trades(effects)
    return "\n".join(lines)


def stage_trades(effects: list[dict[str, Any]]) -> list[str]:
    """Per stage, the sets where it costs more than one question's worth when on (the ✗
    of :func:`stage_effects`) and those where it gains that much, so that leaving it out
    costs: a stage with sets in both columns holds every set in neither setting (ADR 0106)."""
    lines = [
        "Where each setting of a stage costs more than one question's worth:",
        "",
        "| stage | default | costs when on | costs when off |",
        "|---|---|---|---|",
    ]
    for stage in dict.fromkeys(v["stage"] for v in effects):
        row = [v for v in effects if v["stage"] == stage]
        on = ", ".join(v["set"] for v in row if not v["holds"]) or "—"
        off = ", ".join(v["set"] for v in row if v.get("gains")) or "—"
        default = "on" if row[0]["default"] else "opt-in"
        lines.append(f"| {stage} | {default} | {on} | {off} |")
    lines.append("")
    return lines


def per_kind(result: dict[str, Any]) -> str:
    """One row per set: each kind's (or LoCoMo category's) R@5, the plain blend → the
    defaults, and the defaults' MRR; the kind's questions in brackets."""
    lines = [
        "Per kind or category (questions): R@5 plain → defaults, and the defaults' MRR:",
        "",
        "| set | kinds |",
        "|---|---|",
    ]
    for name, entry in scored_sets(result):
        by_mode = {m["mode"]: m for m in entry["modes"]}
        plain, defaults = by_mode.get("plain"), by_mode.get("defaults")
        if plain is None or defaults is None:
            continue
        before = plain.get("by_kind") or plain.get("by_category") or {}
        after = defaults.get("by_kind") or defaults.get("by_category") or {}
        cells = [
            f"{kind} ({a['n']}) {before[kind]['recall@5']:.2f} → {a['recall@5']:.2f}"
            + (f", {a['mrr']:.2f}" if "mrr" in a else "")  # LongMemEval's kinds have none
            for kind, a in after.items()
            if kind in before
        ]
        if cells:
            lines.append(f"| {name} | " + " · ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def readme_block(result: dict[str, Any]) -> str:
    """What the README shows of the suite: the summary, each set's kinds, and each stage's
    effect."""
    return summary(result) + "\n" + per_kind(result) + "\n" + stage_effects(result)
