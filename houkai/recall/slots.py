"""Score slots: the ``current`` stage reorders a topic's memories by dealing out the
scores they hold, so nothing outside the topic moves and no score is made up."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .candidates import Candidate


def deal(order: list[Candidate]) -> None:
    """Give *order*, a topic's memories, the topic's score slots, best first, and say so
    in ``explain``."""
    slots = sorted((c.score for c in order), reverse=True)
    for c, slot in zip(order, slots, strict=True):
        shift = slot - c.score
        c.score = slot
        info = c.explain.setdefault("stages", {})
        info["current_group"] = len(order)
        moved = round(info.get("current", 0.0) + shift, 6)  # a second deal adds to the first
        if moved:
            info["current"] = moved
        else:
            info.pop("current", None)
