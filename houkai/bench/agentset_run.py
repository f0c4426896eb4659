"""Score recall modes on one agent-memory set (:mod:`houkai.bench.agentsets`).

Every memory is written to one throwaway collection, dated ``days_ago`` before the
set's ``as_of``; a memory with ``supersedes`` then supersedes the older one (which
default recall hides), as an agent that noticed the update would. Each question of the
chosen split is recalled ``as_of`` that clock with k=10 in every mode: recall@5 and
recall@10 over its relevant memories, MRR of the first, per kind and overall, and the
p50 latency of one recall per mode (the questions are encoded before the first mode, so
no mode pays for the encoding).
"""

from __future__ import annotations

import re
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from . import agentset_format
from .agentsets.common import DATA, KINDS
from .locomo import backdate, check_untouched

SPLITS: tuple[str, ...] = ("dev", "test", "all")
#: ``coding:sitting`` is the ``coding`` set written in one sitting (:func:`in_one_sitting`).
SITTING = ":sitting"
#: Seconds between two memories written in one sitting: a fast replay, one after another.
SITTING_STEP = 0.02
#: ``personal:typed`` is the ``personal`` set asked as people type in a chat box
#: (:func:`as_typed`).
TYPED = ":typed"


def path_of(name: str) -> Path:
    return DATA / f"agent-{name}.json"


def load(name_or_path: str | Path) -> dict[str, Any]:
    """A set by name (``coding``) or by the path of its JSON, checked and completed
    (:mod:`houkai.bench.agentset_format`); with ``:sitting`` after it, that set written in
    one sitting (:func:`in_one_sitting`); with ``:typed``, asked as typed (:func:`as_typed`)."""
    if isinstance(name_or_path, str) and name_or_path.endswith(SITTING):
        return in_one_sitting(load(name_or_path.removesuffix(SITTING)))
    if isinstance(name_or_path, str) and name_or_path.endswith(TYPED):
        return as_typed(load(name_or_path.removesuffix(TYPED)))
    path = Path(name_or_path)
    if not path.suffix:
        path = path_of(str(name_or_path))
    if not path.exists():
        raise ValueError(f"no agent-memory set at {path}")
    return agentset_format.read(path)


def in_one_sitting(data: dict[str, Any]) -> dict[str, Any]:
    """*data* as an agent writes it in one session, or an import that replays its history:
    the same memories in the same order, :data:`SITTING_STEP` seconds apart, ending at
    ``as_of``. What was months apart is now seconds apart, so a stage that tells an
    update from its sibling by the time between them must do it by their order and words
    (ADR 0092). Named ``<name>-sitting``."""
    items = data["memories"]
    order = sorted(range(len(items)), key=lambda i: -float(items[i]["days_ago"]))  # stable
    step_days = SITTING_STEP / 86_400
    days = {i: (len(items) - pos) * step_days for pos, i in enumerate(order)}
    memories = [{**m, "days_ago": days[i]} for i, m in enumerate(items)]
    return {**data, "name": f"{data['name']}-sitting", "memories": memories}


def as_typed(data: dict[str, Any]) -> dict[str, Any]:
    """*data* asked as people type into a chat box: every question in lower case, without
    its closing question mark ("northgate renewal date", "who's running marigold"). The
    memories are unchanged, so a name the question no longer capitalises must still be
    known as one. Named ``<name>-typed``."""
    asked = [
        {**q, "text": q["text"].lower().rstrip().rstrip("?").rstrip()} for q in data["queries"]
    ]
    return {**data, "name": f"{data['name']}-typed", "queries": asked}


def collection_part(name: str) -> str:
    """*name* as a collection name may hold it ("my agent" → ``my-agent``)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", name)[:40].strip("-.") or "set"


def questions(data: dict[str, Any], split: str) -> list[dict[str, Any]]:
    """The questions of *split*; a set without splits is asked whole."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)} — got {split!r}")
    if agentset_format.unsplit(data):
        return list(data["queries"])
    return [q for q in data["queries"] if split == "all" or q["split"] == split]


def kinds_of(asked: list[dict[str, Any]]) -> list[str]:
    """The kinds of *asked*: the bundled sets' order first, then as a set names them."""
    named = list(dict.fromkeys(q["kind"] for q in asked))
    return [k for k in KINDS if k in named] + [k for k in named if k not in KINDS]


