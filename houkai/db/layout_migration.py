"""Move data from the key layout before ADR 0079 to the tagged one, verified and resumable.

Before ADR 0079 a collection's keys were ``<prefix>:<family>:<coll>[:<rest>]`` and its
jobs ``<prefix>:job:<id>…``; now every key of a collection starts with
``<prefix>:{<coll>}:`` (one hash tag, so one Redis Cluster slot). ``houkai migrate
layout`` moves each collection in five steps, recording its progress in
``GlobalKeys.layout_migration`` (a HASH collection → JSON) so an interrupted run resumes:

1. *count and checksum* the old keys (type, tagged name and content of every key);
2. *copy* them to the tagged names (``COPY … REPLACE`` on one node, ``DUMP``/``RESTORE``
   on a cluster; TTLs kept) — the old keys stay untouched;
3. *verify*: count and checksum of the new keys must equal step 1's, otherwise the run
   stops and the old keys are left as they were (a rerun copies again);
4. *index*: the memory and access indexes are created under their new names and the
   background scan awaited, so the first recall after the move is complete;
5. *remove* the old indexes (documents kept) and the old keys, then mark it ``done``.

A collection with no old keys is skipped, so a rerun is a no-op. Opening a store whose
collection still has old keys raises :class:`LegacyLayout` (a 503 naming the command)
rather than silently starting an empty collection beside the old data.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import redis

from .decode import as_text
from .keys import LEGACY_FAMILIES, GlobalKeys, Keys, prefix_pattern
from .legacy_layout import LegacyLayout, check_not_legacy
from .schema import (
    EXACT_PENDING,
    LEGACY_VECTOR_TYPE,
    IndexParams,
    await_scan,
    create_index,
)

log = logging.getLogger(__name__)

BATCH = 500
INDEX_WAIT = 600.0  # seconds to wait for a new index's background scan
_JOB_SUFFIXES = ("ids", "bits", "errors", "conflicts")
_FAMILIES = frozenset(LEGACY_FAMILIES)


def is_cluster(client: Any) -> bool:
    return isinstance(client, redis.cluster.RedisCluster)


# ------------------------------------------------------------------ finding old keys
@dataclass
class Plan:
    """Old → new key names, per collection, and the global keys to move."""

    collections: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    globals: list[tuple[str, str]] = field(default_factory=list)


def _scan(client: Any, match: str) -> Iterator[str]:
    for key in client.scan_iter(match=match, count=5000):
        yield as_text(key)


def plan(client: Any, prefix: str) -> Plan:
    """One SCAN over ``<prefix>:*`` sorting every old-layout key to its collection."""
    names = {as_text(c) for c in client.smembers(Keys.registry(prefix))}
    out = Plan()
    head = prefix + ":"
    jobs: dict[str, list[str]] = {}
    for key in _scan(client, prefix_pattern(head)):
        rest = key[len(head) :]
        if rest.startswith("{"):
            continue  # already tagged
        family, _, tail = rest.partition(":")
        if family == "job" and tail:
            job_id, _, suffix = tail.partition(":")
            if not suffix or suffix in _JOB_SUFFIXES:
                jobs.setdefault(job_id, []).append(key)
            continue
        if family not in _FAMILIES or not tail:
            continue
        coll, _, more = tail.partition(":")
        if coll not in names:
            continue
        k = Keys(prefix, coll)
        out.collections.setdefault(coll, []).append((key, k.tagged(family, more)))
    _plan_jobs(client, prefix, jobs, names, out)
    glob = GlobalKeys(prefix)
    moves = dict(glob.legacy_globals())
    for worker in client.smembers(f"{prefix}:running-workers"):
        w = as_text(worker)
        moves[f"{prefix}:running:{w}"] = glob.running(w)
    exists = _pipe_map(client, list(moves), lambda p, k: p.exists(k))
    out.globals = [(old, new) for (old, new), e in zip(moves.items(), exists, strict=True) if e]
    for coll in out.collections:
        out.collections[coll].sort()
    return out


def _plan_jobs(
    client: Any, prefix: str, jobs: dict[str, list[str]], names: set[str], out: Plan
) -> None:
    ids = sorted(jobs)
    owners = _pipe_map(
        client, [f"{prefix}:job:{j}" for j in ids], lambda p, k: p.hget(k, "collection")
    )
    for job_id, owner in zip(ids, owners, strict=True):
        coll = as_text(owner)
        if coll not in names:
            continue  # no job hash (expired) or a collection that is gone: left alone
        k = Keys(prefix, coll)
        for key in jobs[job_id]:
            suffix = key[len(f"{prefix}:job:{job_id}") :]
            out.collections.setdefault(coll, []).append((key, k.job(job_id) + suffix))


def _pipe_map(client: Any, keys: Sequence[str], call: Callable[[Any, str], Any]) -> list[Any]:
    out: list[Any] = []
    for start in range(0, len(keys), BATCH):
        pipe = client.pipeline(transaction=False)
        for key in keys[start : start + BATCH]:
            call(pipe, key)
        out.extend(pipe.execute())
    return out


# ------------------------------------------------------------------ checksums
def _content(pipe: Any, key: str, kind: str) -> None:
    if kind == "string":
        pipe.get(key)
    elif kind == "hash":
        pipe.hgetall(key)
    elif kind == "set":
        pipe.smembers(key)
    elif kind == "zset":
        pipe.zrange(key, 0, -1, withscores=True)
    elif kind == "list":
        pipe.lrange(key, 0, -1)
    elif kind == "stream":
        pipe.xrange(key)
    else:
        pipe.type(key)  # anything else counts by its type only


def _canonical(kind: str, value: Any) -> bytes:
    if kind == "hash":
        items = sorted(value.items())
    elif kind == "set":
        items = sorted(value)
    elif kind == "zset":
        items = sorted((m, repr(float(s))) for m, s in value)
    elif kind == "stream":
        items = [(i, sorted(f.items())) for i, f in value]
    else:
        items = value
    return repr(items).encode()


def checksum(client: Any, names: Sequence[str], labels: Sequence[str]) -> tuple[int, str]:
    """``(count, checksum)`` of the keys *names*, each digested with its *label* (the
    tagged name, so old and new keys digest alike); the sum is order-independent."""
    total, count = 0, 0
    for start in range(0, len(names), BATCH):
        chunk, tags = names[start : start + BATCH], labels[start : start + BATCH]
        kinds = [as_text(t) for t in _pipe_map(client, chunk, lambda p, k: p.type(k))]
        pipe = client.pipeline(transaction=False)
        for key, kind in zip(chunk, kinds, strict=True):
            _content(pipe, key, kind)
        values = pipe.execute()
        for tag, kind, value in zip(tags, kinds, values, strict=True):
            if kind == "none":
                continue
            digest = hashlib.blake2b(digest_size=16)
            digest.update(f"{tag}\0{kind}\0".encode())
            digest.update(_canonical(kind, value))
            total = (total + int.from_bytes(digest.digest(), "big")) % (1 << 128)
            count += 1
    return count, f"{total:032x}"


# ------------------------------------------------------------------ copying
def copy_keys(client: Any, pairs: Sequence[tuple[str, str]]) -> None:
    """Copy each old key to its new name, TTL included (old keys untouched)."""
    if not is_cluster(client):
        for start in range(0, len(pairs), BATCH):
            pipe = client.pipeline(transaction=False)
            for old, new in pairs[start : start + BATCH]:
                pipe.execute_command("COPY", old, new, "REPLACE")
            pipe.execute()
        return
    for start in range(0, len(pairs), BATCH):
        chunk = pairs[start : start + BATCH]
        pipe = client.pipeline(transaction=False)
        for old, _new in chunk:
            pipe.dump(old)
            pipe.pttl(old)
        replies = pipe.execute()
        pipe = client.pipeline(transaction=False)
        for (_old, new), payload, ttl in zip(chunk, replies[::2], replies[1::2], strict=True):
            if payload is not None:
                pipe.restore(new, max(int(ttl), 0), payload, replace=True)
        pipe.execute()


def _delete(client: Any, names: Sequence[str]) -> None:
    for start in range(0, len(names), BATCH):
        pipe = client.pipeline(transaction=False)
        for key in names[start : start + BATCH]:
            pipe.delete(key)  # one key a command: old keys of a collection span slots
        pipe.execute()


def _params(signature: str, dim: int) -> IndexParams:
    sig = json.loads(signature or "{}")
    return IndexParams(
        dim=int(sig.get("dim") or dim),
        m=int(sig.get("m", 16)),
        ef_construction=int(sig.get("efc", 200)),
        ef_runtime=int(sig.get("efr", 64)),
        vector_type=str(sig.get("vt", LEGACY_VECTOR_TYPE)),
        exact=bool(sig.get("x")),
    )


def build_indexes(client: Any, keys: Keys, wait: float) -> None:
    """Create the collection's indexes under their tagged names and await their scan."""
    from ..store import access  # the store package imports this module's callers

    meta = {as_text(k): as_text(v) for k, v in client.hgetall(keys.meta).items()}
    if not meta.get("dim"):
        return  # a collection that never stored a memory has no index to make
    params = _params(meta.get("signature", ""), int(meta["dim"]))
    try:
        create_index(client, keys, params)
    except redis.exceptions.ResponseError as exc:
        if "already exists" not in str(exc).lower():
            raise
    client.hset(keys.meta, "signature", params.signature())
    access.ensure_access_index(client, keys, empty=False)
    for index in (keys.index, keys.access_index):
        if not await_scan(client, index, wait):
            log.warning("index %s still indexing after %.0f s", index, wait)
    client.hdel(keys.meta, EXACT_PENDING)


