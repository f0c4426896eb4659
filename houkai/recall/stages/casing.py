"""The ``casing`` stage (opt-in): a question typed in lower case still names someone.

Recall reads a question's names from its capitals: "Where does Mia work?" is about Mia,
and the ``query``, ``entity`` and ``current`` stages act on that. Typed into a chat box as
"where does mia work", the question names no one. With this stage, a question with no
capital inside a sentence is read with its words capitalised where the collection's
memories write them as names (:mod:`houkai.domain.casing`): the counts come from the
statistics every write keeps, in the ``HMGET`` recall sends anyway, so the stage costs
no round trip. ``explain`` shows the question as read under ``query.cased``.

It is off by default (ADR 0102): on the dev splits of the questions typed in lower case
(``bench suite``'s ``NAME:typed`` sets) it gave back what typing cost (personal R@5 0.828
→ 0.918), but on their test splits it gained on some sets and cost on others (personal
0.886 → 0.877), and it cost the team set, whose questions are partly typed so, a question
(0.818 → 0.803): a named question is read as the stages read names, and those favour the
named one's notes over a second hop.
"""

from __future__ import annotations

from .base import Stage


class CasingStage(Stage):
    name = "casing"
    reads = frozenset({"casing"})  # the question is read with its names capitalised


STAGE = CasingStage()
