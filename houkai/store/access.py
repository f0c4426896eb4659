"""Access documents: where a memory's access counts live, off its vector-bearing hash.

Any write to a hash under an index's prefix makes RediSearch 2.10 re-index the whole
document, its vector included (a delete and re-insert in the HNSW graph). Folding recall
counts into the memory hash therefore re-inserted vectors: on 100k identical memories one
fold's ``HINCRBY`` took seconds and froze the server (ADR 0075). So a memory's
``access_count`` and ``last_accessed`` live in a small **access document**
(``{prefix}:a:<collection>:<id>``) beside it, under a vector-free index whose writes cost
what an unindexed hash costs. The access document also mirrors the fields the
aggregates filter on (:data:`MIRRORED`), with the memory hash's names, so the decay,
health and browse-by-decay queries run unchanged against the access index.

Rules, in one place:

- every script that writes a memory hash ends with :func:`mirror_lua` (the write path,
  supersede's field update, the embedding job's state changes); every delete fragment
  deletes the access document with the hash;
- the access fields of the access document are the truth once it exists; a full rewrite
  of a memory (``reset``) takes the written values, a partial one keeps them;
- recall's hits still count in the pending hash (``keys.access``), one cheap write per
  hit; :data:`FOLD_LUA` moves them into the access document (creating it from the
  memory when missing, so a fold also heals), never into the memory hash.

Collections from before access documents are backfilled in batches
(:func:`backfill`); until the collection's metadata says :data:`READY_FIELD`, the
aggregates read the memory index as before.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from ..db.decode import as_text
from ..db.keys import Keys
from ..db.schema import SCOPE_TAG_FIELDS

log = logging.getLogger(__name__)

#: Memory-hash fields the access document mirrors: what the access-reading aggregates'
#: filters and scores read besides the access counts (type, tags, source, supersede,
#: importance, creation and expiry time; :func:`houkai.db.filters.filter_expr` without
#: ``state``).
MIRRORED: tuple[str, ...] = (
    "type",
    "tagk",
    "srck",
    "sup",
    "importance",
    "created_at",
    "expires_at",
    *SCOPE_TAG_FIELDS,  # the scope a memory belongs to: user, agent, session
)
ACCESS_FIELDS: tuple[str, ...] = ("last_accessed", "access_count")
#: Collection metadata field set once every memory has its access document.
READY_FIELD = "access_docs"
#: Collection metadata field set once the access index has the scope fields (an index made
#: before them gets them in place, ``FT.ALTER``, once).
SCOPE_FIELD = "access_scope"
BACKFILL_CURSOR = "access_docs_cursor"


def mirror_lua(memory: str, access: str, reset: str) -> str:
    """Lua: make the access document at *access* mirror the memory hash at *memory*
    (Lua expressions). *reset* (``'1'``) takes the memory's access fields too; otherwise an
    existing access document keeps its own. A gone memory takes its document with it."""
    names = ", ".join(f"'{n}'" for n in MIRRORED)
    return f"""do
  local m, a = {memory}, {access}
  if redis.call('EXISTS', m) == 0 then
    redis.call('DEL', a)
  else
    local names = {{{names}}}
    local vals = redis.call('HMGET', m, unpack(names))
    local set, gone = {{}}, {{}}
    for i, name in ipairs(names) do
      if vals[i] then
        set[#set + 1] = name
        set[#set + 1] = vals[i]
      else
        gone[#gone + 1] = name
      end
    end
    local own = redis.call('HMGET', a, 'last_accessed', 'access_count')
    if {reset} == '1' or not own[1] then
      own = redis.call('HMGET', m, 'last_accessed', 'access_count')
    end
    set[#set + 1] = 'last_accessed'
    set[#set + 1] = own[1] or '0'
    set[#set + 1] = 'access_count'
    set[#set + 1] = own[2] or '0'
    if #gone > 0 then redis.call('HDEL', a, unpack(gone)) end
    redis.call('HSET', a, unpack(set))
  end
end
"""


#: KEYS: memory, access document. ARGV: reset. For writers outside a script (the import's
#: link remap) and for the backfill.
MIRROR_LUA = mirror_lua("KEYS[1]", "KEYS[2]", "ARGV[1]") + "return 1\n"

#: KEYS: memory, access document. ARGV: field/value pairs to set on the memory (when it
#: exists); access fields among them are set on the access document too. Benchmarks and
#: tests backdating memories go through this.
SET_FIELDS_LUA = (
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
"""
    + mirror_lua("KEYS[1]", "KEYS[2]", "'0'")
    + """for i = 1, #ARGV - 1, 2 do
  if ARGV[i] == 'last_accessed' or ARGV[i] == 'access_count' then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
return 1
"""
)

#: Fold one memory's pending recall counts into its access document (created from the
#: memory when missing); the memory hash is never written. KEYS: memory, access
#: document, pending hash. ARGV: id, the pending last-access time. Returns the count.
FOLD_LUA = (
    """
local n = tonumber(redis.call('HGET', KEYS[3], 'n:' .. ARGV[1]) or '0') or 0
local t = tonumber(redis.call('HGET', KEYS[3], 't:' .. ARGV[1]) or '0') or 0
redis.call('HDEL', KEYS[3], 'n:' .. ARGV[1], 't:' .. ARGV[1])
if n == 0 or redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then
"""
    + mirror_lua("KEYS[1]", "KEYS[2]", "'0'")
    + """end
redis.call('HINCRBY', KEYS[2], 'access_count', n)
local last = tonumber(redis.call('HGET', KEYS[2], 'last_accessed') or '0') or 0
if t > last then redis.call('HSET', KEYS[2], 'last_accessed', ARGV[2]) end
return n
"""
)


def schema_args(keys: Keys) -> list[str | int]:
    """``FT.CREATE`` of the access index: the memory index's definitions of the mirrored
    fields and the access counts, and no vector, so a write re-indexes in microseconds.
    Only what an aggregate's ``APPLY`` reads unloaded is SORTABLE (importance, last access):
    each sortable field costs every document a slot (``houkai bench storage``)."""
    return [
        "FT.CREATE", keys.access_index, "ON", "HASH", "PREFIX", 1, keys.access_doc_prefix,
        "SCHEMA",
        "type", "TAG",
        "tagk", "TAG", "SEPARATOR", ",",
        "srck", "TAG",
        "sup", "TAG",
        "importance", "NUMERIC", "SORTABLE",
        "created_at", "NUMERIC",
        "expires_at", "NUMERIC",
        "last_accessed", "NUMERIC", "SORTABLE",
        "access_count", "NUMERIC",
        *(part for name in SCOPE_TAG_FIELDS for part in (name, "TAG")),
    ]  # fmt: skip


def ensure_access_index(client: redis.Redis, keys: Keys, *, empty: bool) -> bool:
    """Create the access index if missing; True when the collection's aggregates can use
    it. A collection that is *empty* (new) needs no backfill and is ready at once."""
    try:
        client.execute_command(*schema_args(keys))
        client.hset(keys.meta, SCOPE_FIELD, 1)
    except redis.exceptions.ResponseError as exc:
        if "already exists" not in str(exc).lower():
            raise
        if client.hget(keys.meta, SCOPE_FIELD) is None:
            _add_scope_fields(client, keys)
            client.hset(keys.meta, SCOPE_FIELD, 1)
    if empty and not is_ready(client, keys):
        client.hset(keys.meta, READY_FIELD, 1)
    return is_ready(client, keys)


def _add_scope_fields(client: redis.Redis, keys: Keys) -> None:
    """Give an access index made before the scope fields those TAGs in place."""
    args = [part for name in SCOPE_TAG_FIELDS for part in (name, "TAG")]
    try:
        client.execute_command("FT.ALTER", keys.access_index, "SCHEMA", "ADD", *args)
    except redis.exceptions.ResponseError as exc:
        if "duplicate" not in str(exc).lower():  # a racing process added them first
            raise


def drop_access_index(client: redis.Redis, keys: Keys) -> None:
    try:
        client.execute_command("FT.DROPINDEX", keys.access_index)
    except redis.exceptions.ResponseError:
        pass


def is_ready(client: redis.Redis, keys: Keys) -> bool:
    return client.hget(keys.meta, READY_FIELD) is not None


def backfill(client: redis.Redis, keys: Keys, *, budget: int = 20_000, batch: int = 500) -> bool:
    """Give up to *budget* memories their access document (resumable: a SCAN cursor is kept
    in the collection's metadata); True once every memory has one and the aggregates
    switch to the access index. Safe beside live writes: each mirror is one atomic script
    that keeps an existing document's counts."""
    if is_ready(client, keys):
        return True
    script = client.register_script(MIRROR_LUA)
    cursor = int(as_text(client.hget(keys.meta, BACKFILL_CURSOR)) or 0)
    done = 0
    while done < budget:
        cursor, found = client.scan(cursor, match=keys.memory_prefix + "*", count=batch)
        if found:
            pipe = client.pipeline(transaction=False)
            for raw in found:
                key = as_text(raw)
                memory_id = key[len(keys.memory_prefix) :]
                script(keys=[key, keys.access_doc(memory_id)], args=["0"], client=pipe)
            pipe.execute()
            done += len(found)
        if cursor == 0:
            client.hset(keys.meta, READY_FIELD, 1)
            client.hdel(keys.meta, BACKFILL_CURSOR)
            log.info("access documents of %s are complete", keys.collection)
            return True
        client.hset(keys.meta, BACKFILL_CURSOR, cursor)
    return False


def memory_key_of(keys: Keys, access_key: str) -> str:
    """The memory hash an access document (an aggregate's ``@__key``) belongs to."""
    if access_key.startswith(keys.access_doc_prefix):
        return keys.memory_prefix + access_key[len(keys.access_doc_prefix) :]
    return access_key


def touch(
    client: redis.Redis, keys: Keys, script: Any, memories: Sequence[Any], now: float | None
) -> None:
    """Count one recall hit of each of *memories* in the pending hash, one round trip; the
    objects in hand take the new count and time too."""
    if not memories:
        return
    stamp = time.time() if now is None else now
    pipe = client.pipeline(transaction=False)
    for memory in memories:
        script(
            keys=[keys.memory(memory.id), keys.access],
            args=[memory.id, repr(stamp)],
            client=pipe,
        )
    pipe.execute()
    _count_hit(memories, stamp)


def _count_hit(memories: Sequence[Any], stamp: float) -> None:
    """The objects in hand take the hit :func:`touch` counted: one more access, at *stamp*."""
    for memory in memories:
        memory.access_count += 1
        memory.last_accessed = stamp


def _not_overlaid(memories: Sequence[Any]) -> list[Any]:
    """Those of *memories* :func:`overlay` has not given their true counts yet."""
    return [m for m in memories if not getattr(m, "_access_overlaid", False)]


def overlay(client: redis.Redis, keys: Keys, memories: list[Any]) -> list[Any]:
    """Give *memories* their true access counts: the access document's (the memory hash's
    own are only the values it was written with) plus recalls not yet folded. One round
    trip; a memory already overlaid is skipped."""
    todo = _not_overlaid(memories)
    if not todo:
        return memories
    pipe = client.pipeline(transaction=False)
    _queue_overlay(pipe, keys, todo)
    _apply_overlay(todo, pipe.execute())
    return memories


def account(
    client: redis.Redis,
    keys: Keys,
    script: Any,
    memories: Sequence[Any],
    touch_at: float | None,
) -> None:
    """:func:`overlay` and, with *touch_at* (the recall's time), :func:`touch` for a
    recall's results in one round trip: their reads are queued before the counts, so
    the objects show the counts they had, then take this recall's hit as :func:`touch`
    gives it. The touches go by ``EVALSHA`` (a pipeline that runs a script asks Redis
    whether it has it first: a round trip of its own); one the server no longer holds
    (restarted, flushed) is sent again the usual way. On a Redis Cluster the two go as
    before, one after the other."""
    if isinstance(client, RedisCluster):
        # a cluster pipeline sends a script as EVAL (ADR 0079): a new master, a promoted
        # replica or a slot's new owner holds none, so the two calls keep that path
        overlay(client, keys, list(memories))
        if touch_at is not None:
            touch(client, keys, script, memories, touch_at)
        return
    todo = _not_overlaid(memories)
    touched = list(memories) if touch_at is not None else []
    if not todo and not touched:
        return
    pipe = client.pipeline(transaction=False)
    if todo:
        _queue_overlay(pipe, keys, todo)
    for memory in touched:
        pipe.evalsha(script.sha, 2, keys.memory(memory.id), keys.access, memory.id, repr(touch_at))
    replies = pipe.execute(raise_on_error=False)
    unheld = [
        m
        for m, reply in zip(touched, replies[len(replies) - len(touched) :], strict=True)
        if isinstance(reply, redis.exceptions.NoScriptError)
    ]
    failed = [
        r
        for r in replies
        if isinstance(r, Exception) and not isinstance(r, redis.exceptions.NoScriptError)
    ]
    if failed:
        raise failed[0]  # as the pipeline would
    if todo:
        _apply_overlay(todo, replies[: len(todo) + 1])
    if unheld:
        touch(client, keys, script, unheld, touch_at)  # loads the script; counts them
    if touch_at is not None:
        again = {id(m) for m in unheld}
        _count_hit([m for m in touched if id(m) not in again], touch_at)


def _queue_overlay(pipe: Any, keys: Keys, todo: Sequence[Any]) -> None:
    """Queue the reads :func:`_apply_overlay` takes: the pending counts, then each
    access document."""
    pipe.hmget(keys.access, [f"{p}:{m.id}" for m in todo for p in ("n", "t")])
    for memory in todo:
        pipe.hmget(keys.access_doc(memory.id), *ACCESS_FIELDS)


def _apply_overlay(todo: Sequence[Any], replies: Sequence[Any]) -> None:
    values, *docs = replies
    for i, memory in enumerate(todo):
        memory._access_overlaid = True  # a per-object flag
        last, count = docs[i]
        if last is not None:
            memory.last_accessed = float(last)
        if count is not None:
            memory.access_count = int(float(count))
        n, t = values[2 * i], values[2 * i + 1]
        if n:
            memory.access_count += int(n)
        if t:
            memory.last_accessed = max(memory.last_accessed, float(t))


def fold(client: redis.Redis, keys: Keys, script: Any, ids: Sequence[str]) -> int:
    """Fold the pending access counts of *ids* into their access documents
    (:data:`FOLD_LUA`), one round trip; returns how many had any."""
    stamps = client.hmget(keys.access, [f"t:{i}" for i in ids])
    pipe = client.pipeline(transaction=False)
    for memory_id, stamp in zip(ids, stamps, strict=True):
        script(
            keys=[keys.memory(memory_id), keys.access_doc(memory_id), keys.access],
            args=[memory_id, as_text(stamp, "0")],
            client=pipe,
        )
    return sum(1 for r in pipe.execute() if r)


__all__ = [
    "ACCESS_FIELDS",
    "FOLD_LUA",
    "MIRRORED",
    "MIRROR_LUA",
    "READY_FIELD",
    "backfill",
    "drop_access_index",
    "ensure_access_index",
    "fold",
    "is_ready",
    "memory_key_of",
    "mirror_lua",
    "overlay",
    "schema_args",
    "touch",
]
