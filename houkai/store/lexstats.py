"""Exact corpus statistics for BM25, maintained atomically beside every write.

RediSearch's own term statistics drift when indexed documents are updated or
deleted (document frequencies are not reconciled until, or even after, its
garbage collector runs; see docs/adr/0003-bm25.md), so scores taken from it
change as memories are touched, edited and forgotten. houkai uses the
inverted index to *find* keyword candidates, and scores them with BM25 over
statistics it keeps itself: per collection, a HASH of document frequency per
term plus the document count and total length. Each memory hash records the
terms it contributed (``lexterms``) and its length (``lexlen``), so the Lua
scripts below are idempotent: rewriting a memory with unchanged text changes
nothing, and a delete subtracts exactly what was added.

Since ADR 0056 the statistics count English stems (``s:<stem>``, ``lexstems``,
``__S`` memories with stems) and recall scores over them once every memory has
them; a collection written before keeps its plain ``t:`` counts exact (its
writes count both forms) until :func:`~houkai.store.lexmigrate.upgrade` has given every
memory its stems.
Since ADR 0102 ``lexstems`` also carries the memory's name marks (``^tim``, ``^^tim``:
:func:`~houkai.domain.casing.name_marks`), counted and taken back as stems are; no
stem starts with ``^``, so BM25 never reads one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..domain.casing import MID_MARK, NAME_MARK, is_name, name_marks
from ..domain.text import exact_counts, inflects, lexical_tokens, stem, stem_tokens
from .access import mirror_lua

#: The current way words are counted, as :data:`NAMES_FIELD` records it: "1" with the name
#: marks (:func:`~houkai.domain.casing.name_marks`, ADR 0102), "2" with an acronym's
#: plural counted as the acronym ("PRs" as "PR": :func:`~houkai.domain.text.singular_acronyms`,
#: ADR 0109), "3" with every memory indexed as :func:`~houkai.domain.text.tokenize` splits
#: it (line breaks, Unicode spaces and punctuation, apostrophes: ADR 0115), "4" with each
#: word's parts (identifiers' words, numbers and units, accents: ADR 0116), "5" with one
#: form for a number written several ways (phones, UUIDs, times, dates: ADR 0117), "6" with
#: numeric dates in either order and times said in words (ADR 0118), "7" with an acronym
#: spelled like a stop word ("IT", ADR 0119), "8" with that form also beside the pronoun
#: "I" or the article "A" ("Emailed IT; I need a laptop", ADR 0120).
LEXICON = "8"
#: The current way update links are inferred, as :data:`LINKS_INFERRED_FIELD` records it
#: (:mod:`houkai.store.updates`, ADR 0105, 0110): "2" with a quantity's change ("went up
#: to", "raised to": ADR 0118) among the words that say a note is an update.
LINKS_INFERRED = "2"

K1 = 1.2
B = 0.75


def decrement_lua(terms: str, stats: str, prefix: str = "t:") -> str:
    """Lua: one document fewer for each term in the Lua string *terms* (space-separated)."""
    return f"""
for term in string.gmatch({terms}, '%S+') do
  if redis.call('HINCRBY', {stats}, '{prefix}' .. term, -1) <= 0 then
    redis.call('HDEL', {stats}, '{prefix}' .. term)
  end
end
"""


def increment_lua(terms: str, stats: str, prefix: str) -> str:
    """Lua: one document more for each term in the Lua string *terms* (space-separated)."""
    return f"""
for term in string.gmatch({terms}, '%S+') do
  redis.call('HINCRBY', {stats}, '{prefix}' .. term, 1)
