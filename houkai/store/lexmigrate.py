"""One-off passes that bring a collection's lexical statistics up to date.

A collection an earlier release wrote lacks what later releases count beside every write
(:mod:`houkai.store.lexstats`): stems (ADR 0056), the flag that says whether a memory
follows another (ADR 0099), the name marks (ADR 0102) and acronyms' plurals counted as
the acronym (ADR 0109). ``collections migrate`` runs these passes; each is resumable and
safe beside live writes (a memory's counts change in one atomic script; the follows flag
is learnt from a scan of the reverse-link sets). The follows and recount passes leave a
flag and never scan again; the stems pass reads every memory each time and changes only
those without stems.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import redis

from ..db.decode import as_text
from ..db.keys import prefix_pattern
from ..domain.text import lexical_form
from .lexstats import (
    DOC_COUNT_FIELD,
    FOLLOWS_FIELD,
    LEXICON,
    NAMES_FIELD,
    STEMS_COUNT_FIELD,
    decrement_lua,
    doc_terms,
    increment_lua,
    read_flag,
)
from .search import batched

log = logging.getLogger(__name__)

# KEYS: memory, stats. ARGV: stems, length. The upgrade of one memory written before
# ADR 0056: count its stems (its plain terms stay counted until the collection is
# scored over stems). Idempotent: a memory that has stems, or is gone, is skipped.
# Returns 1 when the memory was upgraded.
UPGRADE_LUA = (
    """
if redis.call('HEXISTS', KEYS[1], 'lexstems') == 1 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'lexterms') == 0 then return 0 end
"""
    + increment_lua("ARGV[1]", "KEYS[2]", "s:")
    + """redis.call('HINCRBY', KEYS[2], '__S', 1)
redis.call('HSET', KEYS[1], 'lexstems', ARGV[1])
return 1
"""
)

# KEYS: memory, stats. ARGV: the memory's text as read, its stems as counted now, its
# lexical form as indexed now. The recount of a memory whose words an earlier release
# counted or indexed otherwise (without name marks, "PRs" as "prs" and no "PR"): only
# while its text is still the one read (a write meanwhile counted its own); the counts
# change when the stems differ, the indexed form when it differs (one HSET: RediSearch
# re-indexes the memory once). Returns 1 when something was rewritten.
RECOUNT_LUA = (
    """
local olds = redis.call('HGET', KEYS[1], 'lexstems')
if not olds then return 0 end
if redis.call('HGET', KEYS[1], 'text') ~= ARGV[1] then return 0 end
local fields = {}
if olds ~= ARGV[2] then
"""
    + decrement_lua("olds", "KEYS[2]", "s:")
    + increment_lua("ARGV[2]", "KEYS[2]", "s:")
    + """  fields = {'lexstems', ARGV[2]}
