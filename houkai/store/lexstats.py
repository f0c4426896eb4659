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
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import redis

from ..domain.text import tokenize

K1 = 1.2
B = 0.75


def _decrement(terms: str, stats: str) -> str:
    """Lua: one document fewer for each term in the Lua string *terms* (space-separated)."""
    return f"""
for term in string.gmatch({terms}, '%S+') do
  if redis.call('HINCRBY', {stats}, 't:' .. term, -1) <= 0 then
    redis.call('HDEL', {stats}, 't:' .. term)
  end
end
"""


def uncount_lua(memory: str, stats: str) -> str:
    """Lua: take back what the hash at *memory* contributed to *stats*, before deleting it.

    Shared by every script that deletes a memory (here, purge, the pipeline's
    rejection), so the statistics stay exact whichever path removes it.
    """
    return (
        f"local counted = redis.call('HGET', {memory}, 'lexterms')\n"
        "if counted then"
        + _decrement("counted", stats)
        + f"  redis.call('HINCRBY', {stats}, '__N', -1)\n"
        f"  local counted_len = tonumber(redis.call('HGET', {memory}, 'lexlen') or '0') or 0\n"
        f"  redis.call('HINCRBY', {stats}, '__len', -counted_len)\n"
        "end\n"
    )


# KEYS: memory, stats. ARGV: terms, length, names to clear (space-separated:
# fields a sparse write leaves out), then field/value pairs. Clearing happens in
# the same HSET, so RediSearch re-indexes the document once.
WRITE_LUA = (
    """
local old = redis.call('HGET', KEYS[1], 'lexterms')
local oldlen = tonumber(redis.call('HGET', KEYS[1], 'lexlen') or '0') or 0
if old ~= ARGV[1] then
  if old then"""
    + _decrement("old", "KEYS[2]")
    + """  else
    redis.call('HINCRBY', KEYS[2], '__N', 1)
  end
  for term in string.gmatch(ARGV[1], '%S+') do
    redis.call('HINCRBY', KEYS[2], 't:' .. term, 1)
  end
end
redis.call('HINCRBY', KEYS[2], '__len', tonumber(ARGV[2]) - oldlen)
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
if ARGV[3] ~= '' and (old or redis.call('EXISTS', KEYS[1]) == 1) then
  for name in string.gmatch(ARGV[3], '%S+') do
    if redis.call('HEXISTS', KEYS[1], name) == 1 then
      fields[#fields + 1] = name
      fields[#fields + 1] = ''
    end
  end
end
redis.call('HSET', KEYS[1], 'lexterms', ARGV[1], 'lexlen', ARGV[2], unpack(fields))
return 1
"""
)

# The same write, but only for a memory that still exists: partial updates
# (edit) must never recreate a memory forgotten in the meantime as a stub.
UPDATE_LUA = "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n" + WRITE_LUA

DELETE_LUA = uncount_lua("KEYS[1]", "KEYS[2]") + "return redis.call('DEL', KEYS[1])\n"


def write_args(text: str, mapping: Mapping[str, Any], cleared: Iterable[str] = ()) -> list[Any]:
    """ARGV for :data:`WRITE_LUA` / :data:`UPDATE_LUA`: *text*'s terms and length, the
    fields to clear, then *mapping*'s field/value pairs."""
    terms, length = doc_terms(text)
    return [terms, length, " ".join(cleared), *(x for pair in mapping.items() for x in pair)]


def doc_terms(text: str) -> tuple[str, int]:
    """The distinct terms a text contributes (space-joined, sorted) and its length."""
    tokens = tokenize(text)
    return " ".join(sorted(set(tokens))), len(tokens)


# Postings (summed document frequencies) the keyword-candidate query may walk. RediSearch
# scores every document of the union to pick its top hits, about 1.2 µs each on this
# machine: a 16k-document union cost 20 ms at 100k memories and grows with N (ADR 0053).
CANDIDATE_POSTINGS = 10_000


@dataclass(frozen=True)
class TermStats:
    """The corpus statistics of one query's terms, read in one ``HMGET``."""

    n_docs: int
    total_len: int
    df: dict[str, int]


def term_stats(client: redis.Redis, stats_key: str, terms: Iterable[str]) -> TermStats:
    names = list(dict.fromkeys(terms))
    raw = client.hmget(stats_key, ["__N", "__len", *[f"t:{t}" for t in names]])
    df = {term: max(0, int(v or 0)) for term, v in zip(names, raw[2:], strict=True)}
    return TermStats(int(raw[0] or 0), int(raw[1] or 0), df)


def candidate_terms(terms: list[str], stats: TermStats, budget: int | None = None) -> list[str]:
    """The query terms that find keyword candidates: all of them while their postings
    fit *budget*; past it the rarest ones that fit (always at least the rarest one).

    Only which documents join the pool changes: every pooled document is still
    scored over all *terms*. The common terms left out carry the least IDF, and a
    document matching nothing rarer scores near zero; below the budget (every
    collection under about 10k memories) the query is exactly the full one.
    """
    budget = CANDIDATE_POSTINGS if budget is None else budget
    if sum(stats.df.get(t, 0) for t in terms) <= budget:
        return terms
    order = sorted(range(len(terms)), key=lambda i: (stats.df.get(terms[i], 0), i))
    keep: set[int] = set()
    used = 0
    for i in order:
        df = stats.df.get(terms[i], 0)
        if keep and used + df > budget:
            break
        keep.add(i)
        used += df
    return [terms[i] for i in sorted(keep)]


def bm25_scores(
    query_terms: Iterable[str],
    texts: dict[str, str],
    client: redis.Redis,
    stats_key: str,
    stats: TermStats | None = None,
) -> dict[str, float]:
    """BM25 (k1=1.2, b=0.75) of each text for the query terms, with corpus-wide df and N
    (*stats* when the caller already read them, else one ``HMGET``)."""
    terms = list(dict.fromkeys(query_terms))
    if not terms or not texts:
        return {key: 0.0 for key in texts}
    if stats is None or any(t not in stats.df for t in terms):
        stats = term_stats(client, stats_key, terms)
    n_docs = max(1, stats.n_docs)
    avgdl = max(1.0, stats.total_len / n_docs)
    idf = {}
    for term in terms:
        df = stats.df[term]
        idf[term] = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    scores: dict[str, float] = {}
    for key, text in texts.items():
        tokens = tokenize(text)
        counts = Counter(tokens)
        dl = len(tokens)
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0)
            if tf:
                score += idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
        scores[key] = score
    return scores
