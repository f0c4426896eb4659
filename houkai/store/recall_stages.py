"""The machinery of hybrid recall's question-reading stages (see :mod:`.stages`).

Each method is bounded: PRF costs one extra KNN (no encoding), the context
stage one pipelined round trip over its top candidates (two when neighbours
are found), the query stage no I/O at all.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import redis

from ..db.schema import MEMORY_FIELDS
from ..domain.model import HybridWeights, Memory
from ..domain.text import lexical_clause, query_terms
from . import codec, lexical_feedback, lexstats, specificity
from . import state as state_stages
from .host import StoreHost
from .query import (
    DAY,
    QueryParse,
    has_exact_tokens,
    name_seen,
    question_names,
    states_time,
    time_proximity,
)
from .search import search
from .stages import StageParams

if TYPE_CHECKING:
    from .recall import Candidate

FOLLOWS = "follows"
# Which documents a keyword query's LIMIT keeps is RediSearch's own ranking. Its default
# scorer is TFIDF up to RediSearch 2.10 (Redis Stack 7.4) and BM25STD from Redis 8: named
# here, every server keeps the candidates the stages were measured with (BM25STD cost
# 0.4 points of LoCoMo R@5, ADR 0064).
KEYWORD_SCORER = "TFIDF"


def _provisional(c: Candidate, w: HybridWeights) -> float:
    """First-round relevance (cosine and BM25 only), to pick feedback docs and neighbours."""
    return w.cosine * c.cosine + w.lexical * c.lexical


def _admissible(memory: Memory, f: dict[str, Any]) -> bool:
    """The recall's filters, checked in Python for a neighbour fetched by id."""
    if memory.superseded_by and not f["include_superseded"]:
        return False
    if memory.is_expired(f["now"]) and not f["include_expired"]:
        return False
    if f["type"] is not None and memory.type != f["type"]:
        return False
    if f["tag"] and f["tag"] not in memory.tags:
        return False
    if f["source"] and memory.source != f["source"]:
        return False
    if any(getattr(memory, name) != value for name, value in f.get("scope", {}).items()):
        return False
    if f["min_importance"] is not None and memory.importance < f["min_importance"]:
        return False
    if f["since"] is not None and memory.created_at < f["since"]:
        return False
    return not (f["until"] is not None and memory.created_at > f["until"])


def _asks(memory: Memory) -> bool:
    """The memory is itself a question ("What movies do you like?")."""
    return memory.text.rstrip().endswith("?")


def _previous(memory: Memory) -> str | None:
    return next((x.to for x in memory.links if x.rel == FOLLOWS), None)


def keyword_query(words: list[str], where: str) -> str:
    """The keyword candidate query: any of *words*, under the recall's filter *where*.

    The filter is a zero-weight clause. Intersected plainly, the "live" clauses every
    recall carries changed RediSearch's TFIDF scores so much that a memory matching every
    word of the query fell out of the first 20 hits: 7 of 200 facts, 18 of 150 at 100k
    (0 of each with weight 0; ADR 0069)."""
    clause = lexical_clause(words)
    return clause if where == "*" else f"{clause} ({where})=>{{$weight: 0.0}}"