end
if redis.call('HGET', KEYS[1], 'lex') ~= ARGV[3] then
  fields[#fields + 1] = 'lex'
  fields[#fields + 1] = ARGV[3]
end
if #fields == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(fields))
return 1
"""
)

# KEYS: memory, stats. Once every memory has stems, its plain terms count for
# nothing: take them back (idempotent; the second phase of the upgrade).
DROP_PLAIN_LUA = (
    """
local old = redis.call('HGET', KEYS[1], 'lexterms')
if not old or redis.call('HEXISTS', KEYS[1], 'lexstems') == 0 then return 0 end
"""
    + decrement_lua("old", "KEYS[2]")
    + """redis.call('HDEL', KEYS[1], 'lexterms')
return 1
"""
)


def upgrade(client: redis.Redis, memory_prefix: str, stats_key: str, batch: int = 500) -> int:
    """Give every memory written before ADR 0056 its stems; returns how many were upgraded.

    Resumable and safe beside live writes: each memory is upgraded by one atomic,
    idempotent script, so an interrupted run simply runs again. Until the last
    memory has stems, recall keeps scoring over the exact plain statistics; once
    every memory has them (``__S == __N``) it scores over stems, and a second pass
    takes the plain terms back.
    """
    up = client.register_script(UPGRADE_LUA)
    drop = client.register_script(DROP_PLAIN_LUA)
    upgraded = 0
    for phase in (up, drop):
        if phase is drop and not stemmed_stats(client, stats_key):
            break  # a memory is still missing (written meanwhile by an old client)
        for keys in _key_batches(client, memory_prefix, batch):
            upgraded += _upgrade_batch(client, phase, keys, stats_key)
    log.info("lexical statistics: %d memories given stems", upgraded)
    return upgraded


def _key_batches(client: redis.Redis, prefix: str, batch: int) -> Iterator[list[bytes]]:
    """The keys under *prefix*, *batch* at a time (a ``SCAN``: live writes go on)."""
    return batched(client.scan_iter(match=prefix_pattern(prefix), count=batch), batch)


def _upgrade_batch(client: redis.Redis, script: Any, keys: list[bytes], stats_key: str) -> int:
    """One pipelined round of *script* over *keys*; the upgrade reads the texts first."""
    pipe = client.pipeline(transaction=False)
    if script.script == DROP_PLAIN_LUA:
        for key in keys:
            script(keys=[key, stats_key], client=pipe)
        pipe.execute()
        return 0
    for key in keys:
        pipe.hget(key, "text")
    texts = pipe.execute()
    pipe = client.pipeline(transaction=False)
    for key, text in zip(keys, texts, strict=True):
        if text is not None:
            stems, _ = doc_terms(as_text(text), stemmed=True)
            script(keys=[key, stats_key], args=[stems], client=pipe)
    return sum(int(x or 0) for x in pipe.execute())


def recount_words(client: redis.Redis, memory_prefix: str, stats_key: str, batch: int = 500) -> int:
    """Count the words of memories an earlier release counted otherwise (:data:`NAMES_FIELD`
    absent or below :data:`LEXICON`: without name marks, or "PRs" as "prs"); returns how
    many memories were recounted. The one-off pass ``collections migrate`` runs: resumable
    and safe beside live writes (each memory is recounted by one atomic script, only while
    its text is the one read), then the flag is set and the pass is never run again. Until
    then a question typed in lower case reads the names of the memories counted so far,
    and a question about a PR finds by keyword only the notes about PRs recounted so far.
    Each memory recounted is written once more, and RediSearch re-indexes it (390-1,000
    memories/s at 1M, ADR 0060): budget the pass like the vector migration. During a
    rolling upgrade, upgrade the writers first: a memory an older release writes after the
    flag is counted its way."""
    if _counted_now(client.hget(stats_key, NAMES_FIELD)):
        return 0
    script = client.register_script(RECOUNT_LUA)
    recounted = sum(
        _recount_batch(client, script, keys, stats_key)
        for keys in _key_batches(client, memory_prefix, batch)
    )
    client.hset(stats_key, NAMES_FIELD, LEXICON)
    log.info("lexical statistics: %d memories' words recounted", recounted)
    return recounted


def words_current(client: redis.Redis, stats_key: str) -> bool:
    """Are the collection's words counted and indexed the current way (:data:`LEXICON`)?
    True for an empty collection: its first write sets the flag."""
    n, flag = client.hmget(stats_key, [DOC_COUNT_FIELD, NAMES_FIELD])
    return not int(n or 0) or _counted_now(flag)


def _counted_now(raw: bytes | str | None) -> bool:
    """Does the flag *raw* say every memory's words are counted the current way?"""
    try:
        return int(as_text(raw) if raw is not None else "0") >= int(LEXICON)
    except ValueError:
        return False


def _recount_batch(client: redis.Redis, script: Any, keys: list[bytes], stats_key: str) -> int:
    """One round of :data:`RECOUNT_LUA` over *keys*: the texts, counted stems and indexed
    forms are read in one pipelined trip, and only a memory whose count or form differs
    is sent the script."""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.hmget(key, ["text", "lexstems", "lex"])
    rows = pipe.execute()
    pipe = client.pipeline(transaction=False)
    sent = 0
    for key, (text, stems, indexed) in zip(keys, rows, strict=True):
        if text is None or stems is None:
            continue  # gone, or not an upgraded memory (``upgrade`` counts its stems)
        body = as_text(text)
        counted, _ = doc_terms(body, stemmed=True)
        lex = lexical_form(body)
        if counted != as_text(stems) or indexed is None or lex != as_text(indexed):
            script(keys=[key, stats_key], args=[text, counted, lex], client=pipe)
            sent += 1
    return sum(int(x or 0) for x in pipe.execute()) if sent else 0


def stemmed_stats(client: redis.Redis, stats_key: str) -> bool:
    """True when every memory of the collection has its stems counted (``__S == __N``)."""
    n, s = client.hmget(stats_key, [DOC_COUNT_FIELD, STEMS_COUNT_FIELD])
    return int(n or 0) == int(s or 0)


def learn_follows(
    client: redis.Redis, incoming_prefix: str, stats_key: str, batch: int = 500
) -> bool:
    """Set :data:`FOLLOWS_FIELD` of a collection written before it: "1" when a memory
    follows another (a reverse-link set under *incoming_prefix* holds a ``follows``
    link), else "0". Returns the flag; nothing is scanned when it is already set.

    The one-off pass for collections an earlier release wrote (``collections migrate``
    runs it): only the reverse-link sets are read, not the memories, and the scan stops
    at the first ``follows``. A write of a sequence during the scan sets "1" itself, and
    "0" is written with ``HSETNX``, so it never overwrites that."""
    known = read_flag(client.hget(stats_key, FOLLOWS_FIELD))
    if known is not None:
        return known
    found = any(_any_follows(client, keys) for keys in _key_batches(client, incoming_prefix, batch))
    if found:  # ``any`` stops the scan at the first batch holding one
        client.hset(stats_key, FOLLOWS_FIELD, "1")
        return True
    client.hsetnx(stats_key, FOLLOWS_FIELD, "0")
    return bool(read_flag(client.hget(stats_key, FOLLOWS_FIELD)))


def _any_follows(client: redis.Redis, keys: list[bytes]) -> bool:
    """Does one of the reverse-link sets *keys* hold a ``follows`` link (``src|follows``)?"""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.smembers(key)
    return any(as_text(m).endswith("|follows") for members in pipe.execute() for m in members)
