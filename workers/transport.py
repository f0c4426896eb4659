"""kombu's Redis transport, made to survive a Redis restart under a running worker.

When the broker connection drops while tasks are delivered but not yet acked
(``task_acks_late``), kombu closes the channel and tries to push those messages
back to their queues. With kombu 5.7 that restore can fail with an
``AttributeError`` (the transport was already detached from its connection),
which escapes Celery's connection-error handling and ends the worker
("Unrecoverable error"). Here the failed restore is logged and skipped: the
messages stay in Redis's unacked set, so the periodic unacked sweep returns them
after the visibility timeout, and houkai's in-flight records re-queue the tasks
that were running much sooner (see ``houkai.pipeline.jobs.track_task``).
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from kombu.transport import redis as kombu_redis

log = logging.getLogger(__name__)

TRANSPORT = "houkai.workers.transport:Transport"


class QoS(kombu_redis.QoS):
    def restore_unacked(self, client: Any = None) -> Any:
        try:
            return super().restore_unacked(client)
        except (AttributeError, redis.RedisError, OSError) as exc:
            delivered: Any = self._delivered
            log.warning(
                "broker connection lost: %d delivered message(s) stay in Redis's unacked set "
                "(restored by the sweep) (%s)",
                len(delivered),
                exc,
            )
            delivered.clear()
            return None


class Channel(kombu_redis.Channel):
    QoS = QoS


class Transport(kombu_redis.Transport):
    Channel = Channel
