"""LongMemEval (Wu et al., ICLR 2025) retrieval from a local JSON file, no LLM judge.

No package on the registries this project installs from ships LongMemEval's data (ADR
0078 lists the ones checked), and nothing is downloaded at run time: pass the released
``longmemeval_s.json`` or ``longmemeval_oracle.json`` when you have it. Each question has
its own haystack: its sessions' turns are written to one throwaway collection (the turn's
session id as ``source``, dated with the session), the question is recalled ``as_of`` its
date, and the ranked turns are read as sessions, as the field reports it: session-level
recall@5/@10 (the share of answer sessions among the first k distinct sessions) and
any-hit. Abstention questions (``_abs``) have no answer session and are left out.
"""

from __future__ import annotations

import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .locomo import backdate


def _when(text: str) -> float:
    """``2023/05/20 (Sat) 02:21`` → a timestamp (now when unreadable)."""
    try:
        return (
            datetime.strptime(text.split(" (")[0] + text[-6:], "%Y/%m/%d %H:%M")
            .replace(tzinfo=UTC)
            .timestamp()
        )
    except ValueError:
        return time.time()


FIELDS = ("question_id", "question", "haystack_session_ids", "haystack_dates", "haystack_sessions")


def load(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The questions of a released LongMemEval file; anything else is a clear error."""
    try:
        items = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a LongMemEval JSON file ({exc})") from None
    if not isinstance(items, list) or not all(isinstance(q, dict) for q in items):
        raise ValueError(f"{path}: a LongMemEval file holds a list of questions")
    for q in items:
        missing = [f for f in FIELDS if f not in q]
        if missing:
            raise ValueError(f"{path}: question {q.get('question_id', '?')} lacks {missing}")
    kept = [q for q in items if q.get("answer_session_ids") and "_abs" not in str(q["question_id"])]
    return kept[:limit]


def session_scores(ranked: list[str], wanted: set[str]) -> tuple[float, float, float, float]:
    """Session recall@5, @10 and any-hit @5, @10 of turns ranked by session id."""
    sessions = list(dict.fromkeys(ranked))
    r5 = len(wanted & set(sessions[:5])) / len(wanted)
    r10 = len(wanted & set(sessions[:10])) / len(wanted)
    return r5, r10, float(r5 > 0), float(r10 > 0)


def run(
    path: str | Path,
    modes: dict[str, dict[str, Any]],
    *,
    settings: Any = None,
    limit: int | None = None,
    k: int = 50,
) -> dict[str, Any]:
    """Score every mode on each question's own haystack (turns ranked, read as sessions)."""
    from .scratch import bench_store

    questions = load(path, limit)
    rows: dict[str, list[tuple[float, ...]]] = {m: [] for m in modes}
    seconds: dict[str, list[float]] = {m: [] for m in modes}
    by_type: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
    for q in questions:
        store = bench_store("bench-longmemeval", settings)
        store.nuke()
        try:
            for sid, date, turns in zip(
                q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True
            ):
                items = [
                    {"text": f"{t['role']}: {t['content']}", "source": sid, "type": "episodic"}
                    for t in turns
                    if str(t.get("content", "")).strip()
                ]
                if not items:
                    continue
                written = store.remember_many(items, batch_size=256, sequence=True)
                backdate(store, {m.id: _when(date) for m in written})
            as_of = _when(q.get("question_date", ""))
            for mode, options in modes.items():
                started = time.perf_counter()
                hits = store.recall(q["question"], k=k, touch=False, as_of=as_of, **options)
                seconds[mode].append(time.perf_counter() - started)
                got = session_scores(
                    [m.source or "" for m, _ in hits], set(q["answer_session_ids"])
                )
                rows[mode].append(got)
                by_type[mode].setdefault(q.get("question_type", "?"), []).append(got[0])
        finally:
            store.drop()
    out = []
    for mode, r in rows.items():
        n = len(r) or 1
        out.append(
            {
                "mode": mode,
                "questions": len(r),
                "recall@5": round(sum(x[0] for x in r) / n, 4),
                "recall@10": round(sum(x[1] for x in r) / n, 4),
                "any@5": round(sum(x[2] for x in r) / n, 4),
                "any@10": round(sum(x[3] for x in r) / n, 4),
                "mrr": 0.0,
                "by_kind": {
                    t: {"n": len(v), "recall@5": round(sum(v) / len(v), 4)}
                    for t, v in by_type[mode].items()
                },
                "p50_ms": round(statistics.median(seconds[mode]) * 1000, 2) if r else 0.0,
            }
        )
    return {"benchmark": "longmemeval", "questions": len(questions), "modes": out}
