"""The Redis Cluster client houkai uses for ``REDIS_URL=redis+cluster://h:p[,h:p…]``.

redis-py's :class:`~redis.cluster.RedisCluster` routes keyed commands, ``FT.*`` (by the
index name) and ``EVAL``/``EVALSHA`` (by ``KEYS``) to the master owning the slot. Two
things the store relies on behave differently there, and this subclass gives them the
single-node shape back, so the store has one code path (ADR 0079):

* ``SCAN``/``scan_iter`` with a pattern inside one collection's hash tag go to the
  master that owns the tag's slot and return a plain ``(cursor, keys)``; any other
  pattern scans every master (redis-py's own behaviour).
* Scripts: a cluster pipeline sends ``EVALSHA`` without first loading the script (a
  fresh master, a promoted replica or a slot's new owner answers ``NOSCRIPT`` and the
  whole pipeline fails), so scripts queued on a cluster pipeline go as ``EVAL``; a
  direct call keeps ``EVALSHA`` with redis-py's reload on ``NOSCRIPT``.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

from redis import exceptions
from redis.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.commands.core import Script

from ..domain.errors import Unavailable

log = logging.getLogger(__name__)

CLUSTER_SCHEME = "redis+cluster"


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in (
        CLUSTER_SCHEME,
        CLUSTER_SCHEME.replace("redis", "rediss"),
    )


def cluster_nodes(url: str) -> tuple[list[ClusterNode], dict[str, Any]]:
    """Startup nodes and connection options from ``redis+cluster://[user:pass@]h:p,h:p``."""
    scheme, rest = url.split("://", 1)
    auth, _, hosts = rest.rpartition("@")
    hosts = hosts.split("/", 1)[0].split("?", 1)[0]
    nodes = []
    for part in hosts.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"REDIS_URL: {part!r} is not host:port (in {url!r})")
        nodes.append(ClusterNode(host, int(port)))
    options: dict[str, Any] = {}
    if auth:
        user, sep, password = auth.partition(":")
        if sep:
            options["username"] = unquote(user) or None
            options["password"] = unquote(password)
        else:
            options["password"] = unquote(user)
    if scheme.lower().startswith("rediss"):
        options["ssl"] = True
    return nodes, options


def display(url: str) -> str:
    """*url* with any password masked."""
    parts = urlsplit(url.replace(",", "%2C"))
    if parts.password:
        url = url.replace(f":{parts.password}@", ":***@")
    return url


def _tag_of(pattern: Any) -> str | None:
    """The hash tag a glob *pattern* pins its keys to, when every key it matches has it."""
    text = pattern.decode() if isinstance(pattern, bytes) else pattern
    if not isinstance(text, str):
        return None
    start = text.find("{")
    end = text.find("}", start + 1)
    if start < 0 or end <= start + 1:
        return None
    if any(ch in text[: end + 1] for ch in "*?[\\"):
        return None
    return text[start : end + 1]


class _ClusterScript(Script):
    """A script that a cluster pipeline runs as ``EVAL`` (see the module docstring)."""

    def __call__(self, keys: Any = None, args: Any = None, client: Any = None) -> Any:
        target = client if client is not None else self.registered_client
        if isinstance(target, ClusterPipeline):
            keys, args = list(keys or []), list(args or [])
            return target.execute_command("EVAL", self.script, len(keys), *keys, *args)
        return super().__call__(keys=keys, args=args, client=client)


class SlotMoving(Unavailable):
    """The collection's slot is moving to another master: retry in a moment (503)."""

    retry_after = 1


#: Searches answered from one shard's index: during a slot move that index holds part
#: of the collection, so they are fenced by the collection's move counter.
_FENCED = frozenset({"FT.SEARCH", "FT.AGGREGATE"})
#: Errors of an index or cursor that left with its slot.
_GONE = ("no such index", "unknown index name", "unknown index", "cursor not found")


def moves_key(index: Any) -> str | None:
    """The move counter of the collection an index name belongs to (``Keys.moves``)."""
    text = index.decode() if isinstance(index, bytes) else str(index)
    end = text.find("}", text.find("{") + 1)
    return None if "{" not in text or end < 0 else text[: end + 1] + ":moves"


