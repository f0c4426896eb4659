"""The seed's ``MaintenanceScheduler``: :func:`houkai.pipeline.maintenance.tick` with
per-instance options, an optional seed state file and a loop for a process without beat."""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..domain.config import Settings
from .maintenance import MaintenanceState, TickResult, tick

if TYPE_CHECKING:
    from ..store import MemoryStore
    from ..store.reflection import Consolidate

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------- seed facade
@contextlib.contextmanager
def _file_lock(path: Path):
    """An exclusive ``flock`` on *path* (created), so tickers sharing a state file serialise."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: Redis still serialises the jobs
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class MaintenanceScheduler:
    """The seed's ``MaintenanceScheduler``: :func:`tick` with per-instance options.

    Intervals are seconds (``None`` disables a job); the engine options map onto
    the ``maintenance_*`` settings of this instance only. The schedule state is
    houkai's, in Redis per collection and shared with the beat-triggered worker
    task and ``houkai maintenance tick``, so two schedulers on one collection
    never double-run a job; a ``state_path`` additionally keeps the seed's
    state file (see :meth:`tick`).
    ``run_forever`` is for a process without Celery beat (``houkai beat`` is
    the deployed equivalent).
    """

    def __init__(
        self,
        store: MemoryStore,
        decay_every: float | None = 86_400,
        reflect_every: float | None = 604_800,
        purge_every: float | None = 86_400,
        tick_interval: float = 300,
        state_path: str | None = None,
        decay_rate: float = 0.1,
        min_score: float = 0.05,
        protect_types: tuple[str, ...] = ("procedural",),
        frequency_weight: float = 0.0,
        min_cluster_size: int = 3,
        reflect_apply: bool = False,
        reflect_consolidate: bool | str = True,
        summarizer: Any = None,
        *,
        lock_wait: float = 30.0,
    ) -> None:
        self.store = store
        self.decay_every = decay_every
        self.reflect_every = reflect_every
        self.purge_every = purge_every
        self.tick_interval = tick_interval
        self.state_path = state_path
        self.decay_rate = decay_rate
        self.min_score = min_score
        self.protect_types = tuple(protect_types)
        self.frequency_weight = frequency_weight
        self.min_cluster_size = min_cluster_size
        self.reflect_apply = reflect_apply
        self.reflect_consolidate = reflect_consolidate
        self.summarizer = summarizer
        self.lock_wait = lock_wait

    def settings(self) -> Settings:
        """The store's settings with this scheduler's intervals and engine options."""
        changes: dict[str, Any] = {
            "maintenance_decay_rate": float(self.decay_rate),
            "maintenance_decay_min_score": float(self.min_score),
            "maintenance_decay_protect_types": ",".join(self.protect_types),
            "maintenance_decay_frequency_weight": float(self.frequency_weight),
            "maintenance_reflect_min_cluster_size": int(self.min_cluster_size),
            "maintenance_reflect_apply": bool(self.reflect_apply),
        }
        for job in ("decay", "reflect", "purge"):
            every = getattr(self, f"{job}_every")
            changes[f"maintenance_{job}_enabled"] = every is not None
            if every is not None:
                changes[f"maintenance_{job}_every"] = f"{float(every)}s"
        if isinstance(self.summarizer, str):
            changes["maintenance_reflect_summarizer"] = self.summarizer
        return self.store.settings.replace(**changes)

    def _reflect(self, store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
        from ..engines.summarizers import build_summarizer
        from ..store.reflection import ReflectionEngine

        summarizer = self.summarizer
        if summarizer is None or isinstance(summarizer, str):
            summarizer = build_summarizer(settings.maintenance_reflect_summarizer)
        engine = ReflectionEngine(
            store,
            similarity_threshold=settings.maintenance_reflect_similarity_threshold,
            min_cluster_size=settings.maintenance_reflect_min_cluster_size,
            summarizer=summarizer,
        )
        # Applied summaries consolidate their sources (soft by default, as the
        # seed), so the next scheduled run does not summarise them again.
        consolidate = self.reflect_consolidate if apply else False
        with store.as_actor("reflection"):
            mode = cast("Consolidate", consolidate)  # validated by the engine
            return len(engine.reflect(dry_run=not apply, consolidate=mode))

    def tick(self, now: float | None = None) -> TickResult:
        """Run the overdue jobs once (see :func:`tick`).

        With a ``state_path``, the seed's state file is kept in step under a lock
        file next to it: a newer stamp in the file also gates the jobs, and the
        file records this tick's runs and totals (summaries only when applied).
        """
        t = time.time() if now is None else now
        if not self.state_path:
            return self._tick(t)
        path = Path(self.state_path).expanduser()
        with _file_lock(path.with_suffix(".lock")):
            seed = MaintenanceState.load(path)
            self._import_stamps(seed)
            result = self._tick(t)
            for job, count in (
                ("decay", result.decayed),
                ("reflect", result.reflected if result.reflect_applied else 0),
                ("purge", result.purged),
            ):
                if getattr(result, f"ran_{job}") and not getattr(result, f"{job}_error"):
                    setattr(seed, f"last_{job}_at", t)
                    total = f"total_{job}ed" if job != "purge" else "total_purged"
                    setattr(seed, total, int(getattr(seed, total) or 0) + int(count))
            seed.save(path)
        return result

    def _tick(self, t: float) -> TickResult:
        return tick(
            self.store,
            self.settings(),
            now=t,
            reflect_apply=self.reflect_apply,
            lock_wait=self.lock_wait,
            runners={"reflect": self._reflect},
        )

    def _import_stamps(self, seed: MaintenanceState) -> None:
        """A job the state file saw run more recently than Redis did counts as run then."""
        state = MaintenanceState(self.store)
        current = state.load()
        newer = {}
        for job in ("decay", "reflect", "purge"):
            stamp = getattr(seed, f"last_{job}_at")
            if stamp and float(stamp) > float(current.get(f"{job}:last_success") or 0):
                newer[f"{job}:last_success"] = repr(float(stamp))
        if newer:
            state.client.hset(state.key, mapping=newer)

    def run_forever(self, stop: Any = None) -> None:
        """Tick every ``tick_interval`` seconds until *stop* (a ``threading.Event``) is set."""
        import threading

        stop = stop or threading.Event()
        log.info("maintenance scheduler for %s started", self.store.collection_name)
        while not stop.is_set():
            try:
                self.tick()
            except Exception:  # the loop outlives a failed tick
                log.exception("maintenance tick failed for %s", self.store.collection_name)
            stop.wait(timeout=float(self.tick_interval))
        log.info("maintenance scheduler for %s stopped", self.store.collection_name)
