"""The held-out retrieval set (``data/heldout.json``): never tuned on, checked per kind.

Built by :mod:`houkai.bench.heldout_build` before any recall stage was tuned.
Every memory is written to one throwaway collection (runs of a chat exchange
with ``sequence=True``), dated ``days_ago`` before the set's ``as_of`` clock,
and every query is recalled ``as_of`` that clock with k=10 in each mode (the
same modes as LoCoMo). Scores: recall@5 over the relevant memories and MRR of
the first, per query kind.
"""

from __future__ import annotations

import json
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from .locomo import MODES, backdate, check_untouched
from .modes import HELDOUT_DEFAULT

DATA = Path(__file__).with_name("data") / "heldout.json"
KINDS = ("keyword", "paraphrase", "temporal", "multi-hop", "distractor")
DEFAULT_MODES = HELDOUT_DEFAULT


def load(path: str | Path = DATA) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def _ingest(store, data: dict[str, Any], as_of: float) -> dict[str, str]:
    """Write the memories (sequences as runs) and return set id → memory id."""
    ids: dict[str, str] = {}
    runs: list[list[dict[str, Any]]] = []
    for item in data["memories"]:
        seq = item.get("sequence")
        if runs and seq and runs[-1][0].get("sequence") == seq:
            runs[-1].append(item)
        else:
            runs.append([item])
    stamps: dict[str, float] = {}
    for run in runs:
        written = store.remember_many(
            [{"text": m["text"], "tags": m["tags"], "type": "episodic"} for m in run],
            sequence=len(run) > 1,
        )
        for item, memory in zip(run, written, strict=True):
            ids[item["id"]] = memory.id
            stamps[memory.id] = as_of - float(item["days_ago"]) * 86_400
    backdate(store, stamps)
    return ids


def run(
    *,
    modes: list[str] | None = None,
    settings=None,
    path: str | Path = DATA,
    k: int = 10,
    modes_options: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Score every mode on every query; per kind and overall (*modes_options*: recall
    options by mode name instead of LoCoMo's :data:`MODES`, as the suite passes)."""
    from .scratch import bench_store

    table = modes_options or MODES
    modes = modes or (list(table) if modes_options else DEFAULT_MODES.split(","))
    for mode in modes:
        if mode not in table:
            raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(table)}")
    data = load(path)
    as_of = datetime.fromisoformat(data["as_of"]).timestamp()
    store = bench_store("bench-heldout", settings)
    store.nuke()
    try:
        ids = _ingest(store, data, as_of)
        out = []
        for mode in modes:
            started = time.perf_counter()
            rows: dict[str, list[tuple[float, float, float]]] = {kind: [] for kind in KINDS}
            seconds: list[float] = []
            for q in data["queries"]:
                asked = time.perf_counter()
                hits = store.recall(q["text"], k=k, touch=False, as_of=as_of, **table[mode])
                seconds.append(time.perf_counter() - asked)
                got = [m.id for m, _ in hits]
                wanted = {ids[r] for r in q["relevant"]}
                r5 = len(wanted & set(got[:5])) / len(wanted)
                rr = next((1.0 / i for i, g in enumerate(got, start=1) if g in wanted), 0.0)
                r10 = len(wanted & set(got[:10])) / len(wanted)
                rows[q["kind"]].append((r5, rr, r10))
            every = [r for kind in rows.values() for r in kind]
            out.append(
                {
                    "mode": mode,
                    "queries": len(every),
                    "recall@5": round(sum(r[0] for r in every) / len(every), 4),
                    "mrr": round(sum(r[1] for r in every) / len(every), 4),
                    "recall@10": round(sum(r[2] for r in every) / len(every), 4),
                    "p50_ms": round(statistics.median(seconds) * 1000, 2),
                    "by_kind": {
                        kind: {
                            "n": len(r),
                            "recall@5": round(sum(x[0] for x in r) / len(r), 4),
                            "mrr": round(sum(x[1] for x in r) / len(r), 4),
                        }
                        for kind, r in rows.items()
                        if r
                    },
                    "seconds": round(time.perf_counter() - started, 1),
                }
            )
        check_untouched(store, len(data["memories"]), "the held-out set")
    finally:
        store.drop()
    return {
        "benchmark": "heldout",
        "memories": len(data["memories"]),
        "queries": len(data["queries"]),
        "modes": out,
    }
