"""When a session's extraction runs: after K new messages, or T seconds idle (debounced).

Adding messages records the session as due at ``now + T`` (every new message pushes it
back: a ZSET score), or due now once K or more messages are pending, in the one Lua call
that stores them. The workers' due-session sweep (:func:`sweep_due`, about every second
in one worker at a time) sends ``houkai.extract_session`` for every due session (one
queued job per session at a time: a marker key). So a message costs the request one
Redis round trip and never a broker publish, whatever K or the extractor, and the broker
holds no pile of countdown tasks. Each send is written to the outbox first
(:mod:`houkai.pipeline.outbox`), so one lost on its way to a worker is sent again.

Without workers (``pipeline_mode="inline"``, or ``auto`` while none is alive) nothing
is sent: the session stays due, and a worker sends what is overdue once one runs;
``houkai session extract`` runs it by hand.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from ..db.decode import as_text
from ..db.keys import Keys
from ..domain.config import Settings, parse_duration
from ..pipeline import outbox
from ..pipeline.dispatch import EXTRACT_SESSION, TASK_QUEUES
from ..pipeline.jobs import workers_alive

log = logging.getLogger(__name__)

#: how long the "queued" marker of an immediate extraction lasts at most (seconds)
QUEUED_TTL = 600
#: a due session this long overdue is sent again by the heartbeat's sweep (a send lost)
SWEEP_GRACE = 30.0


def idle_seconds(settings: Settings) -> float:
    return parse_duration(settings.extract_after_idle)


def use_workers(client: Any, prefix: str, settings: Settings) -> bool:
    if settings.pipeline_mode == "inline":
        return False
    return settings.pipeline_mode == "celery" or workers_alive(client, prefix) > 0


def send(
    client: Any,
    settings: Settings,
    keys: Keys,
    session_id: str,
    *,
    app: Any = None,
    task_id: str | None = None,
) -> str | None:
    """Send one extraction job (outbox first); its task id, or None when the broker
    refused (the session stays due: the sweep sends it later)."""
    kwargs = {
        "prefix": keys.prefix,
        "collection": keys.collection,
        "session_id": session_id,
    }
    task_id = task_id or str(uuid.uuid4())
    try:
        outbox.record(client, keys.prefix, task_id, EXTRACT_SESSION, kwargs)
        if app is None:
            from ..workers.app import get_app

            app = get_app(settings)
        app.send_task(
            EXTRACT_SESSION, kwargs=kwargs, queue=TASK_QUEUES[EXTRACT_SESSION], task_id=task_id
        )
        return task_id
    except Exception as exc:  # the messages are stored: nothing is lost, only later
        log.warning("could not enqueue extraction of session %s (%s)", session_id, exc)
        try:
            outbox.settle(client, keys.prefix, task_id)
        except Exception:
            log.debug("could not clear outbox entry %s", task_id)
        return None


def threshold(settings: Settings) -> int:
    """K: with this many messages pending a session is due at once."""
    return max(1, settings.extract_after_messages)


def due_now(settings: Settings, added: int, pending: int) -> bool:
    """Whether a just-added batch made its session due now (K reached): the workers'
    sweep then sends its extraction within about a second."""
    return added > 0 and settings.pipeline_mode != "inline" and pending >= threshold(settings)


def sweep_due(
    client: Any,
    settings: Settings,
    app: Any = None,
    now: float | None = None,
    grace: float = SWEEP_GRACE,
) -> int:
    """Send the extraction of every session due for at least *grace* seconds in every
    collection of the prefix (idle sessions with grace 0, about every second; a send lost
    with its worker, or messages added while no worker ran, with the default grace).
    Returns how many were sent."""
    now = time.time() if now is None else now
    prefix = settings.key_prefix
    sent = 0
    for raw in client.smembers(Keys.registry(prefix)):
        keys = Keys(prefix, as_text(raw))
        for sid_raw in client.zrangebyscore(keys.sessions_due, "-inf", now - grace):
            sid = as_text(sid_raw)
            if not client.set(keys.session_queued(sid), "1", nx=True, ex=QUEUED_TTL):
                continue
            if send(client, settings, keys, sid, app=app) is None:
                client.delete(keys.session_queued(sid))
                continue
            # not due again until the job had time to run
            client.zadd(keys.sessions_due, {sid: now + QUEUED_TTL}, xx=True)
            sent += 1
    return sent