class RecallStagesMixin(StoreHost):
    """Query understanding, sequence context and pseudo-relevance feedback."""

    if TYPE_CHECKING:  # provided by RecallMixin, which builds on these stages

        def _vector_candidates(
            self, qvec: np.ndarray, where: str, size: int, *, batches: bool = False
        ) -> dict[str, Candidate]: ...

    @staticmethod
    def _understood_weights(w: HybridWeights, parse: QueryParse, p: StageParams) -> HybridWeights:
        """Exact tokens or names raise the lexical weight; "latest/current" raises recency.

        A name ("Caroline", "Atlas") is a word the answer usually shares, like an
        id: a question without either keeps the blend's lexical weight, so a
        paraphrase is not out-voted by word overlap (ADR 0043).
        """
        seen = set(parse.names) - set(parse.unseen)  # a name no memory mentions is no cue
        factor = max(p.lexical_boost if parse.exact else 1.0, p.lexical_names if seen else 1.0)
        if factor != 1.0:
            w = replace(w, lexical=w.lexical * factor)
        if parse.recency == "latest":
            w = replace(w, recency=max(w.recency, p.recency))
        return w

    def _prf_round(
        self,
        pool: dict[str, Candidate],
        qvec: np.ndarray,
        where: str,
        size: int,
        w: HybridWeights,
        p: StageParams,
        broad: bool,
    ) -> list[str]:
        """Rocchio feedback: KNN again from ``q + α·mean(top hits)``; returns the new ids."""
        ranked = sorted(pool.values(), key=lambda c: -_provisional(c, w))[: p.prf_docs]
        vectors = [c.vector for c in ranked if c.vector is not None]
        if not vectors or p.prf <= 0:
            return []
        feedback = qvec + p.prf_alpha * np.mean(vectors, axis=0)
        norm = float(np.linalg.norm(feedback))
        if norm <= 0:
            return []
        feedback = (feedback / norm).astype(np.float32)
        second = self._vector_candidates(feedback, where, size, batches=broad)
        added = []
        for mid, cand in second.items():
            if mid in pool:
                continue
            cand.cosine = (
                codec.finite_cosine(float(np.dot(cand.vector, qvec)))
                if cand.vector is not None
                else 0.0
            )
            cand.feedback = True
            pool[mid] = cand
            added.append(mid)
        for cand in pool.values():
            if cand.vector is not None:
                cand.prf = float(np.dot(cand.vector, feedback))
        return added

    def _term_stats(self, query: str, terms: list[str]) -> lexstats.TermStats:
        """The statistics of *query*'s *terms* (one ``HMGET``), read once per recall for
        both the lexical pass and the rescoring of later candidates.

        The names the question mentions are read in the same ``HMGET``: only a name
        some memory's text mentions makes the question "name something" (stems,
        ADR 0056); "the pre-production DB" in a collection that never says "DB" is a
        paraphrase, matched over exact tokens (ADR 0061).
        """
        names = [n.lower() for n in question_names(query)]
        stats = lexstats.term_stats(self.client, self.keys.lexstats, [*terms, *names])
        # A one-word query is a keyword lookup ("backup" means "Backups" too); no
        # benchmark question has a single term, so ADR 0056's measured gate is unchanged.
        stems = (
            len(terms) == 1 or has_exact_tokens(query) or any(name_seen(n, stats) for n in names)
        )
        return replace(stats, stemmed=stats.stemmed and stems)

    def _keyword_candidates(
        self,
        pool: dict[str, Candidate],
        words: list[str],
        where: str,
        limit: int,
        qvec: np.ndarray | None,
        *,
        verbatim: bool = False,
        rm3: tuple[str, ...] = (),
    ) -> list[str]:
        """Search *words* as one keyword query under the recall's filter *where* and add
        the memories not yet in *pool* as candidates (cosine to *qvec*); returns their
        ids. A failing query adds nothing: a lexical bonus is never worth failing the
        recall."""
        from .recall import Candidate

        clause = keyword_query(words, where)
        try:
            _, hits = search(
                self.client,
                self.keys.index,
                clause,
                return_fields=(*MEMORY_FIELDS, "vec"),
                limit=limit,
                verbatim=verbatim,
                scorer=KEYWORD_SCORER,
            )
        except redis.exceptions.ResponseError:
            return []
        added = []
        for hit in hits:
            memory = codec.from_hash(hit.fields)
            if memory.id in pool:
                continue
            vec = self.vector_from_blob(hit.fields.get("vec"))
            cosine = (
                codec.finite_cosine(float(np.dot(vec, qvec)))
                if vec is not None and qvec is not None
                else 0.0
            )
            pool[memory.id] = Candidate(
                memory=memory, cosine=cosine, has_vector=vec is not None, vector=vec, rm3=rm3
            )
            added.append(memory.id)
        return added

    def _rm3_round(
        self,
        pool: dict[str, Candidate],
        query: str,
        qvec: np.ndarray | None,
        where: str,
        w: HybridWeights,
        p: StageParams,
        stats: lexstats.TermStats,
    ) -> tuple[list[str], lexical_feedback.Expansion | None]:
        """RM3 as a second lexical candidate query (ADR 0061); returns the new ids and
        the expansion (the caller scores the final pool's share of it).

        Only for a question scored over stems (it names someone or something, the
        gate of ADR 0056): the expansion words come from the first round's best
        texts and find documents the question's own words and vector missed.
        """

        if p.rm3_terms <= 0 or not stats.stemmed:
            return [], None
        top = sorted(pool.values(), key=lambda c: (-_provisional(c, w), c.memory.id))
        top = [c for c in top if c.lexical > 0][: p.rm3_docs]
        if not top:
            return [], None
        top_tags = {t for c in top for t in c.memory.tags}
        exp = lexical_feedback.expansion(
            self.client,
            self.keys.lexstats,
            query_terms(query),
            [c.memory.text for c in top],
            p.rm3_terms,
            exclude={t.lower() for tag in top_tags for t in tag.split()},
        )
        if not exp.terms:
            return [], None
        added = self._keyword_candidates(
            pool, exp.terms, where, p.rm3_limit, qvec, rm3=tuple(exp.terms)
        )
        return added, exp

    def _context_round(
        self,
        pool: dict[str, Candidate],
        qvec: np.ndarray | None,
        w: HybridWeights,
        p: StageParams,
        filters: dict[str, Any],
    ) -> list[str]:
        """Bring in the previous and next turns of the best candidates; returns the new ids."""
        from .recall import Candidate

        if p.context <= 0:
            return []
        top = sorted(pool.values(), key=lambda c: -_provisional(c, w))[: p.context_top]
        wanted = [mid for c in top if (mid := _previous(c.memory)) and mid not in pool]
        pipe = self.client.pipeline(transaction=False)
        for c in top:
            pipe.smembers(self.keys.incoming(c.memory.id))
        for mid in wanted:
            pipe.hgetall(self.keys.memory(mid))
        replies = pipe.execute()
        following: list[str] = []
        for members in replies[: len(top)]:
            for raw in members:
                src, _, rel = (raw.decode() if isinstance(raw, bytes) else raw).partition("|")
                if rel == FOLLOWS and src not in pool and src not in following:
                    following.append(src)
        fetched = dict(zip(wanted, replies[len(top) :], strict=True))
        if following:
            pipe = self.client.pipeline(transaction=False)
            for mid in following:
                pipe.hgetall(self.keys.memory(mid))
            fetched.update(zip(following, pipe.execute(), strict=True))
        added = []
        for mid, raw in fetched.items():
            if not raw or mid in pool:
                continue
            fields = {k.decode(): v for k, v in raw.items()}
            memory = codec.from_hash(fields)
            if not _admissible(memory, filters):
                continue
            vec = self.vector_from_blob(fields.get("vec"))
            cosine = (
                codec.finite_cosine(float(np.dot(vec, qvec)))
                if vec is not None and qvec is not None
                else 0.0
            )
            pool[mid] = Candidate(
                memory=memory, cosine=cosine, has_vector=vec is not None, vector=vec, context=True
            )
            added.append(mid)
        return added

    def _rescore_lexical(
        self,
        pool: dict[str, Candidate],
        query: str,
        added: list[str],
        stats: lexstats.TermStats | None = None,
    ) -> bool:
        """BM25 for candidates added after the lexical pass, then re-normalise the pool
        (*stats*: the query's term statistics when the caller has them)."""
        terms = query_terms(query)
        if not terms:
            return False
        scores = lexstats.bm25_scores(
            terms,
            {mid: pool[mid].memory.text for mid in added},
            self.client,
            self.keys.lexstats,
            stats or self._term_stats(query, terms),
        )
        for mid, value in scores.items():
            pool[mid].bm25 = value
        top = max((c.bm25 for c in pool.values()), default=0.0)
        for cand in pool.values():
            cand.lexical = cand.bm25 / top if top > 0 else 0.0
        return top > 0

    def _apply_stages(
        self,
        cands: list[Candidate],
        active: tuple[str, ...],
        parse: QueryParse | None,
        p: StageParams,
        now: float,
        fusion: str,
        rrf_k: int,
        depth: int | None = None,
        state: state_stages.StateQuery | None = None,
    ) -> None:
        """Add the stages' boosts to the blended scores and record them in ``explain``
        (*depth*: see ``_score_pool``; *state*: the question as ``current`` and ``entity``
        read it)."""
        if not cands:
            return
        signals: dict[str, list[float]] = {}
        weights: dict[str, float] = {}
        if parse is not None:
            if parse.window is not None and p.time > 0:
                scale = p.time_scale_days * DAY
                signals["time"] = [
                    time_proximity(c.memory.created_at, parse.window, scale) for c in cands
                ]
                weights["time"] = p.time
            if parse.recency == "first" and p.first > 0:
                created = [c.memory.created_at for c in cands]
                lo, hi = min(created), max(created)
                span = hi - lo
                signals["first"] = [(hi - t) / span if span > 0 else 0.0 for t in created]
                weights["first"] = p.first
            if parse.names and p.names > 0:
                names = {n.lower() for n in parse.names}
                signals["names"] = [
                    1.0
                    if names & {t.lower() for t in c.memory.tags}
                    or (c.memory.source or "").lower() in names
                    else 0.0
                    for c in cands
                ]
                weights["names"] = p.names
            if parse.when_question and p.answer_time > 0:
                signals["answer_time"] = [1.0 if states_time(c.memory.text) else 0.0 for c in cands]
                weights["answer_time"] = p.answer_time
        if "prf" in active and p.rm3_weight > 0 and any(c.rm3_score for c in cands):
            signals["rm3"] = [c.rm3_score for c in cands]
            weights["rm3"] = p.rm3_weight
        if "prf" in active and p.prf > 0 and any(c.prf for c in cands):
            signals["prf"] = [c.prf for c in cands]
            weights["prf"] = p.prf
        for name, values in signals.items():
            if fusion == "rrf":
                self._stage_rrf(cands, name, weights[name], values, rrf_k)
                continue
            for c, v in zip(cands, values, strict=True):
                c.score += weights[name] * v
                c.explain.setdefault("stages", {})[name] = round(weights[name] * v, 6)
        if "context" in active and (p.context > 0 or p.context_next > 0):
            self._smooth_with_neighbours(cands, p.context, p.context_next)
        if parse is not None and p.asks > 0:
            # after the smoothing: the question still lends its answer its score
            for c in cands:
                if _asks(c.memory):
                    c.score -= p.asks
                    c.explain.setdefault("stages", {})["asks"] = -p.asks
        if "context" in active and p.episode > 0 and parse is not None and parse.names:
            self._episode_prior(cands, p.episode, p.episode_gap)
        if "specific" in active and (p.specific > 0 or p.specific_rare > 0):
            self._specificity_prior(cands, p.specific, p.specific_rare, depth)
        if state is not None:  # last: they rank what every other stage scored
            cover: dict[str, float] = {}
            if "entity" in active:
                cover = state_stages.entity_penalty(cands, state, p.entity)
            if "current" in active:
                state_stages.newest_first(
                    cands, state, p.current_similarity, p.current_top, cover,
                    p.current_shared, state.question, p.current_gap,
                )  # fmt: skip
        parsed = parse.to_dict() if parse is not None else None
        read = state.to_dict() if state is not None else None
        for c in cands:
            info = c.explain.setdefault("stages", {})
            info["active"] = list(active)
            if parsed is not None:
                c.explain["query"] = parsed
            if read:
                info["question"] = read
            if c.context:
                info["context_neighbour"] = True
            if c.rm3:
                info["rm3_candidate"] = list(c.rm3)
            c.explain["score"] = round(c.score, 8 if fusion == "rrf" else 6)

    def _specificity_prior(
        self, cands: list[Candidate], names: float, rare: float, depth: int | None = None
    ) -> None:
        """``score × (1 + names · (rarely mentioned names) + rare · (rare words))``, each
        share in [0, 1] (:mod:`houkai.store.specificity`), after every other stage.

        A prior on the memory, so it multiplies the relevance instead of adding to it:
        in a pool of weak matches it must not outweigh what the question asked, and
        the sequence neighbours of a specific memory do not inherit it.

        With *depth*, only the candidates that could reach the first *depth* ranks are
        read: the prior multiplies a positive score by at most ``1 + names + rare`` and
        never lowers one, so a candidate below ``depth``-th score / that factor stays
        below; the first *depth* ranks come out exactly as if every candidate were read.
        """
        if depth is not None and len(cands) > depth:
            bar = sorted((c.score for c in cands), reverse=True)[depth - 1]
            most = 1.0 + names + rare
            cands = [c for c in cands if c.score > 0 and c.score * most >= bar]
        parsed = [specificity.words_of(c.memory.text) for c in cands]
        words = sorted({w for pair in parsed for part in pair for w in part})
        if not words:
            return
        df, n_docs = specificity.FREQUENCIES.read(self.client, self.keys.lexstats, words)
        for c, (named, rarer) in zip(
            cands, specificity.specificity(parsed, df, n_docs), strict=True
        ):
            boost = max(c.score, 0.0) * (names * named + rare * rarer)
            if boost <= 0 or not math.isfinite(boost):
                continue
            c.score += boost
            c.explain.setdefault("stages", {})["specific"] = round(boost, 6)

    @staticmethod
    def _episode_prior(cands: list[Candidate], weight: float, gap: float) -> None:
        """Candidates written close together share their episode's best score.

        ``+ weight · (episode's best − pool's best)`` (≤ 0): hits from the episode
        of the strongest hit keep their score, stray hits from elsewhere drop. A
        collection written all at once is one episode: nothing moves (ADR 0051).
        """
        order = sorted(cands, key=lambda c: c.memory.created_at)
        groups: list[list[Candidate]] = []
        last: float | None = None
        for c in order:
            if last is None or c.memory.created_at - last > gap:
                groups.append([])
            groups[-1].append(c)
            last = c.memory.created_at
        if len(groups) < 2:
            return
        top = max(c.score for c in cands)
        for group in groups:
            shift = weight * (max(c.score for c in group) - top)
            if shift == 0 or not math.isfinite(shift):
                continue
            for c in group:
                c.score += shift
                c.explain.setdefault("stages", {})["episode"] = round(shift, 6)

    @staticmethod
    def _stage_rrf(
        cands: list[Candidate], name: str, weight: float, values: list[float], rrf_k: int
    ) -> None:
        """A stage's signal as one more rank in the fusion (ties share a rank)."""
        order = sorted(set(values), reverse=True)
        rank_of = {v: r for r, v in enumerate(order)}
        for c, v in zip(cands, values, strict=True):
            if v <= 0:
                continue
            contribution = weight / (rrf_k + rank_of[v])
            c.score += contribution
            c.explain.setdefault("stages", {})[name] = round(contribution, 8)

    @staticmethod
    def _smooth_with_neighbours(cands: list[Candidate], weight: float, weight_next: float) -> None:
        """Score each candidate with its ``follows`` neighbours in the pool.

        ``+ weight · score(previous)`` (halved unless the previous turn asked a
        question: an answer follows its question) ``+ weight_next · score(next)``.
        """
        score = {c.memory.id: c.score for c in cands}
        asks = {c.memory.id: _asks(c.memory) for c in cands}
        after: dict[str, str] = {}
        for c in cands:
            prev = _previous(c.memory)
            if prev is not None:
                after[prev] = c.memory.id
        for c in cands:
            prev = _previous(c.memory) or ""
            nxt = after.get(c.memory.id, "")
            boost = 0.0
            if prev in score and math.isfinite(score[prev]) and score[prev] > 0:
                boost += weight * (1.0 if asks[prev] else 0.5) * score[prev]
            if nxt in score and math.isfinite(score[nxt]) and score[nxt] > 0:
                boost += weight_next * score[nxt]
            if boost <= 0:
                continue
            c.score += boost
            c.explain.setdefault("stages", {})["context"] = round(boost, 6)
