"""``houkai bench stages``' figures: per-pass samples, same-run ratios, medians, verdicts.

The machine is shared, so absolute milliseconds drift between minutes; what holds is
a ratio taken inside one round (the two passes ran seconds apart). Every row is the
median over rounds of the per-round p50/p95, and its ratio the median over rounds of
``p50 / plain blend's p50`` of the same round, size, surface and cache state.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

PLAIN = "plain"
DEFAULTS = "defaults"
SEED = "seed"
DEFAULTS_TARGET = (
    1.2  # the defaults may cost at most 1.2x the plain blend's p50 (at the largest size)
)
SEED_TARGET = 0.5  # houkai's cold hybrid p50 at most half the seed's


@dataclass(frozen=True)
class StageSet:
    """A named set of hybrid stages: ``plain`` (none), ``defaults``, or ``-stage`` (one off)."""

    name: str
    stages: tuple[str, ...]


def stage_sets(defaults: Sequence[str]) -> list[StageSet]:
    """The plain blend, the defaults, and the defaults with each stage alone turned off."""
    out = [StageSet(PLAIN, ()), StageSet(DEFAULTS, tuple(defaults))]
    for stage in defaults:
        out.append(StageSet(f"-{stage}", tuple(s for s in defaults if s != stage)))
    return out


@dataclass
class Sample:
    """One timed pass over the query set."""

    size: int
    round: int
    system: str  # "houkai" | "seed"
    surface: str  # "library" | "rest"
    stage_set: str  # a StageSet name; "seed" for the seed's hybrid recall
    phase: str  # "cold" (query embedding not cached) | "warm"
    n: int
    p50_ms: float
    p95_ms: float
    mean_ms: float
    cache_hits: int = 0
    cache_misses: int = 0
    load1: float = 0.0  # the machine's 1-minute load average when the pass ended

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Row:
    """Medians over rounds of one (size, system, surface, stage set, phase)."""

    size: int
    system: str
    surface: str
    stage_set: str
    phase: str
    p50_ms: float
    p95_ms: float
    ratio: float | None  # median same-round p50 / plain blend's p50 (None for the seed)
    ratios: list[float] = field(default_factory=list)
    load1: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _median(values: Iterable[float]) -> float:
    items = list(values)
    return round(float(statistics.median(items)), 3) if items else 0.0


def _key(s: Sample) -> tuple[int, str, str, str, str]:
    return (s.size, s.system, s.surface, s.stage_set, s.phase)


def rows(samples: Sequence[Sample]) -> list[Row]:
    """One row per (size, system, surface, stage set, phase), in first-seen order."""
    plain = {
        (s.size, s.surface, s.phase, s.round): s.p50_ms
        for s in samples
        if s.system == "houkai" and s.stage_set == PLAIN
    }
    groups: dict[tuple[int, str, str, str, str], list[Sample]] = {}
    for s in samples:
        groups.setdefault(_key(s), []).append(s)
    out: list[Row] = []
    for (size, system, surface, name, phase), group in groups.items():
        ratios = [
            round(s.p50_ms / plain[(size, surface, phase, s.round)], 4)
            for s in group
            if system == "houkai" and plain.get((size, surface, phase, s.round))
        ]
        out.append(
            Row(
                size=size,
                system=system,
                surface=surface,
                stage_set=name,
                phase=phase,
                p50_ms=_median(s.p50_ms for s in group),
                p95_ms=_median(s.p95_ms for s in group),
                ratio=_median(ratios) if ratios else None,
                ratios=ratios,
                load1=_median(s.load1 for s in group),
            )
        )
    return out


def seed_ratios(samples: Sequence[Sample], stage_set: str = DEFAULTS) -> dict[int, list[float]]:
    """Per size, per round: houkai's cold library p50 (*stage_set*) / the seed's cold p50."""
    seed = {(s.size, s.round): s.p50_ms for s in samples if s.system == SEED}
    out: dict[int, list[float]] = {}
    for s in samples:
        if (
            s.system == "houkai"
            and s.surface == "library"
            and s.phase == "cold"
            and s.stage_set == stage_set
            and seed.get((s.size, s.round))
        ):
            out.setdefault(s.size, []).append(round(s.p50_ms / seed[(s.size, s.round)], 4))
    return out


def verdicts(samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """The issue's two latency targets, each with its median same-run ratio and whether it holds."""
    out: list[dict[str, Any]] = []
    table = rows(samples)
    houkai_sizes = sorted({r.size for r in table if r.system == "houkai"})
    if houkai_sizes:
        size = houkai_sizes[-1]
        for phase in ("warm", "cold"):
            row = next(
                (
                    r
                    for r in table
                    if r.size == size
                    and r.system == "houkai"
                    and r.surface == "library"
                    and r.stage_set == DEFAULTS
                    and r.phase == phase
                ),
                None,
            )
            if row is not None and row.ratio is not None:
                out.append(
                    {
                        "target": f"hybrid defaults p50 ≤ {DEFAULTS_TARGET}× the plain blend's "
                        f"at {size:,} ({phase} query cache)",
                        "size": size,
                        "phase": phase,
                        "ratio": row.ratio,
                        "ratios": row.ratios,
                        "limit": DEFAULTS_TARGET,
                        "holds": row.ratio <= DEFAULTS_TARGET,
                    }
                )
    for size, ratios in sorted(seed_ratios(samples).items()):
        ratio = _median(ratios)
        out.append(
            {
                "target": f"cold hybrid p50 (defaults) ≤ {SEED_TARGET}× the seed's at {size:,}",
                "size": size,
                "phase": "cold",
                "ratio": ratio,
                "ratios": ratios,
                "limit": SEED_TARGET,
                "holds": ratio <= SEED_TARGET,
            }
        )
    return out


