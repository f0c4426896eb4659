"""The question, read once per recall: :class:`ParsedQuery`.

Everything recall derives from the query text is computed here, once, before the
candidates are gathered: its tokens and lexical terms, their corpus statistics (one
``HMGET``), the parse of dates, names and exact tokens (the ``query`` stage), what the
``current`` and ``entity`` stages read (present/past intent, named things) and the
query vector (one encode, cached per store). Every later step reads these fields; none
tokenises, parses or encodes the question again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..domain.casing import askable, truecase, uncased
from ..domain.text import MAX_QUERY_TERMS, MAX_QUERY_WORDS, terms_of, tokenize, word_parts
from ..store.lexstats import TermStats
from ..store.lexstats import term_stats as read_term_stats
from . import asking
from .candidates import synonym_words, term_stats
from .core import StoreCore
from .query import QueryParse, has_exact_tokens, name_seen, parse_query, question_names
from .synonyms import Vocabulary


@dataclass
class ParsedQuery:
    """One question as recall reads it (see the module docstring)."""

    text: str
    now: float  # the clock the question is asked at (``as_of``, default: now)
    tokens: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)  # distinct, stop words out (the lexical leg)
    #: a term's synonyms (the ``synonyms`` stage): BM25 folds them into the term
    related: dict[str, tuple[str, ...]] = field(default_factory=dict)
    stats: TermStats | None = None  # the terms' (and names') corpus statistics
    parse: QueryParse | None = None  # dates, recency, exact tokens, names (``query`` stage)
    state: asking.StateQuery | None = None  # intent and named things (``current``, ``entity``)
    vector: np.ndarray | None = None


def rarest_terms(core: StoreCore, terms: list[str]) -> list[str]:
    """Of a long question's *terms* (more than :data:`MAX_QUERY_TERMS`), the
    :data:`MAX_QUERY_TERMS` rarest in the collection, in the question's order (one more
    ``HMGET``): a stack trace asked whole shares its first thirty-two words with every
    trace, and only its last line tells it apart (ADR 0116)."""
    df = read_term_stats(core.client, core.keys.lexstats, terms).df
    # a word no memory holds finds nothing: the rarest of those some memory holds
    kept = sorted(range(len(terms)), key=lambda i: (not df.get(terms[i]), df.get(terms[i], 0), i))
    kept = kept[:MAX_QUERY_TERMS]
    return [terms[i] for i in sorted(kept)]


def read_query(
    core: StoreCore,
    text: str,
    now: float,
    *,
    hybrid: bool,
    parse: bool = False,
    state_read: bool = False,
    widen: bool = False,
    synonyms: Vocabulary | None = None,
    casing: bool = False,
) -> ParsedQuery:
    """Read *text* once. *hybrid*: the lexical leg runs (statistics are read); *parse*:
    a stage reads the parse; *state_read*: a stage reads intent and named things;
    *widen*: semantic recall widens its pool by keyword (it needs the statistics too);
    *synonyms*: the ``synonyms`` stage's vocabulary (hybrid only); *casing*: a question
    typed in lower case is read with the words the collection writes as names
    capitalised (the ``casing`` stage, :mod:`houkai.domain.casing`), in the same
    ``HMGET`` as the statistics."""
    out = ParsedQuery(text=text, now=now)
    out.tokens = tokenize(text)
    # "1740ms" asks for 1740 and ms too
    terms = terms_of(out.tokens + word_parts(text), MAX_QUERY_WORDS)
    long = hybrid and len(terms) > MAX_QUERY_TERMS
    out.terms = rarest_terms(core, terms) if long else terms[:MAX_QUERY_TERMS]
    vector = core.query_vector(text) if text.strip() else None
    if hybrid and synonyms is not None:
        out.related = synonyms.related(out.terms, out.tokens)
    if out.terms and (hybrid or (widen and vector is not None)):
        names = [n.lower() for n in question_names(text)]
        extra = synonym_words(out.terms, out.related)
        maybe = askable(text) if casing and uncased(text) else []
        out.stats = term_stats(core, out.terms, names, has_exact_tokens(text), extra, maybe)
        if out.stats.named:  # typed in lower case: its names as the collection writes them
            text = truecase(text, out.stats.named.__contains__)
    reading = parse_query(text, now) if parse or state_read else None
    if parse and reading is not None:
        out.parse = reading
        if out.stats is not None:
            stats = out.stats
            # a name read from the marks is seen: its word was read as a term ("tom's" → Tom)
            reading.unseen = [n for n in reading.names if not name_seen(n.lower(), stats)]
            reading.stems = stats.stemmed
            reading.cased = text if text != out.text else ""
    out.vector = vector
    if state_read and reading is not None:
        out.state = asking.read(
            text, out.stats, reading.window is not None, tokens=out.tokens, terms=out.terms
        )
    return out
