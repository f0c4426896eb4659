"""The script library: every Lua script that changes a memory, in one place.

A memory is a hash (field names: :mod:`houkai.store.codec`), its access document
(:mod:`houkai.store.access`), its share of the BM25 statistics
(:mod:`houkai.store.lexstats`) and its edges in the reverse link index. A script
that changes one of them keeps the others in step, so the scripts and the fragments
they are stitched from live here:

- :func:`delete_memory_lua` is the one way to delete a memory (edges out of the
  reverse index, BM25 share taken back, hash and access document deleted); forget
  (:data:`DELETE_LUA`), the TTL purge (:data:`DELETE_IF_EXPIRED_LUA`) and the
  pipeline's rejection (``houkai.pipeline.jobs``) are that fragment behind a guard;
- every script that writes a memory hash ends by mirroring it into its access
  document (:func:`~houkai.store.access.mirror_lua`; :data:`WRITING_SCRIPTS` lists
  them and a test checks it).

:class:`Scripts` registers them once per store (``EVALSHA``, falling back to
``EVAL``, as redis-py does). A Redis ``FUNCTION`` library was considered and not
taken: it runs the same Lua at the same cost per call as a cached ``EVALSHA``, but
is loaded once per server under one name, so two houkai versions sharing a server
would overwrite each other's library, while script hashes keep them apart by content.
"""

from __future__ import annotations

from typing import Any

from . import access, lexstats
from .codec import F
from .lexstats import uncount_lua


def drop_outgoing_lua(memory: str, incoming_prefix: str, memory_id: str) -> str:
    """Lua: remove the reverse-index entries of every edge the hash at *memory* holds.

    Shared by every script that deletes a memory (forget, decay, import
    overwrite, TTL purge, the pipeline's rejection); it reads ``links`` inside
    the script, so it sees an edge :data:`LINK_LUA` added a moment earlier.
    """
    return f"""
local out_raw = redis.call('HGET', {memory}, 'links')
if out_raw and out_raw ~= '' then
  local out_ok, out_links = pcall(cjson.decode, out_raw)
  if out_ok and type(out_links) == 'table' then
    for _, l in ipairs(out_links) do
      if type(l) == 'table' and type(l['to']) == 'string' and type(l['rel']) == 'string' then
        redis.call('SREM', {incoming_prefix} .. l['to'], {memory_id} .. '|' .. l['rel'])
      end
    end
  end
end
"""


def delete_memory_lua(
    memory: str, stats: str, incoming_prefix: str, memory_id: str, access: str
) -> str:
    """Lua: delete the hash at *memory* the one way every delete must (forget, decay,
    import overwrite, TTL purge, the pipeline's rejection): its edges out of the reverse
    link index, its share of the BM25 statistics at *stats* taken back, then the hash
    and its access document at *access*."""
    return (
        drop_outgoing_lua(memory, incoming_prefix, memory_id)
        + uncount_lua(memory, stats)
        + f"redis.call('DEL', {memory}, {access})\n"
    )


# KEYS: src hash, dst hash, incoming(dst) set, the collection's statistics.  ARGV: dst_id,
# rel, "src|rel". Returns 1 (added), 0 (already there), -1 (no src), -2 (no dst). A
# ``follows`` edge sets the statistics' flag (lexstats.FOLLOWS_FIELD).
LINK_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[2]) == 0 then return -2 end
if ARGV[2] == 'follows' then redis.call('HSET', KEYS[4], '__fol', '1') end
local raw = redis.call('HGET', KEYS[1], 'links')
local links = {}
if raw and raw ~= '' then
  local ok, decoded = pcall(cjson.decode, raw)
  if ok and type(decoded) == 'table' then links = decoded end
end
for _, l in ipairs(links) do
  if type(l) == 'table' and l['to'] == ARGV[1] and l['rel'] == ARGV[2] then
    redis.call('SADD', KEYS[3], ARGV[3])
    return 0
  end
end
table.insert(links, {to = ARGV[1], rel = ARGV[2]})
redis.call('HSET', KEYS[1], 'links', cjson.encode(links))
redis.call('SADD', KEYS[3], ARGV[3])
return 1
"""

# KEYS: src hash, incoming(dst) set.  ARGV: dst_id, rel ('' = every rel), src_id.
# Returns the list of removed rels (in the order they were stored).
UNLINK_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local raw = redis.call('HGET', KEYS[1], 'links')
if not raw or raw == '' then return {} end
local ok, links = pcall(cjson.decode, raw)
if not ok or type(links) ~= 'table' then return {} end
local keep, removed = {}, {}
for _, l in ipairs(links) do
  if type(l) == 'table' and l['to'] == ARGV[1] and (ARGV[2] == '' or l['rel'] == ARGV[2]) then
    table.insert(removed, l['rel'])
  else
    table.insert(keep, l)
  end
end
if #removed == 0 then return {} end
local encoded = '[]'
if #keep > 0 then encoded = cjson.encode(keep) end
redis.call('HSET', KEYS[1], 'links', encoded)
for _, r in ipairs(removed) do
  redis.call('SREM', KEYS[2], ARGV[3] .. '|' .. r)
end
return removed
"""

