"""The ``synonyms`` stage: a question word also finds the words that mean the same thing.

It only switches the reading on: :func:`houkai.recall.parsed.read_query` looks each of
the question's terms up in the vocabulary (:mod:`houkai.recall.synonyms`), and the words
that spell out an abbreviation (:mod:`houkai.recall.abbreviations`, ADR 0109); the keyword
leg searches the synonyms too, and BM25 folds them into the term they stand for.
``explain`` shows them under ``query.synonyms`` (ADR 0096).
"""

from __future__ import annotations

from .base import Stage


class SynonymsStage(Stage):
    name = "synonyms"
    reads = frozenset({"synonyms"})


STAGE = SynonymsStage()
