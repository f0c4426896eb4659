"""What ``houkai bench recall`` reports: its result records and the machine they ran on.

Split from :mod:`houkai.bench.recall` (the measuring) so each stays short; the other
benchmarks reuse :func:`percentiles`, :func:`machine_facts` and :func:`loadavg`.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np


# --------------------------------------------------------------------------- results
@dataclass
class LatencyStats:
    """Percentiles of one (surface, mode, filter, pass) run over the query set."""

    surface: str  # "library" | "rest"
    mode: str
    filtered: bool
    phase: str  # "cold" (fresh cache) | "warm" (same queries again)
    n: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    cache_hits: int
    cache_misses: int

    @property
    def cache_hit_rate(self) -> float:
        total = self.cache_hits + self.cache_misses
        return self.cache_hits / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cache_hit_rate"] = round(self.cache_hit_rate, 4)
        return out


@dataclass
class QualityPoint:
    """HNSW recall@k against exact search at one query-time EF_RUNTIME."""

    ef_runtime: int
    knn: int
    filtered: bool
    recall_at_k: float
    queries: int
    p50_ms: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SizeResult:
    n: int
    collection: str
    vectors_cached: bool
    embed_seconds: float
    load_seconds: float
    reused: bool
    filter_selectivity: float  # median fraction of the corpus a query's tag+type filter keeps
    latency: list[LatencyStats] = field(default_factory=list)
    quality: list[QualityPoint] = field(default_factory=list)
    rest_keepalive: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "collection": self.collection,
            "vectors_cached": self.vectors_cached,
            "embed_seconds": round(self.embed_seconds, 2),
            "load_seconds": round(self.load_seconds, 2),
            "reused_collection": self.reused,
            "filter_selectivity": round(self.filter_selectivity, 5),
            "rest_keepalive": self.rest_keepalive,
            "latency": [x.to_dict() for x in self.latency],
            "hnsw": [q.to_dict() for q in self.quality],
        }


@dataclass
class RecallBenchResult:
    sizes: list[SizeResult]
    config: dict[str, Any]
    machine: dict[str, Any]
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": "recall",
            "config": self.config,
            "machine": self.machine,
            "seconds": round(self.seconds, 1),
            "sizes": [s.to_dict() for s in self.sizes],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RecallBenchResult:
        """Rebuild a result from :meth:`to_dict` output (e.g. to re-render a saved ``--json``)."""
        sizes = []
        for raw in data["sizes"]:
            size = SizeResult(
                n=raw["n"],
                collection=raw["collection"],
                vectors_cached=raw["vectors_cached"],
                embed_seconds=raw["embed_seconds"],
                load_seconds=raw["load_seconds"],
                reused=raw["reused_collection"],
                filter_selectivity=raw["filter_selectivity"],
                rest_keepalive=raw.get("rest_keepalive"),
            )
            size.latency = [
                LatencyStats(**{k: v for k, v in x.items() if k != "cache_hit_rate"})
                for x in raw["latency"]
            ]
            size.quality = [QualityPoint(**q) for q in raw["hnsw"]]
            sizes.append(size)
        return cls(
            sizes=sizes,
            config=data["config"],
            machine=data["machine"],
            seconds=data.get("seconds", 0.0),
        )

    def lines(self) -> list[str]:
        """A plain-text report: latency table, HNSW quality table, machine line."""
        out = [
            f"{'size':>7}  {'surface':<7}  {'mode':<8}  {'filter':<8}  {'pass':<4}  "
            f"{'p50 ms':>8}  {'p95 ms':>8}  {'p99 ms':>8}  {'mean ms':>8}  {'cache hit':>9}"
        ]
        for size in self.sizes:
            for x in size.latency:
                out.append(
                    f"{size.n:>7}  {x.surface:<7}  {x.mode:<8}  "
                    f"{'tag+type' if x.filtered else 'none':<8}  {x.phase:<4}  "
                    f"{x.p50_ms:>8.2f}  {x.p95_ms:>8.2f}  {x.p99_ms:>8.2f}  {x.mean_ms:>8.2f}  "
                    f"{x.cache_hit_rate:>9.0%}"
                )
        out.append("")
        out.append(
            f"{'size':>7}  {'EF_RUNTIME':>10}  {'KNN':>4}  {'filter':<8}  "
            f"{'recall@' + str(self.config['k']):>9}  {'p50 ms':>8}  {'queries':>7}"
        )
        for size in self.sizes:
            for q in size.quality:
                used = "*" if q.ef_runtime == self.config["ef_runtime"] else " "
                out.append(
                    f"{size.n:>7}  {q.ef_runtime:>9}{used}  {q.knn:>4}  "
                    f"{'tag+type' if q.filtered else 'none':<8}  {q.recall_at_k:>9.4f}  "
                    f"{q.p50_ms:>8.2f}  {q.queries:>7}"
                )
        out.append(f"(* = the index's configured EF_RUNTIME, {self.config['ef_runtime']})")
        out.append("")
        for size in self.sizes:
            out.append(
                f"N={size.n}: filter keeps {size.filter_selectivity:.2%} of the corpus "
                f"(median); load {size.load_seconds:.1f}s"
                f"{' (reused)' if size.reused else ''}; embed {size.embed_seconds:.1f}s"
                f"{' (cached vectors)' if size.vectors_cached else ''}"
            )
        m = self.machine
        out.append(
            f"machine: {m['cpu']} × {m['nproc']} cores, {m['memory_gb']} GB RAM, "
            f"load avg {m['loadavg_start']} → {m['loadavg_end']}; {m['python']}"
        )
        return out


# --------------------------------------------------------------------------- helpers
def percentiles(samples_ms: Sequence[float]) -> tuple[float, float, float, float]:
    """(p50, p95, p99, mean) of *samples_ms* (linear interpolation); zeros when empty."""
    if not samples_ms:
        return 0.0, 0.0, 0.0, 0.0
    arr = np.asarray(samples_ms, dtype=np.float64)
    p50, p95, p99 = np.percentile(arr, [50, 95, 99])
    return (
        round(float(p50), 3),
        round(float(p95), 3),
        round(float(p99), 3),
        round(float(arr.mean()), 3),
    )


def machine_facts() -> dict[str, Any]:
    """What the figures ran on: CPU model, core count, memory, load."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gb = 0.0
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "nproc": os.cpu_count() or 0,
        "memory_gb": mem_gb,
        "python": platform.python_version(),
        "loadavg_start": loadavg(),
    }


def loadavg() -> str:
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"