end
"""


def uncount_lua(memory: str, stats: str) -> str:
    """Lua: take back what the hash at *memory* contributed to *stats*, before deleting it.

    Shared by every script that deletes a memory (here, purge, the pipeline's
    rejection), so the statistics stay exact whichever path removes it: the plain
    terms (``lexterms``, ``t:``) and the stems (``lexstems``, ``s:``), whichever it holds.
    """
    return (
        f"local counted = redis.call('HGET', {memory}, 'lexterms')\n"
        f"local counted_stems = redis.call('HGET', {memory}, 'lexstems')\n"
        "if counted then" + decrement_lua("counted", stats) + "end\n"
        "if counted_stems then"
        + decrement_lua("counted_stems", stats, "s:")
        + f"  redis.call('HINCRBY', {stats}, '__S', -1)\n"
        "end\n"
        "if counted or counted_stems then\n"
        f"  redis.call('HINCRBY', {stats}, '__N', -1)\n"
        f"  local counted_len = tonumber(redis.call('HGET', {memory}, 'lexlen') or '0') or 0\n"
        f"  redis.call('HINCRBY', {stats}, '__len', -counted_len)\n"
        "end\n"
    )


# KEYS: memory, stats, access document. ARGV: terms, stems, length, names to clear
# (space-separated: fields a sparse write leaves out), then field/value pairs, then the
# access reset flag ('1': the written access fields replace the access document's).
# Clearing happens in the same HSET, so RediSearch re-indexes the document once; the
# access document then mirrors the memory (houkai/store/access.py).
#
# Every write counts the memory's stems (``s:``, ``lexstems``; ``__S`` documents);
# it also counts its plain terms (``t:``, ``lexterms``) while the collection holds
# a document without stems (written before ADR 0056 and not yet upgraded), since
# recall scores that collection over plain terms until every document has stems.
WRITE_LUA = (
    """
local old = redis.call('HGET', KEYS[1], 'lexterms')
local olds = redis.call('HGET', KEYS[1], 'lexstems')
local oldlen = tonumber(redis.call('HGET', KEYS[1], 'lexlen') or '0') or 0
local n = tonumber(redis.call('HGET', KEYS[2], '__N') or '0') or 0
if n == 0 then
  redis.call('HSETNX', KEYS[2], '__fol', '0')  -- FOLLOWS_FIELD: no memory follows yet
  redis.call('HSET', KEYS[2], '__nam', '"""
    + LEXICON
    + """')  -- NAMES_FIELD: every write counts words the current way
  redis.call('HSETNX', KEYS[2], '__updr', '"""
    + LINKS_INFERRED
    + """')  -- LINKS_INFERRED_FIELD: every write links itself
end
local s = tonumber(redis.call('HGET', KEYS[2], '__S') or '0') or 0
local mine = 0
if (old or olds) and not olds then mine = 1 end
local plain = false
if n - s - mine > 0 then plain = ARGV[1] end
if old ~= plain then
  if old then"""
    + decrement_lua("old", "KEYS[2]")
    + """  end
  if plain then"""
    + increment_lua("plain", "KEYS[2]", "t:")
    + """  end
end
if olds ~= ARGV[2] then
  if olds then"""
    + decrement_lua("olds", "KEYS[2]", "s:")
    + """  else
    redis.call('HINCRBY', KEYS[2], '__S', 1)
  end"""
    + increment_lua("ARGV[2]", "KEYS[2]", "s:")
    + """end
if not (old or olds) then redis.call('HINCRBY', KEYS[2], '__N', 1) end
redis.call('HINCRBY', KEYS[2], '__len', tonumber(ARGV[3]) - oldlen)
local fields = {}
for i = 5, #ARGV - 1 do fields[#fields + 1] = ARGV[i] end
for i = 5, #ARGV - 2, 2 do
  if ARGV[i] == 'links' and string.find(ARGV[i + 1], '"follows"', 1, true) then
    redis.call('HSET', KEYS[2], '__fol', '1')
  end
end
if ARGV[4] ~= '' and (old or olds or redis.call('EXISTS', KEYS[1]) == 1) then
  for name in string.gmatch(ARGV[4], '%S+') do
    if redis.call('HEXISTS', KEYS[1], name) == 1 then
      fields[#fields + 1] = name
      fields[#fields + 1] = ''
    end
  end
end
if old and not plain then redis.call('HDEL', KEYS[1], 'lexterms') end
if plain then fields[#fields + 1] = 'lexterms'; fields[#fields + 1] = plain end
redis.call('HSET', KEYS[1], 'lexstems', ARGV[2], 'lexlen', ARGV[3], unpack(fields))
"""
    + mirror_lua("KEYS[1]", "KEYS[3]", "ARGV[#ARGV]")
    + "return 1\n"
)

