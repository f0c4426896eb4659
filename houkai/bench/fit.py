"""Fit the recall stages' fusion weights per query kind on a LoCoMo development split.

Each dev question's candidate pool is gathered once, through recall's own public steps
(:meth:`Recall.prepare <houkai.recall.engine.Recall.prepare>` and ``gather`` of the same
:class:`~houkai.recall.request.RecallRequest` a recall takes); each trial then
re-scores the cached pools with ``Recall.retune`` and ``Recall.score`` (no Redis round
trip, no encoding), so a grid of hundreds of trials costs seconds. Coordinate ascent on
``recall@5 + MRR`` per kind, starting from :data:`houkai.recall.stages.params.BASE`.
The result is printed; the shipped values live in ``stages.params.FITTED``.

Fit on conversations 0-4 (``--conversations 0-4``); report on 5-9 and all ten
with ``houkai bench locomo``. Never fit on ``data/heldout.json``.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ..recall.candidates import Candidate
from ..recall.engine import Recall
from ..recall.request import RecallRequest
from ..recall.stages.base import StageContext
from ..recall.stages.params import BASE, StageParams
from . import locomo

#: The stages whose knobs the grid moves (``current`` / ``entity`` have none in it and
#: ``fitted`` would pick the knobs itself).
FIT_STAGES = ("query", "context", "prf", "specific")

GRID: dict[str, tuple[float, ...]] = {
    "cosine": (0.35, 0.45, 0.55, 0.65, 0.75),
    "lexical": (0.1, 0.2, 0.3, 0.35, 0.4, 0.5),
    "context": (0.0, 0.1, 0.2, 0.3, 0.4),
    "context_next": (0.0, 0.05, 0.1, 0.2),
    "prf": (0.0, 0.05, 0.1, 0.2, 0.3),
    "names": (0.0, 0.05, 0.1, 0.2, 0.3),
    "time": (0.0, 0.1, 0.3),
    "answer_time": (0.0, 0.05, 0.1, 0.2),
    "asks": (0.0, 0.05, 0.1, 0.2),
    "episode": (0.0, 0.3, 0.5),
    "rm3_weight": (0.0, 0.1, 0.2, 0.3),
    "specific": (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4),
    "specific_rare": (0.0, 0.05, 0.1, 0.15, 0.2),
}


class Item:
    """One dev question with its cached pool."""

    def __init__(self, ctx: StageContext, cands: list[Candidate], evidence: Any) -> None:
        self.ctx = ctx
        self.cands = cands
        self.evidence = evidence
        self.category = 0  # LoCoMo question category, set by collect()

    @property
    def kind(self) -> str:
        parse = self.ctx.query.parse
        return parse.kind if parse is not None else "general"


def collect(store: Any, conv: locomo.Conversation, k: int = 10, overfetch: int = 4) -> list[Item]:
    """Gather each question's pool once, exactly as ``recall`` would with the stages on."""
    recall: Recall = store.recaller
    as_of = max(t.when for t in conv.turns) + 86_400
    items = []
    for q in conv.questions:
        request = RecallRequest(
            q.text, k=k, mode="hybrid", overfetch=overfetch, stages=FIT_STAGES, as_of=as_of,
            touch=False,
        )  # fmt: skip
        ctx = recall.prepare(request, params=BASE)
        pool = recall.gather(ctx)
        items.append(Item(ctx, list(pool.values()), q.evidence))
        items[-1].category = q.category
    return items


def evaluate(store: Any, items: list[Item], params: StageParams) -> tuple[float, float]:
    """Mean recall@5 and MRR of *items* scored with *params* (the real scoring code)."""
    if not items:
        return 0.0, 0.0
    recall: Recall = store.recaller
    r5 = rr = 0.0
    for it in items:
        ranked_cands = recall.score(recall.retune(it.ctx, params), it.cands)
        ranked = [c.memory.source or "" for c in ranked_cands[:10]]
        a, _, c, *_ = locomo.score_ranks(ranked, it.evidence)
        r5 += a
        rr += c
    return r5 / len(items), rr / len(items)


def fit_kind(store, items: list[Item], passes: int = 2) -> tuple[StageParams, dict[str, Any]]:
    """Coordinate ascent over :data:`GRID` on recall@5 + MRR."""
    best = BASE
    base_r5, base_mrr = evaluate(store, items, best)
    best_value = base_r5 + base_mrr
    for _ in range(passes):
        improved = False
        for name, values in GRID.items():
            for value in values:
                trial = replace(best, **{name: value})  # type: ignore[arg-type]
                r5, mrr = evaluate(store, items, trial)
                if r5 + mrr > best_value + 1e-9:
                    best, best_value, improved = trial, r5 + mrr, True
        if not improved:
            break
    r5, mrr = evaluate(store, items, best)
    return best, {
        "n": len(items),
        "base": {"recall@5": round(base_r5, 4), "mrr": round(base_mrr, 4)},
        "fitted": {"recall@5": round(r5, 4), "mrr": round(mrr, 4)},
    }


def run(path: str | Path, *, conversations: str = "0-4", settings=None) -> dict[str, Any]:
    """Fit per kind on the chosen split (collections kept by ``bench locomo --reuse``)."""
    from .scratch import bench_store

    chosen = locomo.select(list(locomo.load(path)), conversations)
    items: list[Item] = []
    for conv in chosen:
        store = bench_store(f"bench-locomo-{conv.sample_id}", settings)
        if not locomo.ingested(store, conv, captions=False):
            store.nuke()
            locomo.ingest_conversation(store, conv)
        locomo.bring_stats_up_to_date(store)
        items += collect(store, conv)
    by_kind: dict[str, list[Item]] = {}
    for it in items:
        by_kind.setdefault(it.kind, []).append(it)
    out: dict[str, Any] = {"split": conversations, "questions": len(items), "kinds": {}}
    for kind, group in sorted(by_kind.items()):
        params, report = fit_kind(store, group) if len(group) >= 30 else (BASE, {"n": len(group)})
        out["kinds"][kind] = {**report, "params": asdict(params)}
    return out