def ingest(store: Any, data: dict[str, Any], as_of: float) -> dict[str, str]:
    """Write the memories, date them, apply the supersede links; set id → memory id."""
    items = data["memories"]
    written = store.remember_many(
        [{"text": m["text"], "tags": m["tags"], "type": "semantic"} for m in items],
        batch_size=256,
    )
    ids = {item["id"]: memory.id for item, memory in zip(items, written, strict=True)}
    backdate(
        store,
        {ids[m["id"]]: as_of - float(m["days_ago"]) * 86_400 for m in items},
    )
    for m in items:
        if m.get("supersedes"):
            store.supersede(ids[m["supersedes"]], ids[m["id"]])
    return ids


def score(got: list[str], wanted: set[str]) -> tuple[float, float, float]:
    """recall@5, recall@10 and reciprocal rank of the first relevant id."""
    r5 = len(wanted & set(got[:5])) / len(wanted)
    r10 = len(wanted & set(got[:10])) / len(wanted)
    rr = next((1.0 / i for i, g in enumerate(got, start=1) if g in wanted), 0.0)
    return r5, r10, rr


def summarise(rows: list[tuple[float, float, float]]) -> dict[str, float]:
    n = len(rows)
    return {
        "n": n,
        "recall@5": round(sum(r[0] for r in rows) / n, 4) if n else 0.0,
        "recall@10": round(sum(r[1] for r in rows) / n, 4) if n else 0.0,
        "mrr": round(sum(r[2] for r in rows) / n, 4) if n else 0.0,
    }


def run(
    name: str | dict[str, Any],
    modes: dict[str, dict[str, Any]],
    *,
    split: str = "dev",
    settings: Any = None,
    k: int = 10,
    limit: int | None = None,
    misses: bool = False,
) -> dict[str, Any]:
    """Score every mode (name → recall keyword arguments) on *split* of the set *name*
    (a name or path, or a set :func:`load` already read).

    *limit*: only the first N questions (a quick run). *misses*: keep, per mode, the
    questions whose first relevant memory was not ranked first (for reading a dev run).
    """
    from .scratch import bench_store

    data = load(name) if not isinstance(name, dict) else name
    asked = questions(data, split)[:limit]
    as_of = datetime.fromisoformat(data["as_of"]).timestamp()
    store = bench_store(f"bench-agent-{collection_part(data['name'])}", settings)
    store.nuke()
    try:
        ids = ingest(store, data, as_of)
        texts = {ids[m["id"]]: m["text"] for m in data["memories"]}
        for q in asked:  # encoded once up front: each mode's p50 times its ranking alone
            store.query_vector(q["text"])
        out = []
        for mode, options in modes.items():
            rows: dict[str, list[tuple[float, float, float]]] = {k: [] for k in kinds_of(asked)}
            seconds: list[float] = []
            missed: list[dict[str, Any]] = []
            for q in asked:
                started = time.perf_counter()
                hits = store.recall(q["text"], k=k, touch=False, as_of=as_of, **options)
                seconds.append(time.perf_counter() - started)
                got = [m.id for m, _ in hits]
                wanted = {ids[r] for r in q["relevant"]}
                row = score(got, wanted)
                rows[q["kind"]].append(row)
                if misses and row[2] < 1.0:
                    missed.append(
                        {
                            "kind": q["kind"],
                            "question": q["text"],
                            "wanted": [texts[w] for w in wanted],
                            "got": [texts.get(g, g) for g in got[:3]],
                        }
                    )
            every = [r for kind in rows.values() for r in kind]
            entry = {
                "mode": mode,
                **summarise(every),
                "by_kind": {kind: summarise(r) for kind, r in rows.items() if r},
                "p50_ms": round(statistics.median(seconds) * 1000, 2) if seconds else 0.0,
            }
            if misses:
                entry["misses"] = missed
            out.append(entry)
        check_untouched(store, len(data["memories"]), f"the {data['name']} set")
    finally:
        store.drop()
    return {
        "benchmark": f"agent-{data['name']}",
        "split": "all" if agentset_format.unsplit(data) else split,
        "memories": len(data["memories"]),
        "questions": len(asked),
        "modes": out,
    }