# The same write, but only for a memory that still exists: partial updates
# (edit) must never recreate a memory forgotten in the meantime as a stub.
UPDATE_LUA = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n" + WRITE_LUA


def write_args(
    text: str, mapping: Mapping[str, Any], cleared: Iterable[str] = (), *, reset: bool = True
) -> list[Any]:
    """ARGV for :data:`WRITE_LUA` / :data:`UPDATE_LUA`: *text*'s terms, stems and length,
    the fields to clear, *mapping*'s field/value pairs, then whether the written access
    fields replace the access document's (a whole rewrite; not a partial update)."""
    terms, length = doc_terms(text)
    stems, _ = doc_terms(text, stemmed=True)
    pairs = (x for pair in mapping.items() for x in pair)
    return [terms, stems, length, " ".join(cleared), *pairs, "1" if reset else "0"]


def doc_terms(text: str, stemmed: bool = False) -> tuple[str, int]:
    """The distinct terms (or stems) a text contributes (space-joined, sorted) and its length.

    The stems come with the text's name marks (:func:`~houkai.domain.casing.name_marks`):
    counted like stems, they tell recall which words the collection writes as names
    (``s:^kestrel``), so a question typed in lower case still names Kestrel."""
    tokens = stem_tokens(text) if stemmed else lexical_tokens(text)
    distinct = sorted(set(tokens))
    if stemmed:
        distinct += name_marks(text)
    return " ".join(distinct), len(tokens)


# Postings (summed document frequencies) the keyword-candidate query may walk. RediSearch
# scores every document of the union to pick its top hits, about 1.2 µs each on this
# machine: a 16k-document union cost 20 ms at 100k memories and grows with N (ADR 0053).
CANDIDATE_POSTINGS = 10_000
# Postings a question's synonyms may add to the keyword-candidate query (the ``synonyms``
# recall stage, ADR 0096), within what its own words leave: a quarter, as RM3's.
SYNONYM_POSTINGS = CANDIDATE_POSTINGS // 4
#: The statistics hash's field that counts the collection's memories.
DOC_COUNT_FIELD = "__N"
#: ... that counts those with their stems counted (ADR 0056; the Lua writes it as '__S').
STEMS_COUNT_FIELD = "__S"
#: ... that sums their lengths in words (BM25's average; the Lua writes it as '__len').
LENGTH_FIELD = "__len"
#: "1" once a memory of the collection was superseded (never cleared: at worst the
#: ``lineage`` stage searches for none), "0" when a search found none, absent: unknown.
SUPERSEDED_FIELD = "__sup"
#: "1" once a memory of the collection follows another (a ``follows`` link: a sequence, a
#: session's turns, a document's chunks, ``link``; never cleared), "0" from a write into
#: a collection that holds no memory while none does (:data:`WRITE_LUA` writes both),
#: absent: unknown, a collection written before the field and never emptied nor migrated
#: since (:func:`~houkai.store.lexmigrate.learn_follows`). The
#: ``context`` stage reads no neighbours where none can follow.
FOLLOWS_FIELD = "__fol"
#: "1" once a memory of the collection said it updates another (a link
#: :mod:`houkai.store.updates` inferred when it was written; never cleared), absent while
#: none has: the ``current`` stage then reads no such link.
UPDATES_FIELD = "__upd"
#: How the collection's stored memories' update links were inferred, by
#: :data:`LINKS_INFERRED`'s numbers: set by the first write into an empty collection (every
#: write links itself) and by :func:`~houkai.store.updates.relink`; absent in a collection
#: an earlier release wrote, a lower number in one linked before the inference changed.
LINKS_INFERRED_FIELD = "__updr"
#: How every memory of the collection has its words counted, by :data:`LEXICON`'s numbers:
#: set by the first write into an empty collection and by
#: :func:`~houkai.store.lexmigrate.recount_words`; absent in a collection an earlier release
#: wrote, a lower number in one written before the count changed.
NAMES_FIELD = "__nam"


