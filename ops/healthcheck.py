#!/usr/bin/env python3
"""Health probes for houkai's process roles (docker-compose healthchecks, Procfile checks).

    python ops/healthcheck.py web|mcp|worker|beat|redis [--timeout SECONDS] [--any]

Exit status 0 means healthy; otherwise one line on stderr says why. Every probe reads
the same configuration as the process it checks (``HOUKAI_*`` / ``REDIS_URL`` env,
config file), so the probe and the server can never disagree about ports or prefixes.

* ``web``    GET ``/health`` of the REST API (port ``$PORT``, else ``HOUKAI_HTTP_PORT``)
  answers 200 with ``status: ok`` (it also counts the default collection, so Redis and
  the index are reachable).
* ``mcp``    an MCP ``initialize`` POST to ``/mcp`` answers 200 with ``serverInfo``
  (the first token of ``HOUKAI_HTTP_TOKENS`` is sent when tokens are configured).
* ``worker`` this host's embedding worker has a fresh heartbeat in Redis (the same
  signal the pipeline uses to decide whether to enqueue); ``--any`` accepts a
  heartbeat from any host.
* ``beat``   the redbeat lock is held (only a live beat keeps extending it).
* ``redis``  PING answers and the query engine (``FT._LIST``) is loaded.
* ``flower`` Flower's ``/healthcheck`` answers ``OK`` (port ``FLOWER_PORT``, default 5555).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request
from typing import Any

ROLES = ("web", "mcp", "worker", "beat", "redis", "flower")


class Unhealthy(Exception):
    """The probed role did not answer as a healthy one does."""


def _settings() -> Any:
    from houkai.domain.config import load_settings

    return load_settings()


def _local(host: str) -> str:
    """The address to probe for a server bound to *host* (wildcards mean loopback)."""
    return "127.0.0.1" if host in ("", "0.0.0.0", "::", "*") else host


def _http(
    url: str, timeout: float, *, data: bytes | None = None, headers: dict | None = None
) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        raise Unhealthy(f"{url}: {getattr(exc, 'reason', exc)}") from None


def _first_token(spec: str) -> str | None:
    """The bearer token of the first grant in ``tok[:colls][:ro],tok2…``."""
    for part in (spec or "").split(","):
        token = part.strip().split(":", 1)[0].strip()
        if token:
            return token
    return None


def check_web(timeout: float, url: str | None = None) -> str:
    s = _settings()
    # $PORT first, like the Procfile's web line (honcho/foreman set it per process).
    port = os.environ.get("PORT") or s.http_port
    url = url or f"http://{_local(s.http_host)}:{port}/health"
    status, body = _http(url, timeout)
    if status != 200:
        raise Unhealthy(f"{url} answered {status}: {body[:200]!r}")
    try:
        payload = json.loads(body)
    except ValueError:
        raise Unhealthy(f"{url} did not answer JSON: {body[:200]!r}") from None
    if payload.get("status") != "ok":
        raise Unhealthy(f"{url} status is {payload.get('status')!r}")
    return f"web ok ({payload.get('count')} memories in the default collection)"


def check_mcp(timeout: float, url: str | None = None) -> str:
    s = _settings()
    url = url or f"http://{_local(s.mcp_host)}:{s.mcp_port}/mcp"
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "houkai-healthcheck", "version": "1"},
        },
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    token = _first_token(s.http_tokens)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    status, body = _http(url, timeout, data=json.dumps(message).encode(), headers=headers)
    if status != 200:
        raise Unhealthy(f"{url} answered {status}: {body[:200]!r}")
    text = body.decode("utf-8", "replace")
    if "serverInfo" not in text:
        raise Unhealthy(f"{url} answered without serverInfo: {text[:200]!r}")
    return "mcp ok"


def _redis(timeout: float) -> tuple[Any, Any]:
    import redis

    s = _settings()
    url = s.redis_url
    if not url:  # the embedded server: probe it, never start it
        from houkai.db import server as redis_server

        info = redis_server.status(s.data_dir)
        if info is None:
            raise Unhealthy(f"the embedded Redis Stack under {s.data_dir} is not running")
        url = info.url
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    return client, s


def check_worker(timeout: float, any_host: bool = False) -> str:
    import redis

    from houkai.pipeline.jobs import HEARTBEAT_TTL, workers_key

    client, s = _redis(timeout)
    try:
        beats = client.zrangebyscore(
            workers_key(s.key_prefix), time.time() - HEARTBEAT_TTL, "+inf", withscores=True
        )
    except redis.RedisError as exc:
        raise Unhealthy(f"redis: {exc}") from None
    finally:
        client.close()
    names = [n.decode() if isinstance(n, bytes) else str(n) for n, _ in beats]
    # Worker heartbeat names are "<celery hostname>:<pid>", the hostname "celery@<host>".
    host = socket.gethostname()
    mine = names if any_host else [n for n in names if n.split(":", 1)[0].endswith("@" + host)]
    if not mine:
        where = "any host" if any_host else f"host {host}"
        raise Unhealthy(
            f"no embedding worker heartbeat from {where} in the last {HEARTBEAT_TTL:g}s "
            f"(fresh: {', '.join(names) or 'none'})"
        )
    return f"worker ok ({', '.join(mine)})"


def check_beat(timeout: float) -> str:
    import redis

    client, s = _redis(timeout)
    key = f"{s.key_prefix}:redbeat:lock"
    try:
        held = client.exists(key)
    except redis.RedisError as exc:
        raise Unhealthy(f"redis: {exc}") from None
    finally:
        client.close()
    if not held:
        raise Unhealthy(f"beat lock {key} is not held: no beat is scheduling maintenance")
    return "beat ok"


def check_redis(timeout: float) -> str:
    import redis

    client, _s = _redis(timeout)
    try:
        client.ping()
        client.execute_command("FT._LIST")
    except redis.RedisError as exc:
        raise Unhealthy(f"redis: {exc}") from None
    finally:
        client.close()
    return "redis ok"


def check_flower(timeout: float, url: str | None = None) -> str:
    url = url or f"http://127.0.0.1:{os.environ.get('FLOWER_PORT', '5555')}/healthcheck"
    status, body = _http(url, timeout)
    if status != 200 or body.strip() != b"OK":
        raise Unhealthy(f"{url} answered {status}: {body[:200]!r}")
    return "flower ok"


def probe(
    role: str, timeout: float = 5.0, *, any_host: bool = False, url: str | None = None
) -> str:
    """Run one probe; return a short success line or raise :class:`Unhealthy`."""
    if role == "web":
        return check_web(timeout, url)
    if role == "mcp":
        return check_mcp(timeout, url)
    if role == "worker":
        return check_worker(timeout, any_host)
    if role == "beat":
        return check_beat(timeout)
    if role == "redis":
        return check_redis(timeout)
    if role == "flower":
        return check_flower(timeout, url)
    raise ValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="healthcheck", description=__doc__.split("\n")[0])
    parser.add_argument("role", choices=ROLES)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per network call")
    parser.add_argument("--any", action="store_true", help="worker: accept any host's heartbeat")
    parser.add_argument("--url", default=None, help="web/mcp/flower: probe this URL instead")
    args = parser.parse_args(argv)
    try:
        line = probe(args.role, args.timeout, any_host=args.any, url=args.url)
    except Unhealthy as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a probe that crashes is an unhealthy answer, not a traceback
        print(f"unhealthy: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