def _drop_old_indexes(client: Any, keys: Keys) -> None:
    for family in ("idx", "aidx"):
        try:
            client.execute_command("FT.DROPINDEX", keys.legacy(family))
        except redis.exceptions.ResponseError:
            pass


# ------------------------------------------------------------------ the command
@dataclass
class CollectionResult:
    collection: str
    keys: int
    checksum: str
    state: str  # done | skipped | mismatch
    seconds: float = 0.0
    checksum_after: str = ""
    keys_after: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Interrupted(Exception):
    """Raised by a test hook to stop a run between steps (resumability tests)."""


def _progress(client: Any, prefix: str, coll: str) -> dict[str, Any]:
    raw = client.hget(GlobalKeys(prefix).layout_migration, coll)
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        value = {}
    return value if isinstance(value, dict) else {}


def _record(client: Any, prefix: str, coll: str, **state: Any) -> None:
    client.hset(GlobalKeys(prefix).layout_migration, coll, json.dumps(state))


def migrate_collection(
    client: Any,
    prefix: str,
    coll: str,
    pairs: Sequence[tuple[str, str]],
    *,
    wait: float = INDEX_WAIT,
    stop_after: str = "",
) -> CollectionResult:
    """Move one collection (steps in the module docstring); *stop_after* names a step
    after which to raise :class:`Interrupted` (tests of resumption)."""
    started = time.monotonic()
    keys = Keys(prefix, coll)
    old = [o for o, _ in pairs]
    new = [n for _, n in pairs]
    state = _progress(client, prefix, coll)
    if state.get("state") != "verified":
        count, digest = checksum(client, old, new)
        _record(client, prefix, coll, state="copying", keys=count, checksum=digest)
        copy_keys(client, pairs)
        if stop_after == "copy":
            raise Interrupted(coll)
        after, after_digest = checksum(client, new, new)
        if (after, after_digest) != (count, digest):
            log.error("collection %s: %d keys %s before, %d %s after the copy", coll, count,
                      digest, after, after_digest)  # fmt: skip
            return CollectionResult(coll, count, digest, "mismatch", 0.0, after_digest, after)
        state = {"state": "verified", "keys": count, "checksum": digest}
        _record(client, prefix, coll, **state)
    build_indexes(client, keys, wait)
    if stop_after == "index":
        raise Interrupted(coll)
    _drop_old_indexes(client, keys)
    _delete(client, old)
    _record(client, prefix, coll, state="done", keys=state["keys"], checksum=state["checksum"])
    seconds = round(time.monotonic() - started, 3)
    return CollectionResult(
        coll, int(state["keys"]), str(state["checksum"]), "done", seconds,
        str(state["checksum"]), int(state["keys"]),
    )  # fmt: skip


