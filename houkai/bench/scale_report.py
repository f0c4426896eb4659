"""The figures of ``houkai bench scale`` for people: a text summary and a PNG (bytes per
memory, warm recall p99, maintenance job wall time, each against collection size)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def iter_latency(step: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from step.get("latency", ())


def _plot_series(
    ax: Any, series: dict[str, list[tuple[int, float]]], ylabel: str, *, log_y: bool = False
) -> None:
    """One line per label against collection size (log x), with a legend when any."""
    for label, points in sorted(series.items()):
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel("memories")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7)


def plot(result: dict[str, Any], path: str) -> None:
    """Bytes per memory, warm p99 recall latency and job wall time by collection size (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [s for s in result["steps"] if "bytes_per_memory" in s]
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.2))
    ns = [s["n"] for s in steps]
    sizes = [s["bytes_per_memory"] for s in steps]
    ax1.plot(ns, sizes, marker="o")
    for n, size in zip(ns, sizes, strict=True):
        ax1.annotate(f"{size:,}", (n, size), textcoords="offset points", xytext=(0, 6))
    ax1.set_xscale("log")
    ax1.set_xlabel("memories")
    ax1.set_ylabel("Redis bytes per memory")
    ax1.set_ylim(0, max(sizes, default=1) * 1.25)
    ax1.grid(alpha=0.3)
    series: dict[str, list[tuple[int, float]]] = {}
    for s in steps:
        for lat in iter_latency(s):
            if lat["phase"] != "warm":
                continue
            label = f"{lat['surface']} {lat['mode']}{' +filter' if lat['filtered'] else ''}"
            series.setdefault(label, []).append((s["n"], lat["p99_ms"]))
    _plot_series(ax2, series, "warm recall p99 (ms)")
    jobs: dict[str, list[tuple[int, float]]] = {}
    for s in steps:
        for job in s.get("jobs", []):
            if job["job"] != "open" and not job.get("error"):
                jobs.setdefault(job["job"], []).append((s["n"], max(job["seconds"], 0.1)))
    _plot_series(ax3, jobs, "maintenance job wall time (s)", log_y=True)
    fig.suptitle(f"houkai bench scale ({result['config'].get('vector_type')}; shared 2-core VM)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def lines(result: dict[str, Any]) -> list[str]:
    """A human-readable summary of :func:`run`'s result."""
    out = []
    for s in result["steps"]:
        out.append(
            f"N={s['n']:,}: {s.get('bytes_per_memory', 0):,} B/memory, "
            f"HNSW recall@10={s.get('hnsw_recall_at_10')}, load {s.get('load_seconds')}s"
        )
        for lat in iter_latency(s):
            if lat["phase"] == "warm":
                out.append(
                    f"  {lat['surface']:<7} {lat['mode']:<8} "
                    f"{'filter' if lat['filtered'] else '      '} "
                    f"p50 {lat['p50_ms']:.1f} ms  p99 {lat['p99_ms']:.1f} ms"
                )
        for job in s.get("jobs", ()):
            out.append(
                f"  job {job['job']:<10} {job['seconds']:>8.1f} s  peak RSS "
                f"{job['peak_rss_mb']:.0f} MB  count {job.get('count', '-')}"
                + (f"  ERROR {job['error']}" if job.get("error") else "")
            )
    return out
