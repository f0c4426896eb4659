"""kombu's Redis transport, made to survive a Redis restart under a running worker.

When the broker connection drops while tasks are delivered but not yet acked
(``task_acks_late``), kombu closes the channel: its connection becomes ``None``
and its connection pools are dropped. Everything that later needs the closed
channel's Redis then fails with an ``AttributeError`` (``'NoneType' object has
no attribute 'client'``) that escapes Celery's connection-error handling and
ends the worker ("Unrecoverable error", ``workers_alive: 0``):

* the restore of the delivered messages when the channel closes, and
* the ack (or reject) of a task that was running through the outage and
  finishes afterwards: ``ack → _remove_from_indices`` on the old channel
  (issue 27: once in ten Redis restarts).

Here each of them is survived. A restore that fails is logged and skipped: the
messages stay in Redis's unacked set, so the periodic unacked sweep returns them
after the visibility timeout, and houkai's in-flight records re-queue the tasks
that were running much sooner (see ``houkai.pipeline.jobs.track_task``). An ack or
reject on a closed channel is settled through a fresh client built from the
connection parameters the channel last used (the message leaves the unacked set,
or goes back to its queue); if Redis is still away, it stays in the unacked set
for the sweep (a redelivery, harmless: tasks are idempotent). Either way the
worker keeps running and forgets the message locally.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from kombu.transport import redis as kombu_redis
from kombu.transport import virtual

log = logging.getLogger(__name__)

TRANSPORT = "houkai.workers.transport:Transport"

#: What kombu raises when the channel under a message has been closed, or Redis is away.
DEAD_CHANNEL = (AttributeError, redis.RedisError, OSError)


class QoS(kombu_redis.QoS):
    channel: Channel

    def restore_unacked(self, client: Any = None) -> Any:
        try:
            return super().restore_unacked(client)
        except DEAD_CHANNEL as exc:
            delivered: Any = self._delivered
            log.warning(
                "broker connection lost: %d delivered message(s) stay in Redis's unacked set "
                "(restored by the sweep) (%s)",
                len(delivered),
                exc,
            )
            delivered.clear()
            return None

    def ack(self, delivery_tag: Any) -> None:
        try:
            super().ack(delivery_tag)
        except DEAD_CHANNEL as exc:
            self._settle_late(delivery_tag, exc, requeue=False, verb="ack")

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        try:
            super().reject(delivery_tag, requeue=requeue)
        except DEAD_CHANNEL as exc:
            self._settle_late(delivery_tag, exc, requeue=requeue, verb="reject")

    def _settle_late(self, tag: Any, exc: BaseException, *, requeue: bool, verb: str) -> None:
        """Settle *tag* in Redis through a fresh client, then forget it here, whatever fails."""
        try:
            client = self.channel.fresh_client()
            if client is None:
                raise RuntimeError("the channel never connected")
            try:
                if requeue:
                    self.restore_by_tag(tag, client=client, leftmost=True)
                else:
                    self._remove_from_indices(tag, client.pipeline()).execute()
            finally:
                client.connection_pool.disconnect()
            log.warning("%s of a message on a closed broker channel settled anew (%s)", verb, exc)
        except Exception as late:  # Redis still away: the unacked sweep redelivers it
            log.warning(
                "%s of a message on a closed broker channel failed (%s; then %s): it stays in "
                "Redis's unacked set and the sweep redelivers it",
                verb,
                exc,
                late,
            )
        virtual.QoS.ack(self, tag)  # never leave it counted as in flight here


class Channel(kombu_redis.Channel):
    QoS = QoS
    _last_params: dict[str, Any] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._connparams()  # remembered now: the first sync use may come after a close

    def _connparams(self, asynchronous: bool = False) -> Any:
        params = super()._connparams(asynchronous=asynchronous)
        if not asynchronous:
            self._last_params = dict(params)  # kept for a late ack after the channel closed
        return params

    def fresh_client(self) -> Any:
        """A client on the Redis this channel last used (its own pool: the channel's is
        gone once it closed), with the channel's key prefix; None if it never connected."""
        if self._last_params is None:
            return None
        return self.Client(connection_pool=redis.ConnectionPool(**self._last_params))


class Transport(kombu_redis.Transport):
    Channel = Channel
