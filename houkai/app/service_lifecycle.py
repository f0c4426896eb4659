"""Curation of a whole collection: findability check, decay pruning, reflection and the
maintenance tick."""

from __future__ import annotations

import time
from typing import Any, Literal

from ..domain.errors import BadRequest, Unavailable
from ..domain.model import StateConflict
from .operations import params as params
from .operations.bind import operation
from .service_base import ServiceBase
from .shapes import memory_to_dict


class LifecycleOps(ServiceBase):
    """Operations that sweep a collection (on demand or scheduled)."""

    @operation("check_findable")
    def check_findable(
        self, p: params.CheckFindable, *, collection: str | None = None
    ) -> dict[str, Any]:
        """A findability check of the collection now (the maintenance job's, on demand)."""
        from ..store.findability import check

        s = self.settings
        report = check(
            self.read_store(collection),
            sample=s.maintenance_findable_sample if p.sample is None else p.sample,
            repair=p.repair,
            text=p.text,
            threshold=s.maintenance_findable_threshold,
        )
        return report.to_dict()

    @operation("prune")
    def prune(self, p: params.Prune, *, collection: str | None = None) -> dict[str, Any]:
        """Decay pruning: the candidates with their scores, deleted unless ``dry_run``."""
        from ..store.decay import DecayEngine

        s = self.settings
        protect: list[str] = list(p.protect or ())
        if p.protect is None:
            protect = [t.strip() for t in s.maintenance_decay_protect_types.split(",") if t.strip()]
        engine = DecayEngine(
            self.read_store(collection),
            decay_rate=s.maintenance_decay_rate if p.decay_rate is None else p.decay_rate,
            min_score=s.maintenance_decay_min_score if p.min_score is None else p.min_score,
            protect_types=tuple(protect),
            frequency_weight=(
                s.maintenance_decay_frequency_weight
                if p.frequency_weight is None
                else p.frequency_weight
            ),
        )
        candidates = engine.prune(dry_run=True)
        scored = [memory_to_dict(m, score=engine.score(m)) for m in candidates]
        pruned = len(engine.prune(dry_run=False)) if candidates and not p.dry_run else 0
        return {"dry_run": p.dry_run, "count": len(scored), "pruned": pruned, "memories": scored}

    @operation("reflect")
    def reflect(self, p: params.Reflect, *, collection: str | None = None) -> dict[str, Any]:
        """Summarise clusters of similar episodic memories (previews when ``dry_run``)."""
        from ..engines.summarizers import build_summarizer
        from ..store.reflection import ReflectionEngine

        s = self.settings
        try:
            summarizer = build_summarizer(
                s.maintenance_reflect_summarizer if p.summarizer is None else p.summarizer
            )
        except ImportError as exc:  # well-formed, but this install lacks the provider's SDK
            raise StateConflict(f"summarizer: {exc}") from None
        except ValueError as exc:
            raise BadRequest(f"summarizer: {exc}") from None
        engine = ReflectionEngine(
            self.read_store(collection),
            similarity_threshold=(
                s.maintenance_reflect_similarity_threshold if p.threshold is None else p.threshold
            ),
            min_cluster_size=(
                s.maintenance_reflect_min_cluster_size
                if p.min_cluster_size is None
                else p.min_cluster_size
            ),
            summarizer=summarizer,
        )
        if p.dry_run:
            memories = engine.reflect(dry_run=True)
        else:
            hard: bool | Literal["hard"] = (
                "hard" if p.consolidate == "hard" else p.consolidate == "soft"
            )
            memories = engine.reflect(dry_run=False, consolidate=hard)
        return {
            "dry_run": p.dry_run,
            "count": len(memories),
            "memories": [memory_to_dict(m) for m in memories],
        }

    # ------------------------------------------------------------------ operations
    @operation("maintenance_tick")
    def maintenance_tick(
        self, p: params.MaintenanceTick, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Run every due maintenance job once (schedule-gated, safe to call often)."""
        try:
            from ..pipeline.maintenance import JOB_NAMES, job_interval, tick
        except ImportError:
            raise Unavailable("maintenance is not available") from None
        result = tick(
            self.read_store(collection),
            self.settings,
            force=p.force,
            reflect_apply=p.reflect_apply,
            lock_wait=p.lock_wait or 0.0,
        ).to_dict()
        # The seed's flag: false when maintenance is switched off (every job disabled).
        enabled = any(job_interval(self.settings, job) is not None for job in JOB_NAMES)
        if not enabled:
            result["summary"] = "maintenance disabled (every maintenance job is off)"
        return {"enabled": enabled, **result}

    def maintenance_tick_all(
        self, *, force: bool = False, reflect_apply: bool | None = None
    ) -> dict[str, dict[str, Any]]:
        """Tick every collection under the key prefix (``maintenance tick --all``, the
        foreground scheduler); one collection's failure never stops the rest."""
        from ..pipeline.maintenance import tick_all

        return tick_all(self.settings, force=force, reflect_apply=reflect_apply)

    def maintenance_status(self, *, collection: str | None = None) -> dict[str, Any]:
        """Each maintenance job's schedule, last run, last error and next due time."""
        from ..pipeline.maintenance import status

        return status(self.read_store(collection), self.settings)

    def decay_report(
        self,
        *,
        stale_days: float,
        decay_rate: float | None = None,
        frequency_weight: float | None = None,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Decay buckets and at-risk counts (``houkai stats --health``), streamed with the
        same engine ``prune`` uses."""
        from ..store.decay import DecayEngine
        from ..store.observability import BUCKET_LABELS as BUCKETS  # en dash, as the seed's

        s = self.settings
        protect = tuple(
            t.strip() for t in s.maintenance_decay_protect_types.split(",") if t.strip()
        )
        engine = DecayEngine(
            self.read_store(collection),
            decay_rate=s.maintenance_decay_rate if decay_rate is None else decay_rate,
            min_score=s.maintenance_decay_min_score,
            protect_types=protect,
            frequency_weight=(
                s.maintenance_decay_frequency_weight
                if frequency_weight is None
                else frequency_weight
            ),
        )
        now = time.time()
        stale_before = now - stale_days * 86400
        hist = [0] * len(BUCKETS)
        active = at_risk = never = stale = episodic = links = 0
        importance_sum = 0.0
        top: list[tuple[int, str, str]] = []
        for memory, score in engine.iter_scores(now):
            if memory.superseded_by:
                continue
            active += 1
            hist[min(len(BUCKETS) - 1, max(0, int(score * len(BUCKETS))))] += 1
            if score < engine.min_score and memory.type not in engine.protect_types:
                at_risk += 1
            never += memory.access_count == 0
            stale += memory.last_accessed < stale_before
            episodic += memory.type == "episodic"
            links += len(memory.links)
            importance_sum += memory.importance
            if memory.access_count:
                top.append((memory.access_count, memory.id, memory.text))
                top = sorted(top, reverse=True)[:5]
        return {
            "decay_rate": engine.decay_rate,
            "min_score": engine.min_score,
            "protect_types": list(engine.protect_types),
            "frequency_weight": engine.frequency_weight,
            "active": active,
            "decay_histogram": dict(zip(BUCKETS, hist, strict=True)),
            "at_risk_count": at_risk,
            "never_recalled_count": never,
            "stale_count": stale,
            "stale_days": stale_days,
            "episodic_active_count": episodic,
            "total_links": links,
            "link_density": round(links / active, 3) if active else 0.0,
            "avg_importance": round(importance_sum / active, 3) if active else 0.0,
            "top_recalled": [{"id": mid, "access_count": n, "text": text} for n, mid, text in top],
        }
