"""Where recall's candidates come from: the KNN leg, the keyword leg and BM25 over them.

Each function takes the store's primitives (:class:`~houkai.recall.core.StoreCore`)
and a pool (id → :class:`Candidate`) it adds to; the question's words and their
statistics come in already read (:class:`~houkai.recall.parsed.ParsedQuery`), so no
function here tokenises the question or reads its statistics again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import redis

from ..db.decode import as_text
from ..db.schema import SEARCH_FIELDS
from ..domain.model import FOLLOWS as FOLLOWS
from ..domain.model import Memory
from ..domain.model import previous_turn as previous_turn
from ..domain.text import lexical_clause
from ..store.codec import finite_cosine, from_hash
from ..store.lexstats import TermStats, bm25_scores, candidate_terms
from ..store.lexstats import term_stats as read_term_stats
from ..store.search import Hit, knn_query, parse_search, search_args
from .core import StoreCore
from .query import name_seen

log = logging.getLogger(__name__)

# Which documents a keyword query's LIMIT keeps is RediSearch's own ranking. Its default
# scorer is TFIDF up to RediSearch 2.10 (Redis Stack 7.4) and BM25STD from Redis 8: named
# here, every server keeps the candidates the stages were measured with (BM25STD cost
# 0.4 points of LoCoMo R@5, ADR 0064).
KEYWORD_SCORER = "TFIDF"
#: The weight of a question's synonyms in the keyword query's ranking (ADR 0096).
SYNONYM_WEIGHT = 0.5


@dataclass
class Candidate:
    memory: Memory
    cosine: float = 0.0
    has_vector: bool = False
    bm25: float = 0.0  # raw RediSearch BM25
    lexical: float = 0.0  # BM25 normalised to [0, 1] over the pool
    score: float = 0.0
    explain: dict[str, Any] = field(default_factory=dict)
    vector: np.ndarray | None = None
    expanded: bool = False  # reached by graph expansion, not by the query
    prf: float = 0.0  # cosine to the pseudo-relevance-feedback vector
    context: bool = False  # brought in as a sequence neighbour of a strong candidate
    feedback: bool = False  # brought in by the pseudo-relevance-feedback round
    rm3: tuple[str, ...] = ()  # the expansion words of the RM3 query that found it (ADR 0061)
    rm3_score: float = 0.0  # share of the RM3 expansion the text holds (ADR 0061)


Pool = dict[str, Candidate]


def stacked(vectors: Sequence[np.ndarray]) -> np.ndarray:
    """*vectors* as the rows of one float32 matrix (``np.array`` of the list: a third of
    ``np.stack``'s time for the 100–200 rows of a pool); like ``np.stack``, none is an
    error, not an empty row."""
    if not vectors:
        raise ValueError("no vectors to stack")
    return np.array(vectors, dtype=np.float32)


def recorded(cands: Sequence[Candidate]) -> bool:
    """Does the pool hold turns of a recorded exchange (memories that ``follow`` another)?
    Only there is an episode a session of talk; notes an agent wrote on one day are not
    about one thing because they share a day (ADR 0086). The whole pool is then read as
    talk: a session's first turn follows nothing, and leaving it out cost LoCoMo."""
    return any(previous_turn(c.memory) is not None for c in cands)


def term_stats(
    core: StoreCore,
    terms: list[str],
    names: list[str],
    stems_cue: bool,
    synonyms: Sequence[str] = (),
    maybe_names: Sequence[str] = (),
) -> TermStats:
    """The statistics of the question's *terms* (one ``HMGET``), read once per recall for
    the lexical pass, the rescoring of later candidates and the stages.

    The names the question mentions (*names*, lower-cased) are read in the same
    ``HMGET``: only a name some memory's text mentions makes the question "name
    something" (stems, ADR 0056); "the pre-production DB" in a collection that never
    says "DB" is a paraphrase, matched over exact tokens (ADR 0061). *stems_cue*: the
    question holds exact tokens. The terms' *synonyms* are read in the same ``HMGET``, and
    whether the collection writes the words *maybe_names* as names (a question typed in lower
    case: :mod:`houkai.domain.casing`); such a name is a name the question mentions.
    """
    # the words that may be names are read as terms too: a name read from them ("tim's"
    # → Tim) is weighed by the named-things reading as a name written so is
    stats = read_term_stats(
        core.client, core.keys.lexstats, [*terms, *synonyms, *names], maybe_names=maybe_names
    )
    # A one-word query is a keyword lookup ("backup" means "Backups" too; ADR 0056).
    stems = (
        len(terms) == 1 or stems_cue or bool(stats.named) or any(name_seen(n, stats) for n in names)
    )
    return replace(stats, stemmed=stats.stemmed and stems)


def together(client: Any, commands: list[list]) -> list[Any]:
    """The replies of *commands*, sent in one pipelined round trip; a failed command's
    reply is its exception. On a Redis Cluster each goes alone through the client, whose
    searches are fenced against slot moves (a pipeline would bypass the fence)."""
    from redis.cluster import RedisCluster

    if isinstance(client, RedisCluster) or len(commands) == 1:
        out: list[Any] = []
        for args in commands:
            try:
                out.append(client.execute_command(*args))
            except redis.exceptions.ResponseError as exc:
                out.append(exc)
        return out
    pipe = client.pipeline(transaction=False)
    for args in commands:
        pipe.execute_command(*args)
    return list(pipe.execute(raise_on_error=False))


@dataclass
class Leg:
    """One query of a recall's first round: its ``FT.SEARCH`` and what takes its reply
    (the reply, or the exception it failed with) into the pool, returning the ids added.
    The legs depend only on the question, so they share one round trip (:func:`run_legs`)."""

    args: list
    take: Callable[[Any], list[str]]


def run_legs(core: StoreCore, legs: Sequence[Leg]) -> list[list[str]]:
    """Send *legs* in one pipelined round trip, then let each take its reply, in order
    (a later leg skips what an earlier one added); returns the ids each added."""
    replies = together(core.client, [leg.args for leg in legs])
    return [leg.take(reply) for leg, reply in zip(legs, replies, strict=True)]


def knn_args(
    core: StoreCore,
    qvec: np.ndarray,
    where: str,
    size: int,
    *,
    batches: bool = False,
    verbatim: bool = False,
) -> list:
    """The ``FT.SEARCH`` of :func:`vector_candidates` (to queue on a pipeline)."""
    query = knn_query(
        where, size, core.index_params.ef_runtime, batches=batches, exact=core.knn_exact()
    )
    return search_args(
        core.keys.index,
        query,
        params={"q": core.vector_blob(qvec)},
        return_fields=(*SEARCH_FIELDS, "dist", "vec"),
        sortby=("dist", "ASC"),
        limit=size,
        verbatim=verbatim,
    )


def knn_pool(core: StoreCore, hits: list[Hit], known: Pool | None = None) -> Pool:
    """The candidates of a KNN reply's *hits*, cosine from the index's distance; a hit
    already in *known* is left out before it is decoded (a later round's hits are
    mostly the first round's: decoding them cost a fifth of a recall, ADR 0084)."""
    pool: Pool = {}
    for hit in hits:
        if known is not None and as_text(hit.fields.get("id")) in known:
            continue
        memory = from_hash(hit.fields)
        cosine = finite_cosine(1.0 - float(hit.str("dist", "1")))
        pool[memory.id] = Candidate(
            memory=memory,
            cosine=cosine,
            has_vector=True,
            vector=core.vector_from_blob(hit.fields.get("vec")),
        )
    return pool


def fetched_candidate(core: StoreCore, raw: dict, qvec: np.ndarray | None) -> Candidate:
    """The candidate of a memory hash read by id (``HGETALL``), cosine to *qvec*."""
    fields = {as_text(k): v for k, v in raw.items()}
    vec = core.vector_from_blob(fields.get("vec"))
    return Candidate(
        memory=from_hash(fields),
        cosine=cosine_to(vec, qvec),
        has_vector=vec is not None,
        vector=vec,
    )


def vector_candidates(
    core: StoreCore,
    qvec: np.ndarray,
    where: str,
    size: int,
    *,
    batches: bool = False,
    verbatim: bool = False,
    known: Pool | None = None,
) -> Pool:
    """The *size* memories nearest *qvec* under the filter *where*, cosine from the
    index's distance (*verbatim*: the filter's words match unstemmed), less those
    already in *known*."""
    pool: Pool = {}
    run_legs(
        core,
        [knn_leg(core, pool, qvec, where, size, batches=batches, verbatim=verbatim, known=known)],
    )
    return pool


def knn_leg(
    core: StoreCore,
    pool: Pool,
    qvec: np.ndarray,
    where: str,
    size: int,
    *,
    batches: bool = False,
    verbatim: bool = False,
    known: Pool | None = None,
    optional: str = "",
) -> Leg:
    """:func:`vector_candidates` as a :class:`Leg` adding to *pool*. Its failure is the
    recall's (the KNN leg is the one a recall cannot do without), unless it is *optional*:
    then it is logged with that name and adds nothing."""
    args = knn_args(core, qvec, where, size, batches=batches, verbatim=verbatim)

    def take(reply: Any) -> list[str]:
        if isinstance(reply, Exception):
            if not optional:
                raise reply
            log.warning("%s query failed", optional, exc_info=reply)
            return []
        _, hits = parse_search(reply)
        found = knn_pool(core, hits, known)
        pool.update(found)
        return list(found)

    return Leg(args, take)


def keyword_query(words: list[str], where: str, synonyms: Sequence[str] = ()) -> str:
    """The keyword candidate query: any of *words*, or of their *synonyms* weighed at
    :data:`SYNONYM_WEIGHT`, under the recall's filter *where*.

    The filter is a zero-weight clause. Intersected plainly, the "live" clauses every
    recall carries changed RediSearch's TFIDF scores so much that a memory matching every
    word of the query fell out of the first 20 hits: 7 of 200 facts, 18 of 150 at 100k
    (0 of each with weight 0; ADR 0069). A synonym is rarer than the word asked as often
    as not: at full weight, memories holding only a synonym would take the query's
    places from those holding the words asked (ADR 0096)."""
    clause = lexical_clause(words)
    if synonyms:
        weak = f"({lexical_clause(list(synonyms))})=>{{$weight: {SYNONYM_WEIGHT}}}"
        clause = f"(({clause})|({weak}))"  # one clause: the filter below binds to it all
    return filtered(clause, where)


def filtered(clause: str, where: str) -> str:
    """*clause* under the recall's filter *where*, as a zero-weight clause (see
    :func:`keyword_query`)."""
    return clause if where == "*" else f"{clause} ({where})=>{{$weight: 0.0}}"


def cosine_to(vec: np.ndarray | None, qvec: np.ndarray | None) -> float:
    """Cosine of a fetched vector to the question's (0 when either is missing)."""
    if vec is None or qvec is None:
        return 0.0
    return finite_cosine(float(np.dot(vec, qvec)))


def keyword_args(
    words: list[str],
    where: str,
    limit: int,
    index: str,
    verbatim: bool,
    synonyms: Sequence[str] = (),
) -> list:
    """The keyword candidate ``FT.SEARCH`` (:func:`keyword_query`; to queue on a pipeline)."""
    return search_args(
        index,
        keyword_query(words, where, synonyms),
        return_fields=(*SEARCH_FIELDS, "vec"),
        limit=limit,
        verbatim=verbatim,
        scorer=KEYWORD_SCORER,
    )


def add_keyword_hits(
    core: StoreCore,
    pool: Pool,
    hits: list[Hit],
    qvec: np.ndarray | None,
    rm3: tuple[str, ...] = (),
    keep: Callable[[Memory], bool] | None = None,
) -> list[str]:
    """Add the keyword *hits* not yet in *pool* (cosine to *qvec*) and, with *keep*, that
    it keeps (a query asked without the recall's filter); returns their ids. A hit already
    in the pool is not decoded."""
    added = []
    for hit in hits:
        if as_text(hit.fields.get("id")) in pool:
            continue
        memory = from_hash(hit.fields)
        if memory.id in pool or (keep is not None and not keep(memory)):
            continue
        vec = core.vector_from_blob(hit.fields.get("vec"))
        pool[memory.id] = Candidate(
            memory=memory,
            cosine=cosine_to(vec, qvec),
            has_vector=vec is not None,
            vector=vec,
            rm3=rm3,
        )
        added.append(memory.id)
    return added


def keyword_neighbours(
    core: StoreCore,
    pool: Pool,
    words: list[str],
    where: str,
    limit: int,
    qvec: np.ndarray,
    *,
    verbatim: bool = False,
) -> list[str]:
    """Add the *limit* memories nearest *qvec* among those matching any of *words*
    under *where* (ADR 0069); returns the new ids.

    A KNN restricted to the keyword matches: over a subset the size
    :func:`candidate_terms` bounds, RediSearch ranks it by brute force,
    so the cosine order is exact there whatever the HNSW graph reaches. RediSearch's
    own keyword ranking is not used: intersected with the recall's filter it kept a
    fact among the first 40 hits for 158 of 400 facts (400 of 400 this way)."""
    leg = neighbours_leg(core, pool, words, where, limit, qvec, verbatim=verbatim)
    return run_legs(core, [leg])[0]


def neighbours_leg(
    core: StoreCore,
    pool: Pool,
    words: list[str],
    where: str,
    limit: int,
    qvec: np.ndarray,
    *,
    verbatim: bool = False,
) -> Leg:
    """:func:`keyword_neighbours` as a :class:`Leg` of the first round."""
    clause = lexical_clause(words)
    subset = clause if where == "*" else f"{clause} {where}"
    return knn_leg(
        core, pool, qvec, subset, limit, verbatim=verbatim, known=pool,
        optional="keyword neighbours",
    )  # fmt: skip


def widen_semantic(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats | None,
    where: str,
    size: int,
    qvec: np.ndarray,
) -> None:
    """Add the nearest memories among those sharing the query's words to the KNN
    leg's approximate (HNSW) pool, in semantic and hybrid recall (ADR 0069).

    Written before a bulk of other memories, a distinct fact can sit where the
    graph search from the entry point never arrives (69 % of 4,000 facts found by
    their own text at EF_RUNTIME 64 under 16,000 log lines); among the keyword
    matches the cosine order is exact. Twice the pool, as many as the lexical leg
    takes: a fact among siblings that share most of its words ranks past 20. Only
    candidates are added: semantic recall still ranks by cosine alone."""
    leg = widen_leg(core, pool, terms, stats, where, size, qvec)
    if leg is not None:
        run_legs(core, [leg])


def widen_leg(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats | None,
    where: str,
    size: int,
    qvec: np.ndarray,
) -> Leg | None:
    """:func:`widen_semantic` as a :class:`Leg` of the first round (None: no words)."""
    if not terms or stats is None:
        return None
    return neighbours_leg(
        core, pool, candidate_terms(terms, stats), where, size * 2, qvec,
        verbatim=not stats.stemmed,
    )  # fmt: skip


def synonym_words(terms: list[str], related: Mapping[str, Sequence[str]] | None) -> list[str]:
    """The synonyms (*related*) of *terms* that are not terms themselves, once each."""
    extra = (w for words in (related or {}).values() for w in words if w not in terms)
    return list(dict.fromkeys(extra))


def normalise_lexical(pool: Pool, ceiling: float = 0.0) -> float:
    """``lexical`` = BM25 / the pool's best, or / *ceiling* when the best scores less
    (the ``overlap`` stage: a match of one common word is no full match). Returns the
    best's ``lexical``: 1, below 1 when *ceiling* set the scale, 0 when no BM25 > 0."""
    top = max((c.bm25 for c in pool.values()), default=0.0)
    scale = max(top, ceiling)
    for cand in pool.values():
        cand.lexical = cand.bm25 / scale if top > 0 else 0.0
    return top / scale if top > 0 else 0.0


def add_lexical(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats,
    where: str,
    size: int,
    qvec: np.ndarray | None,
    related: Mapping[str, Sequence[str]] | None = None,
) -> float:
    """Add BM25 to the pool and pull in keyword-only hits; the best's ``lexical`` (0: no
    BM25 > 0, :func:`normalise_lexical`).

    The inverted index finds keyword candidates corpus-wide with the filters
    pushed down; their BM25 comes from houkai's exact corpus statistics
    (see ``lexstats``), since RediSearch's own drift on updates and deletes.
    *related*: each term's synonyms, searched too and folded into the term's BM25.
    """
    leg = lexical_leg(core, pool, terms, stats, where, size, qvec, related)
    if leg is None:
        return 0.0
    run_legs(core, [leg])
    return score_lexical(core, pool, terms, stats, related)


def lexical_leg(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats,
    where: str,
    size: int,
    qvec: np.ndarray | None,
    related: Mapping[str, Sequence[str]] | None = None,
) -> Leg | None:
    """The keyword query of :func:`add_lexical` as a :class:`Leg` of the first round
    (None: the question has no terms); its BM25 is :func:`score_lexical`'s, once the
    pool is whole."""
    if not terms:
        return None
    return keyword_leg(core, pool, lexical_args(terms, stats, where, size, core, related), qvec)


def rare_leg(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats,
    size: int,
    qvec: np.ndarray | None,
    keep: Callable[[Memory], bool],
) -> Leg | None:
    """Every memory holding a question word that at most *size* memories hold, asked
    without the recall's filter (its hits filtered here by *keep*, the same filter:
    :func:`~houkai.db.filters.matches`); None when the question has no such word.

    The keyword query of :func:`lexical_leg` carries the filter, and RediSearch 2.10
    scores a keyword query intersected with a filter otherwise than the query alone (it
    divides by a slop over the clauses' positions and may count one word of a union):
    among 300 log lines sharing "batch" and "2", the one memory holding "batch-west-2"
    ranked 68th of 82 under the filter, and the query's limit cut it (ADR 0113). Without
    the filter the rare word's postings are all there is to walk: a few documents."""
    rare = [t for t in terms if 0 < stats.df.get(t, 0) <= size]
    if not rare:
        return None
    limit = min(sum(stats.df[t] for t in rare), 2 * size)
    args = keyword_args(rare, "*", limit, core.keys.index, not stats.stemmed)
    return keyword_leg(core, pool, args, qvec, keep=keep)


def lexical_args(
    terms: list[str],
    stats: TermStats,
    where: str,
    size: int,
    core: StoreCore,
    related: Mapping[str, Sequence[str]] | None,
) -> list:
    """The keyword candidate ``FT.SEARCH`` of :func:`lexical_leg` (limit ``2 × size``)."""
    # The candidates match the way BM25 below counts: over stems, RediSearch's stem
    # expansion finds what scores; over exact tokens, VERBATIM, since a document
    # found only through a stem ("+serv" for "served") would score nothing for that
    # term, and walking the expansion cost several times the postings the budget
    # counts (ADR 0060).
    searched = candidate_terms(terms, stats, synonyms=synonym_words(terms, related))
    return keyword_args(
        [w for w in searched if w in terms],
        where,
        size * 2,
        core.keys.index,
        not stats.stemmed,
        [w for w in searched if w not in terms],
    )


def keyword_leg(
    core: StoreCore,
    pool: Pool,
    args: list,
    qvec: np.ndarray | None,
    rm3: tuple[str, ...] = (),
    keep: Callable[[Memory], bool] | None = None,
) -> Leg:
    """A keyword ``FT.SEARCH`` (*args*, from :func:`keyword_args`) as a :class:`Leg`: its
    hits not yet in *pool* (and that *keep* keeps) join it (:func:`add_keyword_hits`). A
    failed query adds nothing: a lexical bonus is never worth failing the recall."""

    def take(reply: Any) -> list[str]:
        if isinstance(reply, Exception):
            return []
        _, hits = parse_search(reply)
        return add_keyword_hits(core, pool, hits, qvec, rm3, keep)

    return Leg(args, take)


def score_lexical(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats,
    related: Mapping[str, Sequence[str]] | None = None,
    ceiling: float = 0.0,
) -> float:
    """Every candidate's BM25 of the question's *terms*, normalised over the pool, and
    never by less than *ceiling* (the ``overlap`` stage's); returns the best's ``lexical``
    (:func:`normalise_lexical`)."""
    if not terms:
        return 0.0
    texts = {mid: c.memory.text for mid, c in pool.items()}
    scores = bm25_scores(terms, texts, core.client, core.keys.lexstats, stats, related=related)
    for mid, cand in pool.items():
        cand.bm25 = scores.get(mid, 0.0)
    return normalise_lexical(pool, ceiling)


def rescore_lexical(
    core: StoreCore,
    pool: Pool,
    terms: list[str],
    stats: TermStats | None,
    added: list[str],
    related: Mapping[str, Sequence[str]] | None = None,
    ceiling: float = 0.0,
) -> float:
    """BM25 for candidates added after the lexical pass, then re-normalise the pool
    (*ceiling* and what it returns: as :func:`score_lexical`)."""
    if not terms or stats is None:
        return 0.0
    scores = bm25_scores(
        terms,
        {mid: pool[mid].memory.text for mid in added},
        core.client,
        core.keys.lexstats,
        stats,
        related=related,
    )
    for mid, value in scores.items():
        pool[mid].bm25 = value
    return normalise_lexical(pool, ceiling)