@dataclass
class StageCostResult:
    samples: list[Sample]
    config: dict[str, Any]
    machine: dict[str, Any]
    seed: dict[str, Any]  # {"status": "measured" | "not asked" | "unavailable", ...}
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": "stages",
            "config": self.config,
            "machine": self.machine,
            "seed": self.seed,
            "seconds": round(self.seconds, 1),
            "rows": [r.to_dict() for r in rows(self.samples)],
            "seed_ratios": {str(k): v for k, v in seed_ratios(self.samples).items()},
            "verdicts": verdicts(self.samples),
            "samples": [s.to_dict() for s in self.samples],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StageCostResult:
        """Rebuild from :meth:`to_dict` output (the rows and verdicts are recomputed)."""
        return cls(
            samples=[Sample(**s) for s in data["samples"]],
            config=data["config"],
            machine=data["machine"],
            seed=data.get("seed", {}),
            seconds=data.get("seconds", 0.0),
        )

    def markdown(self) -> str:
        """The library rows as a Markdown table (cold and warm side by side, the seed's
        cold p50 first), then the per-round seed ratios and the verdicts: what
        ``docs/performance/suite.md`` shows, written by the run that measured it."""
        table = [r for r in rows(self.samples) if r.surface == "library"]
        by = {(r.size, r.stage_set, r.phase): r for r in table}
        out = [
            "| N | stages | cold p50 ms | cold ×plain | warm p50 ms | warm ×plain |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        for size in sorted({r.size for r in table}):
            names = [r.stage_set for r in table if r.size == size]
            for name in dict.fromkeys(names):
                cells = []
                for phase in ("cold", "warm"):
                    r = by.get((size, name, phase))
                    if r is None:
                        cells += ["—", "—"]
                        continue
                    cells.append(f"{r.p50_ms:.1f}")
                    cells.append("—" if r.ratio is None else f"{r.ratio:.2f}")
                label = "seed (cold only)" if name == SEED else name
                out.append(f"| {size:,} | {label} | {' | '.join(cells)} |")
        out.append("")
        for size, ratios in sorted(seed_ratios(self.samples).items()):
            out.append(
                f"- N={size:,}: houkai defaults cold p50 / the seed's, per round: "
                + ", ".join(f"{x:.2f}" for x in ratios)
            )
        for v in verdicts(self.samples):
            per = ", ".join(f"{x:.2f}" for x in v["ratios"])
            out.append(
                f"- {v['target']}: **{v['ratio']:.2f}×** ({per}) → "
                + ("holds" if v["holds"] else "missed")
            )
        m = self.machine
        out.append(
            f"- machine: {m.get('cpu')} × {m.get('nproc')} cores, 1-minute load "
            f"{m.get('loadavg_start')} → {m.get('loadavg_end')}; "
            f"{self._queries()} queries, {self.config.get('rounds')} rounds"
            + (", interleaved" if self.config.get("interleave") else "")
            + f", {self.config.get('corpus', 'uniform')} corpus"
        )
        return "\n".join(out) + "\n"

    def _queries(self) -> str:
        """The queries asked: per size when a corpus worded fewer than ``--queries``."""
        asked = {int(n): q for n, q in (self.config.get("queries_asked") or {}).items()}
        wanted = self.config.get("queries")
        if not asked or all(q == wanted for q in asked.values()):
            return str(wanted)
        return ", ".join(f"{q} at {n:,}" for n, q in sorted(asked.items()))

    def lines(self) -> list[str]:
        rounds = self.config.get("rounds", "?")
        out = [
            f"{'size':>7}  {'system':<6}  {'surface':<7}  {'stages':<10}  {'cache':<5}  "
            f"{'p50 ms':>7}  {'p95 ms':>7}  {'×plain':>6}  {'per round':<22}  {'load':>5}"
        ]
        for r in rows(self.samples):
            ratio = f"{r.ratio:>6.2f}" if r.ratio is not None else f"{'':>6}"
            per = ",".join(f"{x:.2f}" for x in r.ratios)
            out.append(
                f"{r.size:>7}  {r.system:<6}  {r.surface:<7}  {r.stage_set:<10}  {r.phase:<5}  "
                f"{r.p50_ms:>7.2f}  {r.p95_ms:>7.2f}  {ratio}  {per:<22}  {r.load1:>5.2f}"
            )
        out.append(
            f"({self.config.get('corpus', 'uniform')} corpus, {self._queries()} queries; "
            f"medians over {rounds} rounds; ×plain = median same-round p50 ratio)"
        )
        for size, ratios in sorted(seed_ratios(self.samples).items()):
            out.append(
                f"N={size}: houkai defaults cold p50 / seed cold p50 per round: "
                + ", ".join(f"{x:.2f}" for x in ratios)
            )
        if self.seed.get("status") != "measured":
            out.append(
                f"seed: {self.seed.get('status', 'not asked')}: {self.seed.get('reason', '')}"
            )
        for v in verdicts(self.samples):
            mark = "holds" if v["holds"] else "MISSED"
            out.append(f"{v['target']}: {v['ratio']:.2f}× → {mark}")
        m = self.machine
        out.append(
            f"machine: {m.get('cpu')} × {m.get('nproc')} cores, load avg "
            f"{m.get('loadavg_start')} → {m.get('loadavg_end')}; {m.get('python')}"
        )
        return out
