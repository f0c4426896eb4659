"""The ``entity`` stage's measure: how much of the question's named things a candidate
names (ADR 0078), and the cut for those that miss them.

The ``current`` stage reads the same coverage: two notes holding different shares of
the named things are no one topic unless they echo each other.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..domain.text import stem_tokens, text_tokens, tokenize
from .statements import STOP, is_code

if TYPE_CHECKING:
    from ..store.lexstats import TermStats
    from .asking import StateQuery
    from .candidates import Candidate

_SLUG_PARTS = re.compile(r"[-_ ]+")
_NAMESPACED = re.compile(r"[:/]")
#: A capitalised name more memories than this share use names nobody in particular (a
#: chat's two speakers); a project among a handful still counts.
COMMON_NAME_SHARE = 0.25


def thing_words(tokens: Iterable[str], stats: TermStats, common: bool = True) -> dict[str, float]:
    """A named thing's words (*tokens*) that some memory uses, as the lexical leg counts
    them (stems or words), each with its IDF; no stop word, and no word more than
    :data:`COMMON_NAME_SHARE` of the memories use unless *common*."""
    n = stats.n_docs
    kept: dict[str, float] = {}
    for word in tokens:
        df = stats.df.get(word, 0)
        if word in STOP or df <= 0 or (not common and df > COMMON_NAME_SHARE * n):
            continue
        form = stem_tokens(word) if stats.stemmed else ()
        kept[form[0] if form else word] = math.log(1.0 + n / df)
    return kept


def tag_things(
    state: StateQuery, cands: Sequence[Candidate], stats: TermStats | None
) -> StateQuery:
    """*state* with the tags of *cands* that the question names in lower case: "the
    billing API" names ``billing-api``, "the ledger worker" ``ledger-worker``. Only a tag of
    several words (a slug, the way agents tag a project) whose first word the question
    holds ("web framework" does not name ``checkout-web``); the tag's words that few
    memories use are what a memory about it holds (not "api", "service")."""
    if stats is None or stats.n_docs <= 0:
        return state
    known = {w for words in state.words for w in words}
    entities, words = list(state.entities), list(state.words)
    seen: set[str] = set()
    for tag in (t.lower() for c in cands for t in c.memory.tags):
        if tag in seen:
            continue
        seen.add(tag)
        parts = _SLUG_PARTS.split(tag)
        if len(parts) < 2 or parts[0] not in state.asked or _NAMESPACED.search(tag):
            continue  # one word, another first word, or a namespace ("type:decision")
        asked = [t for part in parts for t in tokenize(part) if t in state.asked]
        kept = thing_words(asked, stats, common=False)
        if kept and not known & kept.keys():
            entities.append(tag)
            words.append(kept)
            known |= kept.keys()
    if len(entities) == len(state.entities):
        return state
    added = frozenset(entities[len(state.entities) :])
    return replace(state, entities=entities, words=words, from_tags=state.from_tags | added)


def coverage(c: Candidate, things: list[dict[str, float]], stemmed: bool, also: str = "") -> float:
    """How much of the question's named things the candidate's text or tags name (1
    without any; a memory tagged ``checkout-web`` that says "the checkout frontend" is
    about it, ADR 0085): per thing, its rarest word held counts in full and a commoner one in
    proportion to its IDF ("the billing service" names ``billing-api`` nearly as well,
    "Rose" ``Grandma Rose``); things weigh by their rarest word. *also*: more text the
    candidate stands for (the memories it replaced: "Migrated it to Aurora" names what
    "Atlas runs Postgres 13" named)."""
    return _share(_held(c, stemmed, also), things)


def _share(held: set[str], things: list[dict[str, float]]) -> float:
    """:func:`coverage` of the words *held*."""
    total = sum(max(words.values()) for words in things)
    if total <= 0:
        return 1.0
    got = sum(
        max((w for word, w in words.items() if word in held), default=0.0) for words in things
    )
    return got / total


def _held(c: Candidate, stemmed: bool, also: str = "") -> set[str]:
    # a tag says what it is about too; a memory with neither reads as its text alone, whose
    # tokens recall's BM25 already remembered
    parts = [c.memory.text, *c.memory.tags, *([also] if also else [])]
    text = " ".join(parts)
    return set(stem_tokens(text)) if stemmed else set(text_tokens(text))


def entity_penalty(
    cands: Sequence[Candidate],
    state: StateQuery,
    weight: float,
    code: float = 0.0,
    also: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """Lower the candidates that miss the question's named things; returns id → coverage.
    One that misses an identifier the question names (:func:`is_code`) which another
    candidate holds loses at least ``code ×`` its score: "commit 099b874" asks for one.
    *also*: per candidate id, more text it stands for (:func:`coverage`)."""
    if not state.words or weight <= 0 or not cands:
        return {}
    extra = also or {}
    held = {c.memory.id: _held(c, state.stemmed, extra.get(c.memory.id, "")) for c in cands}
    cover = {mid: _share(words, state.words) for mid, words in held.items()}
    best = max(cover.values())
    if best <= 0:
        return cover
    things = zip(state.entities, state.words, strict=True)
    codes = [
        max(w, key=w.__getitem__)
        for t, w in things
        if code > 0 and is_code(t) and t not in state.from_tags  # "s3-backups" is no record
    ]
    codes = [w for w in codes if any(w in h for h in held.values())]
    for c in cands:
        gap = (best - cover[c.memory.id]) / best
        share = weight * gap
        if codes and not all(w in held[c.memory.id] for w in codes):
            share = max(share, code)
        if share <= 0 or c.score <= 0:
            continue
        cut = c.score * share
        c.score -= cut
        c.explain.setdefault("stages", {})["entity"] = round(-cut, 6)
    return cover