def _text_of(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _with_cursor(args: tuple[Any, ...]) -> bool:
    return any(_text_of(a).upper() == "WITHCURSOR" for a in args if isinstance(a, str | bytes))


def _has_cursor(reply: Any) -> bool:
    """A ``WITHCURSOR`` reply ``[rows, cursor]`` with a cursor still open (non-zero)."""
    if not isinstance(reply, list | tuple) or len(reply) != 2:
        return False
    try:
        return int(reply[1]) != 0
    except (TypeError, ValueError):
        return False


def _count(raw: Any) -> int:
    """A move counter's value (a missing key is 0: never moved)."""
    try:
        return int(raw or 0)
    except ValueError:
        return -1


def _odd(raw: Any) -> bool:
    count = _count(raw)
    return count > 0 and count % 2 == 1


class HoukaiCluster(RedisCluster):
    """:class:`RedisCluster` with collection-scoped SCAN, pipeline-safe scripts and
    searches (and aggregate cursors) fenced against slot moves."""

    #: Open ``FT.AGGREGATE … WITHCURSOR`` cursors: (index, cursor id) → the collection's
    #: move counter when the aggregate ran. A later ``FT.CURSOR READ`` that finds the
    #: counter changed would read from a half-moved (or dropped) index: 503 instead.
    _CURSORS_MAX = 4096

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._cursors: dict[tuple[str, int], int] = {}  # before: __init__ may send commands
        super().__init__(*args, **kwargs)

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        name = str(args[0]).upper() if args else ""
        if name == "FT.CURSOR" and len(args) > 3 and "target_nodes" not in kwargs:
            return self._cursor_command(*args, **kwargs)
        key = moves_key(args[1]) if name in _FENCED and len(args) > 1 else None
        if key is None or "target_nodes" in kwargs:
            return super().execute_command(*args, **kwargs)
        before = self._fence_open(key)
        result = self._fenced_call(key, before, *args, **kwargs)
        if name == "FT.AGGREGATE" and _has_cursor(result) and _with_cursor(args):
            self._remember_cursor(args[1], result[1], before)
        return result

    def _fence_open(self, key: str) -> Any:
        before = super().execute_command("GET", key)
        if _odd(before):
            raise SlotMoving("this collection is moving to another shard; retry in a second")
        return before

    def _fenced_call(self, key: str, before: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            result = super().execute_command(*args, **kwargs)
        except (exceptions.TryAgainError, exceptions.AskError, exceptions.ClusterDownError) as exc:
            raise SlotMoving(f"this collection is moving to another shard ({exc})") from exc
        except exceptions.ResponseError as exc:
            if any(m in str(exc).lower() for m in _GONE) and self._moved_since(key, before):
                raise SlotMoving("this collection is moving to another shard") from exc
            raise
        if self._moved_since(key, before):
            raise SlotMoving("this collection moved to another shard during the search; retry")
        return result

    def _cursor_command(self, *args: Any, **kwargs: Any) -> Any:
        """``FT.CURSOR READ|DEL index cursor`` on the index's shard: READ is fenced by the
        counter the cursor's aggregate saw; DEL forgets the cursor."""
        sub, index, cursor = _text_of(args[1]).upper(), args[2], args[3]
        ident = (_text_of(index), int(cursor))
        key = moves_key(index)
        # redis-py would route by the subcommand's name ("READ"): go to the index's shard
        kwargs["target_nodes"] = self.get_node_from_key(ident[0])
        if sub != "READ" or key is None:
            if sub == "DEL":
                self._cursors.pop(ident, None)
            return super().execute_command(*args, **kwargs)
        opened = self._cursors.get(ident)
        before = self._fence_open(key)
        if opened is not None and _count(before) != opened:
            self._cursors.pop(ident, None)
            raise SlotMoving("this collection moved to another shard under an open cursor; retry")
        result = self._fenced_call(key, before, *args, **kwargs)
        if not _has_cursor(result):
            self._cursors.pop(ident, None)
        return result

    def _remember_cursor(self, index: Any, cursor: Any, counter: Any) -> None:
        cursors = self._cursors
        while len(cursors) >= self._CURSORS_MAX:  # cursors abandoned without DEL
            cursors.pop(next(iter(cursors)), None)
        cursors[(_text_of(index), int(cursor))] = _count(counter)

    def _moved_since(self, key: str, before: Any) -> bool:
        return bool(super().execute_command("GET", key) != before)

    def register_script(self, script: Any) -> Script:
        return _ClusterScript(self, script)

    def _tag_node(self, match: Any) -> Any:
        tag = _tag_of(match) if match is not None else None
        return None if tag is None else self.get_node_from_key(tag)

    def scan(
        self, cursor: int = 0, match: Any = None, count: int | None = None,
        _type: str | None = None, **kwargs: Any,
    ) -> Any:  # fmt: skip
        node = None if "target_nodes" in kwargs else self._tag_node(match)
        if node is None:
            return super().scan(cursor, match, count, _type, **kwargs)
        cursors, keys = super().scan(cursor, match, count, _type, target_nodes=node)
        return int(next(iter(cursors.values()), 0)), keys

    def scan_iter(
        self, match: Any = None, count: int | None = None, _type: str | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:  # fmt: skip
        if "target_nodes" in kwargs or self._tag_node(match) is None:
            yield from super().scan_iter(match, count, _type, **kwargs)
            return
        cursor = 0
        while True:
            cursor, keys = self.scan(cursor, match, count, _type)
            yield from keys
            if not cursor:
                return


class PrimariesOnly:
    """Sends each command to every master (a keyless check such as ``FT._LIST``)."""

    def __init__(self, client: RedisCluster) -> None:
        self.client = client

    def execute_command(self, *args: Any) -> Any:
        return self.client.execute_command(*args, target_nodes=self.client.get_primaries())


def pool_for(client: Any, key: str) -> Any:
    """The connection pool that serves *key*: the client's own on one node, the slot
    owner's on a cluster (for code that packs its own RESP buffers)."""
    if isinstance(client, RedisCluster):
        node = client.get_node_from_key(key)
        if node.redis_connection is None:
            client.nodes_manager.initialize()
            node = client.get_node_from_key(key)
        return node.redis_connection.connection_pool
    return client.connection_pool


def probe_cluster(url: str, timeout: float = 0.5) -> str | None:
    """``"ready"`` when every master of the cluster answers (with its query engine),
    ``"loading"`` when one is replaying its data, ``None`` when the cluster cannot be reached
    or a slot has no master (the single-node probe's answers, for ``/health``)."""
    nodes, options = cluster_nodes(url)
    try:
        client = RedisCluster(
            startup_nodes=nodes, protocol=2, socket_connect_timeout=timeout,
            socket_timeout=timeout, **options,
        )  # fmt: skip
    except (exceptions.RedisError, exceptions.RedisClusterException):
        return None
    try:
        primaries = client.get_primaries()
        client.execute_command("PING", target_nodes=primaries)
        client.execute_command("FT._LIST", target_nodes=primaries)
        return "ready"
    except exceptions.BusyLoadingError:
        return "loading"
    except exceptions.ResponseError:
        return "ready"  # answers, but without the module: check_query_engine says so
    except (exceptions.RedisError, exceptions.RedisClusterException):
        return None
    finally:
        client.close()


ACK_PROBE_TTL_MS = 60_000
MAP_REFRESH_S = 30.0
MAP_REFRESH_MOST_S = 600.0
#: Per client: when its map may be read again, and the wait after that.
_map_reread: weakref.WeakKeyDictionary[RedisCluster, tuple[float, float]] = (
    weakref.WeakKeyDictionary()
)


def _owner_and_replicas(client: RedisCluster, probe: str) -> list[Any]:
    """The nodes serving *probe*'s slot, master first. A map without a replica is read
    again from the cluster: a replica attached after the client first read the map shows
    up only there, since no MOVED reply ever tells the client about it. The first read
    again comes at once, the next after :data:`MAP_REFRESH_S`, doubling up to
    :data:`MAP_REFRESH_MOST_S` while the cluster still has no replica there (a cluster
    without replicas pays one map read per ten minutes, not one per write)."""
    slot = client.keyslot(probe)
    nodes = client.nodes_manager.slots_cache.get(slot) or []
    now = time.monotonic()
    due, wait = _map_reread.get(client, (now, MAP_REFRESH_S))
    if len(nodes) < 2 and now >= due:
        client.nodes_manager.initialize()
        nodes = client.nodes_manager.slots_cache.get(slot) or []
        if len(nodes) < 2:
            _map_reread[client] = (now + wait, min(wait * 2, MAP_REFRESH_MOST_S))
        else:
            _map_reread.pop(client, None)
    return nodes


def wait_replicated(client: Any, probe: str, timeout_ms: int, replicas: int = 1) -> int | None:
    """Block until *replicas* replicas of the master owning key *probe* have every write
    it acknowledged so far, for at most *timeout_ms*; the replicas that have, or ``None``
    when there is nothing to wait for (one node, no replica, or *timeout_ms* 0).

    ``WAIT`` covers the writes of its own connection: *probe* is written (expiring) on the
    same connection first, so the wait reaches past every earlier write to that master,
    whichever pooled connection made it.

    A write a door acknowledged then survives a failover of its master (the promoted
    replica has it); a replica too slow for *timeout_ms* is logged, not an error: the
    write is stored on the master and ``WAIT`` cannot take it back."""
    if timeout_ms <= 0 or not isinstance(client, RedisCluster):
        return None
    try:
        nodes = _owner_and_replicas(client, probe)
        if len(nodes) < 2:  # a master without replicas
            return None
        pipe = client.get_redis_connection(nodes[0]).pipeline(transaction=False)
        pipe.set(probe, b"1", px=ACK_PROBE_TTL_MS)
        pipe.execute_command("WAIT", replicas, timeout_ms)
        acked = int(pipe.execute()[1])
    except (exceptions.RedisError, exceptions.RedisClusterException) as exc:
        log.warning("WAIT for a replica of %s failed: %s", probe, exc)
        return None
    if acked < replicas:
        log.warning(
            "a write before %s reached %d of %d replica(s) within %d ms", probe, acked, replicas,
            timeout_ms,
        )  # fmt: skip
    return acked
