"""The ``lineage`` stage: what a replaced memory matched passes to the one that replaced it.

Default recall hides superseded memories, yet they are often the ones worded like the
question. "We're switching time tracking from Harvest to Toggl Track" holds "time
tracking"; the memory that replaced it, "Back to Harvest from November: Toggl couldn't
push hours into Xero invoices", holds neither word, and "Which time tracking tool are we
using at the moment?" never found it. One KNN over the superseded memories (under the
recall's other filters) finds the replaced memories nearest the question; each passes
its relevance (cosine and BM25, weighed as the blend weighs them) to the live memory at
the end of its supersede chain, which joins the pool when it is missing:
``+ lineage · max(0, relevance(replaced) − relevance(heir))``. Only a strong match passes
on, one at least as relevant as the ``lineage_top``-th best candidate (ADR 0090: with the
caller's k instead, heirs of weak matches crowded the answer out). A question about the
past is left alone (what was replaced answers it), and so is a recall that includes
superseded memories: they rank for themselves. A collection that never held a
superseded memory costs no search: the flag recall's statistics read says so
(:data:`~houkai.store.lexstats.SUPERSEDED_FIELD`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import redis

from ...db.filters import filter_expr
from ...db.schema import index_info, still_indexing
from ...domain.model import Memory
from ...domain.text import query_terms
from ...store.lexstats import bm25_scores, mark_superseded, note_none_superseded
from ...store.search import total
from .. import asking
from ..candidates import (
    Candidate,
    Leg,
    Pool,
    fetched_candidate,
    keyword_args,
    keyword_leg,
    knn_leg,
    run_legs,
)
from ..core import StoreCore
from .base import Signals, Stage, StageContext, provisional
from .context import admissible

log = logging.getLogger(__name__)

#: The superseded memories (their TAG field).
SUPERSEDED = "@sup:{1}"
#: The superseded memories nearest the question that pass their match on.
REPLACED_K = 10
#: At most this many replaced memories that hold an id the question asks by.
RECORDS_K = 5
#: Supersede links followed from a replaced memory to the live one at the chain's end
#: (a fact updated weekly has a long chain; its oldest note may be the one worded like
#: the question).
HOPS = 64


def _holds_none(core: StoreCore) -> bool:
    """Does the collection hold no superseded memory at all? (Asked once per collection,
    when the flag is not yet set.) Not known while the index is still being built: a
    count of a half-scanned index would turn the stage off for good."""
    if total(core.client, core.keys.index, SUPERSEDED):
        return False
    return not still_indexing(index_info(core.client, core.keys.index))


def _heir_memories(ctx: StageContext, pool: Pool, replaced: Pool) -> dict[str, list[str]]:
    """Live heir id → the replaced memories (ids) whose chain ends at it; heirs not in
    *pool* are fetched, checked against the recall's filters and added to it."""
    core, known = ctx.core, {**replaced, **pool}
    pending = {mid: c.memory.superseded_by for mid, c in replaced.items()}
    heirs: dict[str, list[str]] = {}
    for _ in range(HOPS):
        missing = sorted({s for s in pending.values() if s and s not in known})
        if missing:
            pipe = core.client.pipeline(transaction=False)
            for mid in missing:
                pipe.hgetall(core.keys.memory(mid))
            for mid, raw in zip(missing, pipe.execute(), strict=True):
                if raw:
                    known[mid] = fetched_candidate(core, raw, ctx.query.vector)
        onward: dict[str, str] = {}
        for mid, heir in pending.items():
            found = known.get(heir)
            if found is None:
                continue
            if found.memory.superseded_by:
                onward[mid] = found.memory.superseded_by
            elif heir in pool or admissible(found.memory, ctx.filters):
                pool.setdefault(heir, found)
                heirs.setdefault(heir, []).append(mid)
        pending = onward
        if not pending:
            break
    return heirs


def _replaced_only(ctx: StageContext) -> str:
    """The recall's other filters over the superseded memories alone."""
    where = filter_expr(**{**ctx.filters, "include_superseded": True})
    return SUPERSEDED if where == "*" else f"{where} {SUPERSEDED}"


def _named(record: str) -> re.Pattern[str]:
    """*record* as a whole word, in any case ("Zendesk #51877" names ``51877``)."""
    wanted = re.escape(record.lstrip("#"))
    return re.compile(rf"(?<![\w-]){wanted}(?![\w-])", re.IGNORECASE)


