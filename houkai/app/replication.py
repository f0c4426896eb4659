"""Writes a door acknowledges survive a master failover (ADR 0079).

On a Redis Cluster whose masters have replicas, every operation declared ``writes``
returns only after one replica of its collection's master has the write (``WAIT``,
bounded by ``cluster_replica_wait_ms``). One node, masters without replicas, or the
setting at 0: nothing is waited for. The wrapper is applied once, where operations are
bound (:func:`houkai.app.operations.bind.operation`), so every door gets it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..db.cluster_client import is_cluster_url, wait_replicated
from ..db.keys import Keys


def acknowledged(method: Callable[..., Any]) -> Callable[..., Any]:
    """*method* (a collection-scoped write of the service) followed by the replica wait."""

    @functools.wraps(method)
    def call(self: Any, *args: Any, **options: Any) -> Any:
        result = method(self, *args, **options)
        settings = getattr(self, "settings", None)
        if settings is not None and is_cluster_url(settings.redis_url or ""):
            replicate(self, options.get("collection"))
        return result

    return call


def replicate(service: Any, collection: str | None) -> int | None:
    """Wait for a replica of *collection*'s master (see :func:`wait_replicated`)."""
    from ..db.connection import connect

    settings = service.settings
    if settings.cluster_replica_wait_ms <= 0:
        return None
    name = collection or settings.collection
    client = connect(settings.redis_url)
    probe = Keys(settings.key_prefix, name).ack
    return wait_replicated(client, probe, settings.cluster_replica_wait_ms)