@dataclass(frozen=True)
class TermStats:
    """The corpus statistics of one query's terms, read in one ``HMGET``.

    ``df`` is keyed by the query term as given: the document frequency of its stem
    once every memory has stems counted, else of the exact token. ``stemmed``: texts
    are matched over stems.
    """

    n_docs: int
    total_len: int
    df: dict[str, int]
    stemmed: bool = False
    #: does the collection hold superseded memories (None: not known yet,
    #: :data:`SUPERSEDED_FIELD`)
    superseded: bool | None = None
    #: does a memory of the collection follow another (None: not known,
    #: :data:`FOLLOWS_FIELD`)
    follows: bool | None = None
    #: has a memory of the collection said it updates another (:data:`UPDATES_FIELD`)
    updates: bool = False
    #: ``df`` holds stems' frequencies (every memory has its stems counted), even when
    #: texts are matched over exact tokens: two words of one stem share one frequency
    counted: bool = False
    #: of the words asked whether they are names (``maybe_names``), those the collection
    #: writes as names (:func:`~houkai.domain.casing.is_name`)
    named: frozenset[str] = frozenset()


def term_stats(
    client: redis.Redis,
    stats_key: str,
    terms: Iterable[str],
    stems: bool = True,
    maybe_names: Sequence[str] = (),
) -> TermStats:
    """Plain and stemmed frequencies in one round trip; the collection's form picks one
    (``stems=False``: the exact tokens, e.g. for a question that names nothing).
    *maybe_names*: words (tokens) to learn, in the same round trip, whether the collection
    writes them as names (``named``); they are read as terms too (``df``): the memories
    holding a word are its stem's frequency."""
    names = list(dict.fromkeys([*terms, *maybe_names]))
    meta = (
        *(DOC_COUNT_FIELD, LENGTH_FIELD, STEMS_COUNT_FIELD),
        *(SUPERSEDED_FIELD, FOLLOWS_FIELD, UPDATES_FIELD),
    )
    fields = [*meta, *[f"t:{t}" for t in names], *[f"s:{stem(t)}" for t in names]]
    base = len(fields)
    for word in maybe_names:
        fields += [f"s:{NAME_MARK}{word}", f"s:{MID_MARK}{word}"]
    raw = client.hmget(stats_key, fields)
    marks = [max(0, int(v or 0)) for v in raw[base:]]
    raw = raw[:base]
    n_docs, stemmed_docs = int(raw[0] or 0), int(raw[2] or 0)
    counted = n_docs == stemmed_docs  # every memory has its stems counted
    head = len(meta)
    values = raw[head + len(names) :] if counted else raw[head : head + len(names)]
    df = {term: max(0, int(v or 0)) for term, v in zip(names, values, strict=True)}
    named = set()
    for i, word in enumerate(maybe_names):
        written_as_name, inside = marks[2 * i : 2 * i + 2]
        if counted and is_name(written_as_name, inside, holding=df[word]):
            named.add(word)
    superseded, follows = (read_flag(raw[3]), read_flag(raw[4]))
    # Exact tokens on a stemmed collection keep the stem's frequency (an upper bound of
    # the token's): only plain collections still count plain terms.
    return TermStats(
        n_docs,
        int(raw[1] or 0),
        df,
        stems and counted,
        superseded=superseded,
        counted=counted,
        follows=follows,
        updates=bool(read_flag(raw[5])),
        named=frozenset(named),
    )


def read_flag(raw: bytes | str | None) -> bool | None:
    """A statistics flag: None when absent (not known), else whether it is set."""
    return None if raw in (None, b"", "") else raw not in (b"0", "0")


def mark_superseded(client: Any, stats_key: str) -> None:
    """Record that the collection holds a superseded memory (recall's ``lineage`` stage
    then searches them; queued on *client* when it is a pipeline)."""
    client.hset(stats_key, SUPERSEDED_FIELD, "1")


def note_none_superseded(client: redis.Redis, stats_key: str) -> None:
    """Record that a search found no superseded memory, unless a supersede has been
    recorded meanwhile (``HSETNX``: a concurrent :func:`mark_superseded` wins)."""
    client.hsetnx(stats_key, SUPERSEDED_FIELD, "0")


