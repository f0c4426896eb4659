"""The ``bridge`` stage: the second hop of a question about someone it does not name.

"What does Dana's partner do for work?" finds "Dana's partner is called Ines" first. The
answer, "Ines is a nurse at the city hospital and works night shifts", is about Ines,
whom the question never names, so it ranks far down (tenth on the personal set's dev
split). The stage reads the best candidate's names that the question does not hold
(Ines) and the question's words it lacks (work); of the candidates that open with such a
name (it is about Ines, not a tool it mentions in passing), the one holding the most of
those words (then the best-scored) moves to just below it. A best candidate that holds
every question word, or none, bridges nowhere; turns that follow another in a recorded
conversation (which name their speakers throughout) neither bridge nor are bridged to
(ADR 0089).
"""

from __future__ import annotations

from ...domain.text import stem, stem_tokens
from .. import asking
from ..candidates import Candidate, previous_turn
from ..statements import STOP
from ..subjects import opening, stated_names
from .base import Stage, StageContext, note


def bridge(cands: list[Candidate], read: asking.StateQuery) -> tuple[Candidate, Candidate] | None:
    """The best candidate and its second hop, or None (see the module docstring)."""
    notes = [c for c in cands if previous_turn(c.memory) is None]
    if len(notes) < 2:
        return None
    hop = min(notes, key=lambda c: (-c.score, c.memory.id))
    text = hop.memory.text
    named = frozenset(stem_tokens(" ".join(read.entities)))
    words = {w for w in read.asked_terms if len(w) > 1} - STOP - named
    # the question's own names, possessive or not ("Dana's" asks about Dana)
    names = {n for n in stated_names(text) - read.asked if stem(n) not in read.asked_terms}
    lacking = words - frozenset(stem_tokens(text))
    if not names or not lacking or lacking == words:
        return None
    best: tuple[int, float, Candidate] | None = None
    for c in notes:
        if c is hop or not names & opening(c.memory.text):
            continue  # Slack in "Marta prefers async updates in Slack" is no subject
        gain = len(lacking & frozenset(stem_tokens(c.memory.text)))
        if gain and (best is None or (gain, c.score) > best[:2]):
            best = (gain, c.score, c)
    return (hop, best[2]) if best is not None else None


class BridgeStage(Stage):
    name = "bridge"
    reads = frozenset({"state"})

    def rank(self, ctx: StageContext, cands: list[Candidate]) -> None:
        read = ctx.query.state
        found = bridge(cands, read) if read is not None else None
        if found is None:
            return
        hop, far = found
        below = hop.score - 1e-6  # right below the hop, above what it outranked
        if far.score < below:
            note(far, "bridge", round(below - far.score, 6))
            far.score = below


STAGE = BridgeStage()
