"""The REST server's runtime file: how a CLI on the same machine finds a running server.

``houkai serve`` (and so ``houkai up``) records ``houkai-api.json`` in the data dir,
as :mod:`houkai.db.server` records ``houkai-redis.json`` for Redis (same helpers):
the URL a local client connects to, the pid, when it started, the key prefix,
Redis target and default collection it serves, whether it requires tokens, and a
per-start ``instance`` nonce the server stamps on every reply (``X-Houkai-Server``),
so a client can tell *this* server from another one that took the port later.

Tokens are never written: only salted SHA-256 fingerprints, so a CLI holding a
token can tell whether the server accepts it *before* sending it (a wrong token
counts against the address's wrong-token limiter, and loopback clients share
one address). The file is private to its owner; whoever can read it can read
the data directory's Redis files anyway. It is removed on a clean exit; one
naming a dead pid, or a process that is no houkai server, is stale and ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from ..db.runtime_files import process_alive, read_runtime, write_runtime
from ..db.server import display_url

log = logging.getLogger(__name__)

API_FILE = "houkai-api.json"
#: Words in a live server's command line (``houkai serve``, gunicorn's master).
_MARKERS = (b"houkai", b"gunicorn")
#: The response header carrying the server's instance nonce.
INSTANCE_HEADER = "X-Houkai-Server"
#: The request header a client names itself in, for the journal's ``actor`` ("cli": a
#: command the CLI sent through a running server is journaled as the CLI's, not "http").
ACTOR_HEADER = "X-Houkai-Actor"


@dataclass(frozen=True)
class ApiServer:
    """What ``houkai-api.json`` says about a running REST server."""

    url: str
    pid: int
    started_at: float
    instance: str
    key_prefix: str
    redis: str  # display_url of the Redis it serves (a password masked)
    collection: str  # its default collection
    tokens_required: bool
    salt: str = ""
    fingerprints: tuple[str, ...] = ()

    def accepts(self, token: str) -> bool:
        """Would the server accept *token*? (Compared by fingerprint, never sent.)"""
        return fingerprint(self.salt, token) in self.fingerprints


def fingerprint(salt: str, token: str) -> str:
    return hashlib.sha256(f"{salt}\0{token}".encode("utf-8", "surrogateescape")).hexdigest()


def connect_url(host: str, port: int) -> str:
    """The URL a local client reaches a server bound to *host*:*port* at: a wildcard bind
    is reached on loopback (a name the Host policy accepts)."""
    host = (host or "").strip().strip("[]")
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _path(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir).expanduser().resolve() / API_FILE


def record(
    *,
    data_dir: str,
    host: str,
    port: int,
    key_prefix: str,
    redis_url: str,
    collection: str,
    tokens: Iterable[str],
    pid: int | None = None,
) -> ApiServer:
    """Write the runtime file of the server this process is (or, after exec, becomes)."""
    salt = secrets.token_hex(8)
    listed = sorted(set(tokens))
    server = ApiServer(
        url=connect_url(host, port),
        pid=pid or os.getpid(),
        started_at=round(time.time(), 3),
        instance=secrets.token_hex(8),
        key_prefix=key_prefix,
        redis=display_url(redis_url) if redis_url else "",
        collection=collection,
        tokens_required=bool(listed),
        salt=salt,
        fingerprints=tuple(fingerprint(salt, t) for t in listed),
    )
    path = _path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_runtime(path, asdict(server), private=True)
    return server


def remove(data_dir: str, server: ApiServer) -> None:
    """Remove the runtime file if it still names *server* (a newer server's stays)."""
    current = find(data_dir, check_pid=False)
    if current is not None and current.instance == server.instance:
        with contextlib.suppress(OSError):
            _path(data_dir).unlink()


@contextlib.contextmanager
def recorded(**fields: object) -> Iterator[ApiServer]:
    """:func:`record` for the lifetime of the block, removed on the way out."""
    server = record(**fields)  # type: ignore[arg-type]
    try:
        yield server
    finally:
        remove(str(fields["data_dir"]), server)


def find(data_dir: str | os.PathLike, *, check_pid: bool = True) -> ApiServer | None:
    """The server the data dir's runtime file names, when it is well formed and (with
    *check_pid*) its process lives and is a houkai server; else None (stale or absent)."""
    state = read_runtime(_path(data_dir))
    if not state:
        return None
    try:
        server = ApiServer(
            url=str(state["url"]),
            pid=int(state["pid"]),
            started_at=float(state.get("started_at") or 0),
            instance=str(state["instance"]),
            key_prefix=str(state["key_prefix"]),
            redis=str(state.get("redis") or ""),
            collection=str(state.get("collection") or ""),
            tokens_required=bool(state.get("tokens_required")),
            salt=str(state.get("salt") or ""),
            fingerprints=tuple(str(f) for f in state.get("fingerprints") or ()),
        )
    except (KeyError, TypeError, ValueError):
        log.debug("ignoring a malformed %s in %s", API_FILE, data_dir)
        return None
    if check_pid and not process_alive(server.pid, _MARKERS):
        log.debug("ignoring a stale %s (pid %s is gone)", API_FILE, server.pid)
        return None
    return server
