"""A collection's sessions in Redis: messages in, idempotent on id; read, list, delete;
pending (not yet extracted) messages out; results committed; the window trimmed.

Keys (:class:`houkai.db.keys.Keys`): per session a meta HASH (scope, times, counter,
running summary), a HASH of messages by id, a ZSET of their order and a HASH of what
each extracted message became; per collection a ZSET of sessions by last activity and
a ZSET of sessions whose debounced extraction is due.

A message leaves the session only when its extraction has committed AND it has fallen
out of the window (then a line of it goes to the summary): nothing is lost by a crash
between the two.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis

from ..db.decode import as_float, as_text
from ..db.keys import Keys
from ..domain.model import StateConflict
from ..extraction.base import ChatMessage
from . import messages as msg
from .summary import fold

# KEYS: meta, msgs, order, results, index, due, metrics
# ARGV: now, ttl, session_id, user_id, agent_id, due_at, threshold, then id, json pairs
# → {added, pending, held} or {-1, field} when the scope differs from the session's.
# A message id already held, or already extracted (its result stays after the window
# drops it), is not added again. With *threshold* (K) or more messages pending the
# session is due now (the workers' sweep sends it within a second), else at due_at.
# One round trip is the whole request: the call counter is bumped here too.
_ADD_LUA = """
local meta, msgs, order, results, index, due = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local now, ttl, sid = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local threshold = tonumber(ARGV[7])
for i, name in ipairs({'user_id', 'agent_id'}) do
  local given = ARGV[3 + i]
  if given ~= '' then
    local held = redis.call('HGET', meta, name)
    if held and held ~= '' and held ~= given then return {-1, name} end
  end
end
local added = 0
for i = 8, #ARGV, 2 do
  local id, body = ARGV[i], ARGV[i + 1]
  if redis.call('HEXISTS', msgs, id) == 0 and redis.call('HEXISTS', results, id) == 0 then
    local seq = redis.call('HINCRBY', meta, 'seq', 1)
    local at = cjson.decode(body)
    at['seq'] = seq
    at['at'] = tonumber(now)
    redis.call('HSET', msgs, id, cjson.encode(at))
    redis.call('ZADD', order, seq, id)
    added = added + 1
  end
end
redis.call('HSETNX', meta, 'session_id', sid)
redis.call('HSETNX', meta, 'created_at', now)
if ARGV[4] ~= '' then redis.call('HSET', meta, 'user_id', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', meta, 'agent_id', ARGV[5]) end
if added > 0 then  -- a message sent again is no activity: it must not delay the debounce
  redis.call('HSET', meta, 'updated_at', now)
  redis.call('ZADD', index, now, sid)
end
local held = redis.call('ZCARD', order)
local pending = redis.call('HINCRBY', meta, 'pending', added)
if added > 0 then
  if threshold > 0 and pending >= threshold then
    redis.call('ZADD', due, now, sid)
  else
    redis.call('ZADD', due, ARGV[6], sid)
  end
end
if ttl > 0 then
  for _, key in ipairs({meta, msgs, order, results}) do redis.call('EXPIRE', key, ttl) end
end
redis.call('HINCRBY', KEYS[7], 'calls:add_messages', math.max(1, added))
return {added, pending, held}
"""


# KEYS: meta, msgs, results. ARGV: memories written, now, then id, json pairs.
# Marks each message extracted once (a re-delivered job changes no count).
_COMMIT_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end  -- deleted meanwhile: leave it so
local done = 0
for i = 3, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]) == 1 then done = done + 1 end
end
if done > 0 then
  redis.call('HINCRBY', KEYS[1], 'pending', -done)
  redis.call('HINCRBY', KEYS[1], 'memories', tonumber(ARGV[1]))
end
redis.call('HSET', KEYS[1], 'extracted_at', ARGV[2])
return done
"""


@dataclass
class AddResult:
    session_id: str
    added: int
    pending: int
    held: int
    ids: list[str] = field(default_factory=list)
    queued: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "added": self.added,
            "pending": self.pending,
            "messages": self.held,
            "ids": list(self.ids),
            "extraction_queued": self.queued,
        }


