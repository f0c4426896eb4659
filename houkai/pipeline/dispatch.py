"""Task names, their queues, and the enqueue callable the write path sends through.

The one place the Celery task names live: the workers register their tasks
under these names (:mod:`houkai.workers.tasks`), the pipeline and the beat
schedule send by name. The pipeline never imports the worker app; it is
given an :data:`Enqueue` callable (the default one is built from the worker
app's *sender* configuration, which imports no task and no pipeline code).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..domain.config import Settings

EMBED_BATCH = "houkai.embed_batch"
MAINTENANCE_TICK = "houkai.maintenance_tick"
EXTRACT_SESSION = "houkai.extract_session"  # a session's new messages → memories (issue 30)
# Each task's queue, so each kind of work scales and is prioritised apart.
TASK_QUEUES: dict[str, str] = {
    EMBED_BATCH: "embed",
    MAINTENANCE_TICK: "maintenance",
    EXTRACT_SESSION: "extract",
}
QUEUES: tuple[str, ...] = ("embed", "maintenance", "extract")

# ``enqueue(task_name, kwargs, task_id)``: send one task to its queue under the
# given id (the id its outbox entry has, see :mod:`houkai.pipeline.outbox`);
# raises when the broker refuses (the pipeline then embeds the batch in-process).
Enqueue = Callable[[str, dict[str, Any], str], None]


class TaskSender(Protocol):
    """What :func:`app_enqueue` needs of a Celery app (or a test double)."""

    def send_task(self, name: str, kwargs: dict[str, Any], queue: str, task_id: str) -> Any: ...


def app_enqueue(app: TaskSender) -> Enqueue:
    """An :data:`Enqueue` that sends through *app* to the task's routed queue."""

    def enqueue(name: str, kwargs: dict[str, Any], task_id: str) -> None:
        app.send_task(name, kwargs=kwargs, queue=TASK_QUEUES[name], task_id=task_id)

    return enqueue


def default_enqueue(settings: Settings) -> Enqueue:
    """Send through the worker app configured for *settings* (its broker and prefix)."""
    from ..workers.app import get_app

    return app_enqueue(get_app(settings))
