"""A worker survives acks and rejects on a broker channel closed by a Redis restart
(issue 27, item 4): kombu's ``ack → _remove_from_indices`` on the old channel raised
``AttributeError: 'NoneType' object has no attribute 'client'`` and ended the worker."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from houkai.workers.transport import TRANSPORT, Channel
from kombu import Connection, Exchange, Producer, Queue


@pytest.fixture()
def broker(settings) -> Iterator[tuple[Channel, Queue, object]]:
    prefix = f"{settings.key_prefix}:celery-t{uuid.uuid4().hex[:6]}:"
    conn = Connection(
        settings.redis_url, transport=TRANSPORT, transport_options={"global_keyprefix": prefix}
    )
    channel = conn.channel()
    queue = Queue(f"q-{uuid.uuid4().hex[:6]}", Exchange("", type="direct"), routing_key="q")
    queue = queue(channel)
    queue.declare()
    yield channel, queue, channel.fresh_client()
    conn.release()


def _deliver(channel: Channel, queue: Queue, body: str):
    Producer(channel).publish(body, routing_key=queue.name, exchange="")
    message = channel.basic_get(queue.name, no_ack=False)
    assert message is not None and message.payload == body
    return message


def _close_under(channel: Channel) -> None:
    """What a Redis restart leaves behind: the channel's connection and pools gone."""
    channel.connection = None
    channel._pool = None
    channel._async_pool = None


def _unacked(channel: Channel, client) -> set[str]:
    # HKEYS is not among the commands kombu's client prefixes
    return {k.decode() for k in client.hkeys(channel.global_keyprefix + channel.unacked_key)}


def _forgotten(channel: Channel, tag: str) -> bool:
    """The worker no longer counts *tag* as in flight (kombu flushes acked tags lazily)."""
    channel.qos._flush()
    return tag not in channel.qos._delivered


def test_an_ack_on_a_closed_channel_is_settled_and_does_not_raise(broker, caplog):
    channel, queue, client = broker
    message = _deliver(channel, queue, "late ack")
    assert message.delivery_tag in _unacked(channel, client)
    _close_under(channel)
    message.ack()  # was: AttributeError 'NoneType' object has no attribute 'client'
    assert message.delivery_tag not in _unacked(channel, client)
    assert _forgotten(channel, message.delivery_tag)
    assert client.llen(queue.name) == 0  # acked: not redelivered
    assert "closed broker channel settled" in caplog.text


def test_rejects_on_a_closed_channel_requeue_or_drop_as_asked(broker):
    channel, queue, client = broker
    back = _deliver(channel, queue, "requeue me")
    drop = _deliver(channel, queue, "drop me")
    _close_under(channel)
    back.reject(requeue=True)
    drop.reject(requeue=False)
    assert _unacked(channel, client) == set()
    assert client.llen(queue.name) == 1  # the requeued one is back on its queue
    assert _forgotten(channel, back.delivery_tag) and _forgotten(channel, drop.delivery_tag)


def test_an_ack_while_redis_is_still_away_is_left_to_the_sweep(broker, caplog):
    channel, queue, client = broker
    message = _deliver(channel, queue, "redis away")
    _close_under(channel)
    channel._last_params = {**channel._last_params, "port": 1, "socket_connect_timeout": 0.2}
    message.ack()  # must not raise: the worker lives on
    assert message.delivery_tag in _unacked(channel, client)  # the sweep redelivers it
    assert _forgotten(channel, message.delivery_tag)
    assert "stays in Redis's unacked set" in caplog.text


def test_a_script_lost_in_a_restart_is_retried_not_failed(monkeypatch):
    """A restart between a pipeline's script load and its EVALSHA (seen in the 20-restart
    run: a batch failed with NoScriptError and stayed pending until reconcile)."""
    import redis
    from houkai.workers import tasks

    from houkai.app.errors import classify

    monkeypatch.setattr(tasks.time, "sleep", lambda _s: None)
    calls = []

    def body():
        calls.append(1)
        if len(calls) == 1:
            raise redis.exceptions.NoScriptError("No matching script.")
        return "done"

    assert tasks.until_redis_is_back(body, "embed batch") == "done" and len(calls) == 2
    assert classify(redis.exceptions.NoScriptError("No matching script."))[0] == 503