def candidate_terms(
    terms: list[str],
    stats: TermStats,
    budget: int | None = None,
    synonyms: Sequence[str] = (),
) -> list[str]:
    """The query terms that find keyword candidates: all of them while their postings
    fit *budget*; past it the rarest ones that fit (always at least the rarest one).
    Then the terms' *synonyms*, rarest first, while the postings left fit, and at most
    :data:`SYNONYM_POSTINGS` of them: a synonym never takes the place of a word the
    question asks, and costs a recall at most a quarter of the keyword query's walk.

    Only which documents join the pool changes: every pooled document is still
    scored over all *terms*. The common terms left out carry the least IDF, and a
    document matching nothing rarer scores near zero; below the budget (every
    collection under about 10k memories) the query is exactly the full one.
    """
    budget = CANDIDATE_POSTINGS if budget is None else budget
    kept = _within(terms, stats, budget, at_least_one=True)
    used = sum(stats.df.get(t, 0) for t in kept)
    extra = [w for w in synonyms if w not in kept]
    room = min(budget - used, SYNONYM_POSTINGS * budget // CANDIDATE_POSTINGS)
    return [*kept, *_within(extra, stats, room, at_least_one=False)]


def _within(words: list[str], stats: TermStats, budget: int, *, at_least_one: bool) -> list[str]:
    """*words* whose postings fit *budget*, all of them if they do, else the rarest first
    (the rarest one always, *at_least_one*), in their order."""
    if sum(stats.df.get(t, 0) for t in words) <= budget:
        return words
    order = sorted(range(len(words)), key=lambda i: (stats.df.get(words[i], 0), i))
    keep: set[int] = set()
    used = 0
    for i in order:
        df = stats.df.get(words[i], 0)
        if used + df > budget and (keep or not at_least_one):
            break
        keep.add(i)
        used += df
    return [words[i] for i in sorted(keep)]


def bm25_scores(
    query_terms: Iterable[str],
    texts: dict[str, str],
    client: redis.Redis,
    stats_key: str,
    stats: TermStats | None = None,
    stems: bool = True,
    related: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, float]:
    """BM25 (k1=1.2, b=0.75) of each text for the query terms, with corpus-wide df and N
    (*stats* when the caller already read them, else one ``HMGET``).

    Over stems when the collection's statistics are stemmed ("book" scores "books"),
    over exact tokens for a collection not yet upgraded
    (:func:`~houkai.store.lexmigrate.upgrade`). *related*
    folds a term's synonyms into it (:class:`Fold`).
    """
    terms = list(dict.fromkeys(query_terms))
    if not terms or not texts:
        return {key: 0.0 for key in texts}
    related = related or {}
    wanted = [*terms, *(w for t in terms for w in related.get(t, ()))]
    if stats is None or any(t not in stats.df for t in wanted):
        stats = term_stats(client, stats_key, list(dict.fromkeys(wanted)), stems)
    avgdl = max(1.0, stats.total_len / max(1, stats.n_docs))
    idf, folds = _term_weights(terms, stats, related)
    if folds:
        pool_words = set().union(*(exact_counts(text) for text in texts.values()))
        for fold in folds.values():
            fold.learn(pool_words)
    scores: dict[str, float] = {}
    for key, text in texts.items():
        if stats.stemmed:
            tokens = stem_tokens(text)
            counts, dl = Counter(tokens), len(tokens)
            exact = exact_counts(text) if folds else counts
        else:
            counts = exact = exact_counts(text)
            dl = sum(counts.values())
        score = 0.0
        for own, weight in idf.items():
            tf = folds[own].count(exact, counts) if own in folds else counts.get(own, 0)
            if tf:
                score += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
        scores[key] = score
    return scores


def full_match_bm25(
    query_terms: Iterable[str],
    stats: TermStats,
    related: Mapping[str, Sequence[str]] | None = None,
) -> float:
    """The BM25 of a *full match*: a text of the collection's average length that holds
    each query term once, the sum of the terms' IDFs (the ``overlap`` stage, ADR 0107).
    A word no memory holds counts too, with the largest IDF there is: nothing can match
    it, so a question worded in words the collection does not use has no match near a
    full one. A text scores above a full match by repeating a term or by being short; one
    that holds few of the terms, or only common ones, scores far below it. 0 when *stats*
    lack a term (the caller read them for other terms: no floor, rather than a second
    read)."""
    terms = list(dict.fromkeys(query_terms))
    related = related or {}
    if any(w not in stats.df for t in terms for w in (t, *related.get(t, ()))):
        return 0.0
    return sum(_term_weights(terms, stats, related)[0].values())


def _term_weights(
    terms: list[str], stats: TermStats, related: Mapping[str, Sequence[str]]
) -> tuple[dict[str, float], dict[str, Fold]]:
    """Each BM25 term's IDF and the :class:`Fold` of those with synonyms. One term per
    form: "book" and "books" in one question count once, and so do their synonyms,
    whichever of the two came first ("host", "hosting")."""
    n_docs = max(1, stats.n_docs)
    firsts: dict[str, str] = {}
    synonyms: dict[str, list[str]] = {}
    for term in terms:
        own = stem(term) if stats.stemmed else term
        firsts.setdefault(own, term)
        synonyms.setdefault(own, []).extend(related.get(term, ()))
    idf: dict[str, float] = {}
    folds: dict[str, Fold] = {}
    for own, term in firsts.items():
        df = stats.df[term]
        if synonyms[own]:
            folds[own] = Fold(own, tuple(dict.fromkeys(synonyms[own])), stats.stemmed)
            df = folds[own].df(term, stats)
        idf[own] = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf, folds


@dataclass
class Fold:
    """A question term with its synonyms, counted as one BM25 term (the ``synonyms``
    recall stage, ADR 0096).

    A text's occurrences of the term are its tokens of the term's own form (*own*: its
    stem over stems) and those that are a synonym or an inflection of one ("linters" of
    "linter"), each token once. Synonyms match by word, not by stem: Snowball's stem of
    "production" is "product", and a note on a product is no deployment. The term's
    document frequency is the sum of the term's and its synonyms' (a stem's once, when
    the frequencies are stems'), capped at N: a common group weighs what a common word
    weighs, and a synonym never more than the word asked."""

    own: str
    synonyms: tuple[str, ...]
    stemmed: bool = False  # *own* is a stem: texts are matched over stems
    #: the words of the texts scored that count as a synonym (:meth:`learn`)
    words: frozenset[str] = frozenset()

    def df(self, term: str, stats: TermStats) -> int:
        def key(word: str) -> str:
            return stem(word) if stats.counted else word

        counted = {key(term): stats.df[term]}
        for word in self.synonyms:
            counted.setdefault(key(word), stats.df[word])
        return min(sum(counted.values()), max(1, stats.n_docs))

    def learn(self, vocabulary: Iterable[str]) -> None:
        """Read which of *vocabulary* (the distinct words of the texts to score) count as a
        synonym, once per scoring rather than once per text. A word of the term's own
        form is counted as the term already; over exact tokens, an inflection of the
        term counts too ("approved" for "approve"), as an inflection of a synonym does:
        a synonym never counts where the word asked would not."""
        stems = {stem(s) for s in self.synonyms}
        own_stem = stem(self.own)
        found = set()
        for word in vocabulary:
            form = stem(word)
            if (self.stemmed and form == self.own) or word == self.own:
                continue
            if (
                word in self.synonyms
                or (form in stems and any(inflects(word, s) for s in self.synonyms))
                or (not self.stemmed and form == own_stem and inflects(word, self.own))
            ):
                found.add(word)
        self.words = frozenset(found)

    def count(self, exact: Mapping[str, int], forms: Mapping[str, int]) -> int:
        """The term's occurrences in a text, from the counts of its *exact* tokens and of
        the *forms* BM25 matches them by (their stems over stems)."""
        return forms.get(self.own, 0) + sum(exact.get(w, 0) for w in self.words)
