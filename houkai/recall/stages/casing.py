"""The ``casing`` stage: a question typed in lower case still names someone.

Recall reads a question's names from its capitals: "Where does Mia work?" is about Mia,
and the ``query``, ``entity`` and ``current`` stages act on that, as does the lexical
leg's choice of stems (ADR 0056). Typed into a chat box as "where does mia work", the
question names no one. With this stage, a question with no capital inside a sentence is
read with its words capitalised where the collection's memories write them as names
(:mod:`houkai.domain.casing`): the counts come from the statistics every write keeps, in
the ``HMGET`` recall sends anyway, so the stage costs no round trip. ``explain`` shows the
question as read under ``query.cased``. A question typed with case is read as written.

On by default (ADR 0102): on the test splits of the questions typed in lower case
(``bench suite``'s ``NAME:typed`` sets) it held every set within one question and gained
on most (personal-typed R@5 0.886 → 0.921, every typed set's MRR up).
"""

from __future__ import annotations

from .base import Stage


class CasingStage(Stage):
    name = "casing"
    reads = frozenset({"casing"})  # the question is read with its names capitalised


STAGE = CasingStage()
