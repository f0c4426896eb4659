"""Deterministic, LLM-free importance scoring for new memories (README "Importance").

``score_importance(text, type, tags)`` rates how much a memory matters, 0..1:

* **0.90** — standing instructions, corrections, stated preferences
* **0.75** — decisions, conventions, policies, rules
* **0.60** — completed work and durable project facts
* **0.50** — nothing matched (neutral)
* **0.35** — hedged or passing observations

The strongest matching tier wins, then modifiers apply (+0.10 for
``procedural``/``feedback``, −0.15 for a question, −0.10 for a fragment shorter
than 20 characters) and the result is clamped to [0.05, 0.98] so an automatic
score never claims certainty either way. Same input, same score: recall ranking
and decay both read importance, so it must be stable across runs.

Enable it per store with ``MemoryStore(importance_fn=score_importance)`` or for
every store with ``HOUKAI_AUTO_IMPORTANCE=1`` (``settings.auto_importance``);
an explicit ``importance=`` on ``remember`` always wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..domain.model import ValidationError

NEUTRAL = 0.50
FLOOR = 0.05
CEILING = 0.98
TYPE_BONUS: dict[str, float] = {"procedural": 0.10, "feedback": 0.10}
QUESTION_PENALTY = 0.15
FRAGMENT_PENALTY = 0.10
FRAGMENT_CHARS = 20


def _compile(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


# Highest tier first; the first tier with any matching pattern sets the base.
TIERS: tuple[tuple[float, tuple[re.Pattern[str], ...]], ...] = (
    (
        0.90,
        _compile(
            r"\b(?:always|never)\b",
            r"\bfrom now on\b",
            r"\bmust(?:n'?t| not)?\b",
            r"\bdo not ever\b",
            r"\b(?:important|critical)\b",
            r"^\s*correction\b",
            r"\bactually,",
            r"\bthat(?:'s| is| was) (?:wrong|incorrect)\b",
            r"\bnot \w+(?:[ ,]+\w+){0,3}[ ,]+but\b",
            r"\binstead of\b",
            r"\bprefers?\b",
            r"\bfavou?rite\b",
            r"\b(?:i|user) (?:like|love|hate|dislike)s?\b",
            r"\bdon'?t (?:like|want|use)\b",
        ),
    ),
    (
        0.75,
        _compile(
            r"\bdecided\b",
            r"\bdecision\b",
            r"\bwe (?:use|chose|agreed|settled on)\b",
            r"\b(?:convention|policy|standard|rule|workflow|required)\b",
        ),
    ),
    (
        0.60,
        _compile(
            r"\b(?:fixed|solved|resolved)\b",
            r"\b(?:implemented|added|built|created)\b",
            r"\b(?:deployed|released|shipped|merged|published)\b",
            r"\b(?:configured|installed|migrated)\b",
        ),
    ),
    (
        0.35,
        _compile(
            r"\b(?:noticed|observed|saw|spotted)\b",
            r"\b(?:seems|appears|looks like)\b",
            r"\b(?:maybe|perhaps|might|possibly)\b",
            r"\bnot sure\b",
            r"\bfor now\b",
            r"\btemporar(?:y|ily)\b",
        ),
    ),
)


def base_tier(text: str) -> float:
    """The score of the strongest tier *text* matches, or the neutral 0.5."""
    for score, patterns in TIERS:
        if any(p.search(text) for p in patterns):
            return score
    return NEUTRAL


def score_importance(text: str, type: str = "semantic", tags: Iterable[str] = ()) -> float:
    """Rate a memory's importance in [0.05, 0.98] from its text and type.

    ``tags`` is accepted for signature compatibility with ``importance_fn``
    (``(text, type, tags) -> float``); the heuristic does not use it.
    """
    if not isinstance(text, str):
        raise ValidationError(f"text must be a string — got {text.__class__.__name__}")
    body = text.strip()
    score = base_tier(body) + TYPE_BONUS.get(type, 0.0)
    if body.endswith("?"):
        score -= QUESTION_PENALTY
    if len(body) < FRAGMENT_CHARS:
        score -= FRAGMENT_PENALTY
    return round(min(CEILING, max(FLOOR, score)), 3)


__all__ = ["TIERS", "base_tier", "score_importance"]
