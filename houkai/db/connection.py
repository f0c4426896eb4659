"""Redis clients: one connection pool per URL per process, checked once for RediSearch."""

from __future__ import annotations

import threading
from typing import cast

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry

from .cluster_client import HoukaiCluster, PrimariesOnly, cluster_nodes, is_cluster_url
from .server import check_query_engine, resolve_url

_clients: dict[str, redis.Redis] = {}
# A dropped connection is retried on the same URL with jittered exponential
# backoff (50 ms doubling to 1 s, 6 tries: about 3 s) before the command fails;
# callers then answer 503 / retry the task, and the next command reconnects.
RETRIES = 6
CONNECT_TIMEOUT = 5.0


def _retry() -> Retry:
    return Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), RETRIES)


_lock = threading.Lock()


def get_client(url: str) -> redis.Redis:
    """A shared binary-safe client for *url* (RESP2, so search replies have one shape).

    The first use of a URL verifies the server has the query engine, so a plain
    Redis fails at start with one clear sentence instead of a stack trace later.
    """
    with _lock:
        client = _clients.get(url)
        if client is None and is_cluster_url(url):
            client = _cluster_client(url)
            check_query_engine(PrimariesOnly(client))
            _clients[url] = client
        elif client is None:
            client = redis.Redis.from_url(
                url,
                protocol=2,
                decode_responses=False,
                health_check_interval=30,
                socket_keepalive=True,
                socket_connect_timeout=CONNECT_TIMEOUT,
                retry=_retry(),
            )
            check_query_engine(client)
            _clients[url] = client
        return client


def _cluster_client(url: str) -> redis.Redis:
    """A :class:`HoukaiCluster` for ``redis+cluster://h:p[,h:p…]``: same options as one
    node; MOVED/ASK are followed and the slot map refreshed on failover by redis-py."""
    nodes, options = cluster_nodes(url)
    client = HoukaiCluster(
        startup_nodes=nodes,
        protocol=2,
        decode_responses=False,
        health_check_interval=30,
        socket_keepalive=True,
        socket_connect_timeout=CONNECT_TIMEOUT,
        retry=_retry(),
        **options,
    )
    return cast(redis.Redis, client)  # the same commands; callers need not tell them apart


def connect(redis_url: str = "", data_dir: str | None = None) -> redis.Redis:
    """Resolve the configured or embedded server and return its shared client."""
    return get_client(resolve_url(redis_url, data_dir))


def reset_clients() -> None:
    """Close every pooled client (tests, forks)."""
    with _lock:
        for client in _clients.values():
            client.close()
        _clients.clear()