class SessionState:
    """The Redis side of a collection's sessions (no extraction, no embedding)."""

    def __init__(self, client: redis.Redis, keys: Keys, *, window: int, summary_chars: int,
                 ttl: float) -> None:  # fmt: skip
        self.client = client
        self.keys = keys
        self.window = max(1, int(window))
        self.summary_chars = max(0, int(summary_chars))
        self.ttl = max(0, int(ttl))
        self._add = client.register_script(_ADD_LUA)
        self._commit = client.register_script(_COMMIT_LUA)

    def _session_keys(self, sid: str) -> list[str]:
        k = self.keys
        return [k.session(sid), k.session_messages(sid), k.session_order(sid),
                k.session_results(sid)]  # fmt: skip

    # ------------------------------------------------------------------ writes
    def add(
        self,
        sid: str,
        batch: Sequence[ChatMessage],
        *,
        user_id: str = "",
        agent_id: str = "",
        due_at: float,
        due_after: int = 0,
        now: float | None = None,
    ) -> AddResult:
        """Store *batch* (messages already held or extracted are skipped by id); the
        session is due at *due_at*, or now once *due_after* (K > 0) messages are pending."""
        now = time.time() if now is None else now
        args: list[Any] = [repr(now), self.ttl, sid, user_id, agent_id, repr(due_at),
                           max(0, int(due_after))]  # fmt: skip
        for m in batch:
            args += [m.id, msg.dump(m)]
        keys = [*self._session_keys(sid), self.keys.sessions, self.keys.sessions_due,
                self.keys.metrics]  # fmt: skip
        reply = self._add(keys=keys, args=args)
        if int(reply[0]) == -1:
            name = as_text(reply[1])
            raise StateConflict(f"session {sid!r} belongs to another {name}")
        return AddResult(sid, int(reply[0]), int(reply[1]), int(reply[2]), [m.id for m in batch])

    def delete(self, sid: str) -> bool:
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(*self._session_keys(sid), self.keys.session_queued(sid))
        pipe.zrem(self.keys.sessions, sid)
        pipe.zrem(self.keys.sessions_due, sid)
        return bool(pipe.execute()[0])

    def delete_all(self) -> int:
        ids = [as_text(s) for s in self.client.zrange(self.keys.sessions, 0, -1)]
        for sid in ids:
            self.delete(sid)
        self.client.delete(self.keys.sessions, self.keys.sessions_due)
        return len(ids)

    # ------------------------------------------------------------------ reads
    def meta(self, sid: str) -> dict[str, str] | None:
        raw = self.client.hgetall(self.keys.session(sid))
        if not raw:
            return None
        return {as_text(k): as_text(v) for k, v in raw.items()}

    def exists(self, sid: str) -> bool:
        return bool(self.client.exists(self.keys.session(sid)))

    def messages(self, sid: str, last: int | None = None) -> list[dict[str, Any]]:
        """The held messages in order (the last *last* of them), each with ``memories``:
        what it became (absent while its extraction has not committed)."""
        start = 0 if last is None else -max(1, last)
        ids = [as_text(i) for i in self.client.zrange(self.keys.session_order(sid), start, -1)]
        if not ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.keys.session_messages(sid), ids)
        pipe.hmget(self.keys.session_results(sid), ids)
        bodies, results = pipe.execute()
        out = []
        for body, result in zip(bodies, results, strict=True):
            if body is None:
                continue
            data = msg.load(body)
            data["extracted"] = result is not None
            if result is not None:
                data["became"] = json.loads(result)
            out.append(data)
        return out

    def pending(self, sid: str) -> list[ChatMessage]:
        """The held messages whose extraction has not committed, in order."""
        return [msg.as_chat(m) for m in self.messages(sid) if not m["extracted"]]

    def pending_count(self, sid: str) -> int:
        return max(0, int(as_float(self.client.hget(self.keys.session(sid), "pending"))))

    def listing(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Sessions, most recently active first (an expired one is dropped from the list)."""
        rows = self.client.zrevrange(
            self.keys.sessions, offset, offset + limit - 1, withscores=True
        )
        out = []
        for raw, score in rows:
            sid = as_text(raw)
            meta = self.meta(sid)
            if meta is None:  # expired by its TTL: forget the index entry too
                self.client.zrem(self.keys.sessions, sid)
                self.client.zrem(self.keys.sessions_due, sid)
                continue
            out.append(self.describe(sid, meta, last_activity=score))
        return out

    def count(self) -> int:
        return int(self.client.zcard(self.keys.sessions))

    def describe(
        self, sid: str, meta: dict[str, str], last_activity: float | None = None
    ) -> dict[str, Any]:
        return {
            "session_id": sid,
            "user_id": meta.get("user_id") or None,
            "agent_id": meta.get("agent_id") or None,
            "created_at": as_float(meta.get("created_at")),
            "updated_at": as_float(meta.get("updated_at"), last_activity or 0.0),
            "messages_total": int(as_float(meta.get("seq"))),
            "messages_held": int(self.client.zcard(self.keys.session_order(sid))),
            "pending": self.pending_count(sid),
            "memories": int(as_float(meta.get("memories"))),
            "extracted_at": as_float(meta.get("extracted_at")) or None,
        }

    # ------------------------------------------------------------------ extraction
    def commit(self, sid: str, became: dict[str, list[dict[str, Any]]], written: int) -> int:
        """Mark messages extracted, with what each became (atomic; a message already
        marked keeps its first result). Returns how many were newly marked."""
        if not became:
            return 0
        args: list[Any] = [written, repr(time.time())]
        for mid, value in became.items():
            args += [mid, json.dumps(value)]
        keys = [self.keys.session(sid), self.keys.session_messages(sid),
                self.keys.session_results(sid)]  # fmt: skip
        done = int(self._commit(keys=keys, args=args))
        if self.ttl:
            self.client.expire(self.keys.session_results(sid), self.ttl)
        return done

    def settle_due(self, sid: str) -> None:
        """Nothing pending any more: the session is no longer due."""
        if self.pending_count(sid) == 0:
            self.client.zrem(self.keys.sessions_due, sid)

    def trim(self, sid: str) -> int:
        """Fold the extracted messages older than the window into the summary and drop
        them (a message still pending stays, however old). Returns how many left."""
        order = self.keys.session_order(sid)
        held = int(self.client.zcard(order))
        if held <= self.window:
            return 0
        old = self.messages(sid)[: held - self.window]
        gone = [m for m in old if m["extracted"]]
        if not gone:
            return 0
        meta = self.meta(sid) or {}
        summary = fold(meta.get("summary", ""), gone, self.summary_chars)
        ids = [m["id"] for m in gone]
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self.keys.session(sid), "summary", summary)
        pipe.hdel(self.keys.session_messages(sid), *ids)
        pipe.zrem(order, *ids)
        # the result stays (it marks the id extracted: a re-sent message is not new)
        pipe.execute()
        return len(ids)