def _move_globals(client: Any, pairs: Iterable[tuple[str, str]]) -> int:
    """Merge each old global key into its tagged name (small keys: read and re-write)."""
    moved = 0
    for old, new in pairs:
        kind = as_text(client.type(old))
        if kind == "zset":
            items = dict(client.zrange(old, 0, -1, withscores=True))
            if items:
                client.zadd(new, items)
        elif kind == "hash":
            mapping = client.hgetall(old)
            if mapping:
                client.hset(new, mapping=mapping)
        elif kind == "set":
            members = client.smembers(old)
            if members:
                client.sadd(new, *members)
        else:
            continue
        client.delete(old)
        moved += 1
    return moved


def migrate_layout(
    client: Any,
    prefix: str,
    *,
    collections: Sequence[str] | None = None,
    wait: float = INDEX_WAIT,
    stop_after: str = "",
) -> dict[str, Any]:
    """Move every collection (or *collections*) under *prefix* to the tagged layout.
    Returns ``{"collections": [...], "globals": n, "ok": bool}``."""
    found = plan(client, prefix)
    results: list[CollectionResult] = []
    wanted = set(collections) if collections else None
    names = sorted({as_text(c) for c in client.smembers(Keys.registry(prefix))})
    for coll in names:
        if wanted is not None and coll not in wanted:
            continue
        pairs = found.collections.get(coll, [])
        if not pairs:
            state = _progress(client, prefix, coll)
            results.append(CollectionResult(coll, int(state.get("keys", 0)),
                                            str(state.get("checksum", "")), "skipped"))  # fmt: skip
            continue
        results.append(migrate_collection(client, prefix, coll, pairs, wait=wait,
                                          stop_after=stop_after))  # fmt: skip
    moved = _move_globals(client, found.globals)
    ok = all(r.state != "mismatch" for r in results)
    return {"ok": ok, "globals": moved, "collections": [r.to_dict() for r in results]}


__all__ = ["LegacyLayout", "check_not_legacy", "checksum", "migrate_layout", "plan"]