# KEYS: memory, lexstats, access document. ARGV: incoming-set prefix, memory id.
# Deletes one memory with its BM25 contribution, its outgoing reverse-index entries
# and its access document, atomically, and returns the hash it deleted (empty when
# there was none) for the journal, its access document's counts last (they win).
DELETE_LUA = (
    """
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return fields end
local own = redis.call('HMGET', KEYS[3], 'last_accessed', 'access_count')
if own[1] then
  fields[#fields + 1] = 'last_accessed'
  fields[#fields + 1] = own[1]
end
if own[2] then
  fields[#fields + 1] = 'access_count'
  fields[#fields + 1] = own[2]
end
"""
    + delete_memory_lua("KEYS[1]", "KEYS[2]", "ARGV[1]", "ARGV[2]", "KEYS[3]")
    + "return fields\n"
)

# Access tracking goes to a side hash, never to the indexed memory hash: any
# write to an indexed hash makes RediSearch re-index the whole document, vector
# included, which cost ~10 ms per recall. KEYS: memory, access hash.
# ARGV: id, now. Only existing memories: a forgotten one never comes back.
TOUCH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'n:' .. ARGV[1], 1)
  redis.call('HSET', KEYS[2], 't:' .. ARGV[1], ARGV[2])
  return 1
end
return 0
"""

# KEYS: memory hash, its access document. ARGV: field, value, field, value, ...
# 1 when written, 0 when absent.
HSET_IF_EXISTS_LUA = (
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
"""
    + access.mirror_lua("KEYS[1]", "KEYS[2]", "'0'")
    + "return 1\n"
)

# KEYS: the superseded memory's hash and access document, then the hashes of the chain
# read from the superseder (the superseder first, then what supersedes it, …).
# ARGV: the superseded id, the chain's length, each chain hash's superseded_by as read,
# then the field/value pairs to set. The cycle check and the write are one step: two
# supersedes of a pair in opposite directions at once cannot both pass the check.
# Returns 1 written, 0 the superseded memory is gone, -1 a cycle, -2 the chain changed
# since it was read (read it again), -3 the superseder is gone.
SUPERSEDE_LUA = (
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then return -3 end
local n = tonumber(ARGV[2])
for i = 1, n do
  local up = redis.call('HGET', KEYS[2 + i], '"""
    + F.SUPERSEDED_BY
    + """') or ''
  if up == ARGV[1] then return -1 end
  if up ~= ARGV[2 + i] then return -2 end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3 + n))
"""
    + access.mirror_lua("KEYS[1]", "KEYS[2]", "'0'")
    + "return 1\n"
)

# KEYS: memory hash, lexstats hash, access document. ARGV: now, incoming-set prefix, memory id.
# Deletes (keeping the BM25 corpus statistics and the reverse link index exact,
# like every other delete) only if 0 < expires_at <= now still holds.
DELETE_IF_EXPIRED_LUA = (
    """
local raw = redis.call('HGET', KEYS[1], 'expires_at')
if not raw then return 0 end
local at = tonumber(raw)
if not at or at <= 0 or at > tonumber(ARGV[1]) then return 0 end
"""
    + delete_memory_lua("KEYS[1]", "KEYS[2]", "ARGV[2]", "ARGV[3]", "KEYS[3]")
    + "return 1\n"
)


# ``houkai collections migrate``: KEYS: memory. ARGV: new blob, expected old length.
# Only a blob still of the old length is replaced (a memory forgotten meanwhile is not recreated).
CONVERT_VECTOR_LUA = """
if redis.call('HSTRLEN', KEYS[1], 'vec') == tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'vec', ARGV[1])
  return 1
end
return 0
"""

# The findability repair: re-insert one vector into the HNSW graph by writing it again.
# KEYS: memory. ARGV: the blob. Never recreates a forgotten memory.
REWRITE_VECTOR_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'vec', ARGV[1])
return 1
"""


#: The scripts that write a memory hash; each ends by mirroring it into its access document.
WRITING_SCRIPTS: dict[str, str] = {
    "write": lexstats.WRITE_LUA,
    "update": lexstats.UPDATE_LUA,
    "hset_if_exists": HSET_IF_EXISTS_LUA,
    "supersede": SUPERSEDE_LUA,
    "set_fields": access.SET_FIELDS_LUA,
    "mirror": access.MIRROR_LUA,
}


class Scripts:
    """The library registered on one client: ``scripts.write(keys=..., args=...)``.

    Registering only hashes the source here; the server loads a script on first use.
    """

    def __init__(self, client: Any) -> None:
        register = client.register_script
        self.write = register(lexstats.WRITE_LUA)  # a whole memory (the write path)
        self.update = register(lexstats.UPDATE_LUA)  # some fields of an existing memory
        self.delete_memory = register(DELETE_LUA)  # forget: returns what it deleted
        self.delete_if_expired = register(DELETE_IF_EXPIRED_LUA)  # the TTL purge
        self.hset_if_exists = register(HSET_IF_EXISTS_LUA)  # restore state
        self.supersede = register(SUPERSEDE_LUA)  # supersede state, checked for cycles
        self.set_fields = register(access.SET_FIELDS_LUA)  # backdating (plumbing)
        self.mirror = register(access.MIRROR_LUA)  # an access document from its memory
        self.fold = register(access.FOLD_LUA)  # pending recall counts into access docs
        self.touch = register(TOUCH_LUA)  # one recall hit into the pending hash
        self.link = register(LINK_LUA)
        self.unlink = register(UNLINK_LUA)
        self.rewrite_vector = register(REWRITE_VECTOR_LUA)  # findability repair
        self.convert_vector = register(CONVERT_VECTOR_LUA)  # vector type migration
