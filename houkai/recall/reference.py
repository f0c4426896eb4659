"""A past question's reference point: "before **X**" names the state after the one asked.

"Where did Maya live before Toronto?" names the memory that replaced the answer ("Maya
is based in Toronto."); the answer is the memory on its topic written just before it
("My sister Maya is based in Denver."). The ``current`` stage reads the point in the
topic groups it forms (``state._asked_for``). When the two memories share no word of the
question, no group forms, and :func:`state_before` pairs them by the point itself
(ADR 0095).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..domain.text import query_terms, stem, stem_tokens, tokenize
from .slots import deal

if TYPE_CHECKING:
    from .candidates import Candidate

#: A past question's reference point that names the state after the one it wants.
_BEFORE_POINT = re.compile(r"\b(?:before|instead of)\b", re.I)
#: A reference point's values: names and numbers ("before **Ravi**", "before **8081**").
_POINT_VALUE = re.compile(r"\b(?:[A-Z][\w-]*|\d[\w.:]*)")
#: Memories this much less close to the point's memory than the closest one are on its
#: topic too; of those, the newest older than it is the state it replaced.
CLOSE_MARGIN = 0.1
#: How far a topic whose closest note is below ``current_similarity`` must stand out from
#: the subject's notes outside it (at least one must be there to compare with): "Food
#: note for Tom: low-sodium." has a cosine of 0.63 to "Tom eats vegetarian", at most 0.44
#: to seven other notes on Tom; "Food note for Tim next door: dairy-free." has 0.46, 0.45
#: and 0.44 to three notes on Tim, and none is its topic.
STAND_OUT = 0.15
#: A pronoun the question writes in capitals names nothing ("before **I** quit").
_NO_VALUE = frozenset({"i"})


def naming(question: str, texts: Sequence[str]) -> list[int] | None:
    """The indices of *texts* that name the question's reference point: all its names and
    numbers ("before **Ravi**"), or, when it has none, all its words (as stems) that some
    text holds, when they are at least half of them ("before going low-sodium" is read by
    "low" and "sodium"; "before the new editor" is not read by "new" alone). None: the
    question has no reference point, or the texts hold too little of it to tell."""
    parts = _BEFORE_POINT.split(question, maxsplit=1)
    if len(parts) < 2:
        return None
    # each value as the texts' tokens read it ("PRs" is "pr", "Jean-Luc" is "jean" "luc")
    values = {t for m in _POINT_VALUE.finditer(parts[1]) for t in tokenize(m[0])} - _NO_VALUE
    if values:
        return [i for i, t in enumerate(texts) if values <= set(tokenize(t))]
    stems = [set(stem_tokens(t)) for t in texts]
    asked = {stem(t) for t in query_terms(parts[1])}
    words = asked & set().union(*stems)
    if not words or 2 * len(words) < len(asked):
        return None
    return [i for i, held in enumerate(stems) if words <= held]


def state_before(
    top: list[Candidate],
    ages: Sequence[float],
    subject: Sequence[bool],
    question: str,
    similarity: float,
    shared: float,
    dealt: frozenset[int] = frozenset(),
) -> tuple[int, list[int]] | None:
    """The state asked for and its topic (indices of *top*, the point's memory first), or
    None. *dealt*: candidates a topic group already ranked; a point among them is left to
    its group, and none of them joins the topic.

    The point's memory is the one candidate that names the point (:func:`naming`) and all
    the question names (*subject*); when several do, the point is an event many notes
    tell of ("before launch"), not a state's value. Its topic: the candidates that name
    the subject too, not the point, with a cosine to it of *similarity* or more or within
    :data:`CLOSE_MARGIN` of the closest. The closest must have *similarity* or more, or
    *shared* or more and stand :data:`STAND_OUT` above the closest of the subject's notes
    outside the topic (a lone note close to it by a cosine under *similarity* tells
    nothing). The state before it is the newest of the topic older than it (Montreal →
    Toronto → Austin: before Austin is Toronto, though Montreal is as close; before
    Toronto is Montreal, and Austin, on the topic too, goes below it)."""
    named = naming(question, [c.memory.text for c in top])
    if not named:
        return None
    anchors = [i for i in named if subject[i]]
    if len(anchors) != 1:
        return None  # several notes on the subject name it: an event ("before launch")
    at = anchors[0]
    anchor = top[at].vector
    if anchor is None or at in dealt:
        return None
    cosines = {
        i: float(np.dot(c.vector, anchor))
        for i, c in enumerate(top)
        if c.vector is not None and subject[i] and i not in named and i not in dealt
    }
    close = max(cosines.values(), default=0.0)
    floor = min(similarity, close - CLOSE_MARGIN)
    topic = [i for i, cos in cosines.items() if cos >= floor]
    others = max((cos for i, cos in cosines.items() if i not in topic), default=None)
    stands_out = close >= shared and others is not None and close - others >= STAND_OUT
    if close < similarity and not stands_out:
        return None
    older = [i for i in topic if ages[i] < ages[at]]
    if not older:
        return None
    return max(older, key=lambda i: (ages[i], top[i].memory.id)), [at, *topic]


def put_first(top: list[Candidate], was: int, topic: list[int]) -> None:
    """Deal *topic*'s score slots (:func:`state_before`'s answer: the point's memory first)
    to the state *was* first and the rest in their order, and mark it in ``explain``."""
    rest = sorted((top[i] for i in topic if i != was), key=lambda c: (-c.score, c.memory.id))
    deal([top[was], *rest])
    top[was].explain.setdefault("stages", {})["current_point"] = top[topic[0]].memory.id
