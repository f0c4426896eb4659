"""RM3 as a second lexical *candidate* query (ADR 0061).

The first round's best hits say which other words the answer's neighbourhood
uses ("What books has Tim read?" → the top hits mention "Harry Potter",
"novel", "fantasy"). The few of those words that are rare in the collection
become one bounded ``@lex:(…)`` query, and what it finds joins the pool; it is
then scored like any other candidate (cosine to the question, BM25 of the
question's own terms, the stages), so an expansion word never scores by itself.

Bounded: the expansion is computed from the top ``rm3_docs`` texts already in
memory, its document frequencies come in one ``HMGET``, the terms kept must fit
:data:`RM3_POSTINGS` together, and the query asks
for at most ``rm3_limit`` documents.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

import redis

from ..domain.text import ANY_STOP_WORDS, stem, tokenize, without_date_stamp
from ..store.lexstats import CANDIDATE_POSTINGS, DOC_COUNT_FIELD

# Postings the expansion query may walk: a quarter of the first keyword query's budget
# (RediSearch scores each document of the union, ~1.2 µs: at most ~3 ms, ADR 0053/0061).
RM3_POSTINGS = CANDIDATE_POSTINGS // 4

_WORD = re.compile(r"^[a-z][a-z]+$")


@dataclass
class Expansion:
    """The expansion terms chosen (surface words, as the index is queried) and why."""

    terms: list[str] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)  # RM3 weight · idf, by term

    def scores(self, texts: dict[str, str]) -> dict[str, float]:
        """How much of the expansion each text holds, relative to the text of *texts*
        that holds the most: ``Σ weights`` over the expansion stems it contains, divided
        by the best such sum (so the best holder scores 1 even with one weak word)."""
        from ..domain.text import stem_tokens

        by_stem = {stem(t): self.weights[t] for t in self.terms}
        raw = {
            key: sum(by_stem[s] for s in set(stem_tokens(text)) if s in by_stem)
            for key, text in texts.items()
        }
        top = max(raw.values(), default=0.0)
        return {key: v / top if top > 0 else 0.0 for key, v in raw.items()}


def _words(text: str) -> list[str]:
    """Content words of a memory: no date stamp, stop words, digits or 1-2 letter tokens."""
    return [
        t
        for t in tokenize(without_date_stamp(text))
        if len(t) > 2 and _WORD.match(t) and t not in ANY_STOP_WORDS
    ]


@dataclass
class Plan:
    """The expansion's candidate stems, weighted, before their document frequencies
    are read: :func:`plan` needs no Redis, so the ``HMGET`` of :attr:`fields` can share
    a round trip with another query (the ``prf`` stage's KNN, ADR 0084)."""

    stems: list[str]
    weight: dict[str, float]
    surface: dict[str, Counter[str]]
    n_terms: int

    @property
    def fields(self) -> list[str]:
        """The lexstats hash fields to ``HMGET``: the collection's size, then each stem's df."""
        return [DOC_COUNT_FIELD, *[f"s:{s}" for s in self.stems]]


def plan(
    query_terms: list[str],
    top_texts: list[str],
    n_terms: int,
    *,
    exclude: set[str] | None = None,
) -> Plan | None:
    """Words of the top texts weighted by ``Σ tf/len · 1/rank`` (None: nothing to expand).

    Words whose stem the question already has, or *exclude* (recall passes the top
    hits' tags: speakers, projects, dates) are left out."""
    if n_terms <= 0 or not top_texts:
        return None
    asked = {stem(t) for t in query_terms} | {stem(t) for t in (exclude or set())}
    weight: dict[str, float] = {}
    surface: dict[str, Counter[str]] = {}
    for rank, text in enumerate(top_texts, start=1):
        words = [w for w in _words(text) if stem(w) not in asked]
        if not words:
            continue
        for word, tf in Counter(words).items():
            s = stem(word)
            weight[s] = weight.get(s, 0.0) + tf / len(words) / rank
            surface.setdefault(s, Counter())[word] += tf
    if not weight:
        return None
    stems = sorted(weight, key=lambda s: -weight[s])[: 4 * n_terms]  # stable, as most_common
    return Plan(stems, weight, surface, n_terms)


def choose(p: Plan, raw: list, *, max_df_share: float = 0.05) -> Expansion:
    """The expansion of plan *p* given its fields' values *raw* (the ``HMGET`` reply):
    ``weight · idf``, leaving out words in more than *max_df_share* of the collection
    (they find everything) and keeping within :data:`RM3_POSTINGS`."""
    n = max(1, int(raw[0] or 0))
    scored: dict[str, float] = {}
    df: dict[str, int] = {}
    for s, value in zip(p.stems, raw[1:], strict=True):
        count = int(value or 0)
        if count <= 1 or count > max(2, max_df_share * n):
            continue  # unseen elsewhere (finds nothing new) or too common (finds everything)
        df[s] = count
        scored[s] = p.weight[s] * math.log(1 + (n - count + 0.5) / (count + 0.5))
    chosen: list[str] = []
    used = 0
    for s in sorted(scored, key=lambda x: (-scored[x], x))[: p.n_terms]:
        if used + df[s] > RM3_POSTINGS:
            break  # in weight order: a lower-weighted word never displaces a better one
        chosen.append(s)
        used += df[s]
    out = Expansion()
    for s in chosen:
        word = p.surface[s].most_common(1)[0][0]
        out.terms.append(word)
        out.weights[word] = scored[s]
    return out


def expansion(
    client: redis.Redis,
    stats_key: str,
    query_terms: list[str],
    top_texts: list[str],
    n_terms: int,
    *,
    exclude: set[str] | None = None,
    max_df_share: float = 0.05,
) -> Expansion:
    """RM3's expansion: words of the top texts weighted by ``Σ tf/len · 1/rank · idf``
    (:func:`plan`, then :func:`choose` over one ``HMGET`` of the stems' frequencies)."""
    p = plan(query_terms, top_texts, n_terms, exclude=exclude)
    if p is None:
        return Expansion()
    return choose(p, client.hmget(stats_key, p.fields), max_df_share=max_df_share)
