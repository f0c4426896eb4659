"""Reconciliation: what becomes of one candidate against what its scope already holds.

ADD it, UPDATE an old memory (the candidate becomes a new version that supersedes it:
linked, journalled, undoable) or NOOP (a duplicate). An LLM extractor decides when it
wants to (:meth:`~houkai.extraction.base.Extractor.decide`); otherwise, or when its
answer names no neighbour, the rules below do:

1. the candidate sets a single-valued slot (``slot:home``, ``slot:pref:sushi`` …) that a
   live memory of the scope already sets: the same text is a NOOP, another an UPDATE of
   the newest such memory ("I live in Paris" → "I moved to Berlin");
2. a live neighbour with the same normalised text is a NOOP;
3. the nearest neighbour at or above ``extract_duplicate_similarity``: an UPDATE when the
   two disagree (opposite polarity, or a negation on one side only: the store's conflict
   rules); a NOOP when the candidate adds no word the memory lacks (embeddings put "lamp
   number 3" and "lamp number 20" at 0.95: a new number or name is new information, so
   such a candidate is ADDed, not dropped);
4. at or above ``extract_update_similarity`` and disagreeing: an UPDATE;
5. otherwise ADD.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..domain.model import Memory, content_hash
from ..domain.text import STOP_WORDS, negation_diff, tokenize
from ..extraction.base import Candidate, Decision, Extractor, Neighbour, Usage

NEIGHBOURS = 8
SLOT_PREFIX = "slot:"


def slot_tag(candidate: Candidate) -> str | None:
    return next((t for t in candidate.tags if t.startswith(SLOT_PREFIX)), None)


#: words that restate rather than inform ("I really prefer tea" says what "I prefer tea" did)
_EMPHASIS = frozenset(
    "really very actually still definitely absolutely totally always usually generally "
    "honestly basically too quite much lot user users s".split()
)


def adds_nothing(candidate: str, memory: str) -> bool:
    """Every content word of *candidate* is in *memory* (a restatement, not news)."""
    have = {_stem(t) for t in tokenize(memory)}
    skip = STOP_WORDS | _EMPHASIS
    return all(_stem(t) in have for t in tokenize(candidate) if t not in skip)


def _stem(word: str) -> str:
    """A crude stem: "prefers"/"prefer", "lives"/"live" compare equal."""
    for suffix in ("ies", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def disagree(a_text: str, a_polarity: int, b_text: str, b_polarity: int) -> bool:
    """The store's contradiction rules: opposite polarities, or a one-sided negation."""
    if a_polarity and b_polarity and a_polarity != b_polarity:
        return True
    return negation_diff(a_text, b_text)


def find_neighbours(
    store: Any,
    candidate: Candidate,
    vector: np.ndarray,
    scope: Mapping[str, str],
    exclude: str,
) -> tuple[list[Neighbour], dict[str, Memory]]:
    """The live memories of *scope* nearest the candidate, and those setting its slot
    (with their cosine similarity), excluding *exclude* (the candidate's own id)."""
    found: dict[str, Memory] = {}
    hits = store.recall(candidate.text, k=NEIGHBOURS, touch=False, **scope)
    for memory, _score in hits:
        found[memory.id] = memory
    slot = slot_tag(candidate)
    if slot:
        for memory in store.list_recent(limit=NEIGHBOURS, tag=slot, **scope):
            found[memory.id] = memory
    found.pop(exclude, None)
    # the scope is exact: an anonymous session's candidate never replaces Alice's memory
    found = {
        mid: m
        for mid, m in found.items()
        if m.user_id == scope.get("user_id", "") and m.agent_id == scope.get("agent_id", "")
    }
    if not found:
        return [], {}
    vectors = store.vectors(list(found))
    unit = vector / (np.linalg.norm(vector) or 1.0)
    out = []
    for mid, memory in found.items():
        v = vectors.get(mid)
        sim = 0.0 if v is None else float(np.dot(unit, v / (np.linalg.norm(v) or 1.0)))
        out.append(Neighbour(mid, memory.text, round(sim, 4), memory.created_at, memory.polarity))
    out.sort(key=lambda n: n.similarity, reverse=True)
    return out, found


def rule_decision(
    candidate: Candidate,
    neighbours: Sequence[Neighbour],
    memories: Mapping[str, Memory],
    *,
    duplicate: float,
    update: float,
) -> Decision:
    """The no-LLM decision (see the module docstring)."""
    own = content_hash(candidate.text)
    slot = slot_tag(candidate)
    if slot:
        holders = [n for n in neighbours if slot in memories[n.id].tags]
        same = [
            n
            for n in holders
            if memories[n.id].content_hash == own
            or (
                adds_nothing(candidate.text, n.text)
                and not disagree(candidate.text, candidate.polarity, n.text, n.polarity)
            )
        ]
        if same:
            return Decision("NOOP", candidate, same[0].id, f"same {slot}")
        if holders:
            newest = max(holders, key=lambda n: n.created_at)
            return Decision("UPDATE", candidate, newest.id, f"new value of {slot}")
    for n in neighbours:
        if memories[n.id].content_hash == own:
            return Decision("NOOP", candidate, n.id, "same text")
    if not neighbours:
        return Decision("ADD", candidate, None, "nothing similar")
    top = neighbours[0]
    contradicts = disagree(candidate.text, candidate.polarity, top.text, top.polarity)
    if top.similarity >= duplicate and contradicts:
        return Decision("UPDATE", candidate, top.id, f"contradicts ({top.similarity:.2f})")
    for n in neighbours:
        if n.similarity < duplicate:
            break
        if adds_nothing(candidate.text, n.text) and not disagree(
            candidate.text, candidate.polarity, n.text, n.polarity
        ):
            return Decision("NOOP", candidate, n.id, f"duplicate ({n.similarity:.2f})")
    if top.similarity >= update and contradicts:
        return Decision("UPDATE", candidate, top.id, f"contradicts ({top.similarity:.2f})")
    return Decision("ADD", candidate, None, f"new (nearest {top.similarity:.2f})")


def decide(
    extractor: Extractor,
    candidate: Candidate,
    neighbours: Sequence[Neighbour],
    memories: Mapping[str, Memory],
    *,
    duplicate: float,
    update: float,
) -> tuple[Decision, Usage | None]:
    """The extractor's decision when it makes one that holds (an UPDATE/NOOP must name a
    neighbour), else the rules'."""
    decision, usage = extractor.decide(candidate, neighbours)
    if decision is not None and (decision.action == "ADD" or decision.target_id in memories):
        return decision, usage
    return rule_decision(candidate, neighbours, memories, duplicate=duplicate, update=update), usage