def records_leg(ctx: StageContext, pool: Pool) -> Leg | None:
    """The keyword search (a :class:`Leg`, sent with the stage's KNN) that joins to *pool*,
    as they are (their ``superseded_by`` says so), the replaced memories that alone hold an
    id the question asks by (ADR 0120); their ids go to ``ctx.notes["records"]``. None when
    the question names no id that no live candidate holds.

    "zendesk 51877" asks for the note that holds the ticket's number, though a later note
    replaced it ("ESC-2410 resolved in mobile 6.3.1") and never repeats the number: hidden,
    it could be found by no question at all."""
    asked = [r for r in asking.identifiers(ctx.query.text) if any(ch.isdigit() for ch in r)]
    named = {r: _named(r) for r in asked}
    missing = {
        r: p for r, p in named.items() if not any(p.search(c.memory.text) for c in pool.values())
    }
    terms = list(dict.fromkeys(t for r in missing for t in query_terms(r)))
    if not terms:
        return None
    core = ctx.core
    args = keyword_args(terms, _replaced_only(ctx), RECORDS_K, core.keys.index, False)

    def holds_one(memory: Memory) -> bool:
        return bool(memory.superseded_by) and any(p.search(memory.text) for p in missing.values())

    leg = keyword_leg(core, pool, args, ctx.query.vector, keep=holds_one)

    def take(reply: Any) -> list[str]:
        ctx.notes["records"] = leg.take(reply)
        return ctx.notes["records"]

    return Leg(args, take)


class LineageStage(Stage):
    name = "lineage"
    reads = frozenset({"state"})  # a question about the past is left alone

    def search(self, ctx: StageContext, pool: Pool) -> list[str]:
        q, core = ctx.query, ctx.core
        if ctx.request.include_superseded or q.vector is None or ctx.params.lineage <= 0:
            return []
        known = q.stats.superseded if q.stats is not None else None
        if known is False:
            return []  # the collection has never held a superseded memory: no search
        records = records_leg(ctx, pool)
        legs = [records] if records is not None else []
        if q.state is not None and q.state.intent == "past":
            # what was replaced answers a question about the past, not its heir
            return run_legs(core, legs)[0] if legs else []
        replaced: Pool = {}
        # one round trip; the records' leg takes its reply first, so a failed KNN keeps it
        legs.append(knn_leg(core, replaced, q.vector, _replaced_only(ctx), REPLACED_K))
        try:
            run_legs(core, legs)
            if known is None:  # learn the flag once, where nothing has set it yet
                if replaced:
                    mark_superseded(core.client, core.keys.lexstats)
                elif _holds_none(core):
                    note_none_superseded(core.client, core.keys.lexstats)
        except redis.exceptions.ResponseError:
            log.warning("lineage: the search of replaced memories failed", exc_info=True)
            return list(ctx.notes.get("records", []))
        found: list[str] = list(ctx.notes.get("records", []))
        replaced = {m: c for m, c in replaced.items() if c.memory.superseded_by}
        if not replaced:
            return found
        before = set(pool)
        heirs = _heir_memories(ctx, pool, replaced)
        if not heirs:
            return found
        if q.terms and q.stats is not None:
            texts = {mid: c.memory.text for mid, c in replaced.items()}
            for mid, value in bm25_scores(
                q.terms, texts, core.client, core.keys.lexstats, q.stats, related=q.related
            ).items():
                replaced[mid].bm25 = value
        ctx.notes["lineage"] = {
            heir: [replaced[mid] for mid in mids] for heir, mids in heirs.items()
        }
        return found + [mid for mid in heirs if mid not in before]

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        records = set(ctx.notes.get("records") or ())
        for c in cands:
            if c.memory.id in records:  # explain says why a replaced memory is back
                c.explain.setdefault("stages", {})["record"] = True
        heirs: Mapping[str, list[Candidate]] = ctx.notes.get("lineage") or {}
        if not heirs:
            return {}
        w = ctx.weights
        # the replaced memories' BM25 on the pool's scale (``lexical = bm25 / scale``: the
        # pool's best, or the ``overlap`` stage's floor)
        top = max((c.bm25 / c.lexical for c in cands if c.lexical > 0), default=0.0)
        for replaced in (r for rs in heirs.values() for r in rs):  # each under one heir
            replaced.lexical = min(1.0, replaced.bm25 / top) if top > 0 else 0.0

        # a replaced memory passes on only a strong match, one that would have ranked among
        # the best ``lineage_top`` candidates: weaker ones lifting their heirs add noise
        ranked = sorted((provisional(c, w) for c in cands), reverse=True)
        top_n = max(1, min(ctx.params.lineage_top, len(ranked)))
        bar = ranked[top_n - 1] if ranked else 0.0
        values = []
        for c in cands:
            passed = [r for r in heirs.get(c.memory.id, ()) if provisional(r, w) >= bar]
            if not passed:
                values.append(0.0)
                continue
            values.append(max(0.0, max(provisional(r, w) for r in passed) - provisional(c, w)))
            # explain shows which replaced memories passed their match on
            c.explain.setdefault("stages", {})["replaces"] = [r.memory.id for r in passed]
        return {"lineage": (ctx.params.lineage, values)}


STAGE = LineageStage()
