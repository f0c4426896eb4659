"""``--compare``: the torch backend and the default backend side by side, in one run.

A shared 2-core machine drifts by tens of percent between runs, so a speed-up
is only meaningful as a ratio measured in the same run: both backends go
through the same benchmark one after the other and the summary divides.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from ..domain.config import Settings
from ..domain.model import ValidationError
from ..engines.embeddings import resolve_spec

BASELINE = "minilm-torch"


def contenders(settings: Settings) -> list[str]:
    """``[minilm-torch, the default's concrete backend]`` (the default is resolved, not aliased)."""
    default = resolve_spec(settings.embedder)[0]
    return [BASELINE] if default == BASELINE else [BASELINE, default]


@dataclass
class Comparison:
    """Per-backend results plus the same-run ratios (medians over the rounds)."""

    kind: str
    rounds: int = 1
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    ratios: dict[str, float] = field(default_factory=dict)
    ratio_runs: dict[str, list[float]] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "compare": self.kind,
            "rounds": self.rounds,
            "results": self.results,
            "ratios": self.ratios,
            "ratio_runs": self.ratio_runs,
        }

    def lines(self) -> list[str]:
        return self.text

    def add_ratio(self, name: str, value: float) -> None:
        self.ratio_runs.setdefault(name, []).append(round(value, 4))

    def settle(self, width: int) -> None:
        """Median of every ratio over the rounds, and the summary lines."""
        for name, values in self.ratio_runs.items():
            self.ratios[name] = round(statistics.median(values), 3)
        note = f" (median of {self.rounds} rounds)" if self.rounds > 1 else ""
        self.text.append(f"same-run ratios{note}:")
        for name, value in self.ratios.items():
            runs = self.ratio_runs[name]
            spread = f"   runs {', '.join(f'{v:.3f}' for v in runs)}" if len(runs) > 1 else ""
            self.text.append(f"{name:{width}s} {value:.3f}{spread}")


def _check_rounds(rounds: int) -> None:
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValidationError(f"rounds must be an integer >= 1 — got {rounds!r}")


_MEDIAN_FIELDS = ("seconds", "memories_per_second", "raw_encode_per_second", "ratio")


def compare_ingest(settings: Settings, n: int, *, rounds: int = 1, **kwargs: Any) -> Comparison:
    """``bench ingest`` once per backend per round, each with its own fresh worker.

    Rounds alternate the backends (torch, default, torch, default, …), so load
    drifting on a shared machine hits both alike; ratios are per round, then
    the median. ``results[spec]`` holds the medians and every run.
    """
    from .ingest import run

    _check_rounds(rounds)
    out = Comparison("ingest", rounds=rounds)
    runs: dict[str, list[dict[str, Any]]] = {spec: [] for spec in contenders(settings)}
    for i in range(rounds):
        this: dict[str, dict[str, Any]] = {}
        for spec in runs:
            result = run(settings.replace(embedder=spec), n, own_worker=True, **kwargs)
            this[spec] = result.to_dict()
            runs[spec].append(this[spec])
            out.text += [f"== {spec} (round {i + 1}/{rounds})", *result.lines(), ""]
        torch_raw = this[BASELINE]["raw_encode_per_second"]
        torch_e2e = this[BASELINE]["memories_per_second"]
        for spec, r in this.items():
            out.add_ratio(
                f"{spec} end-to-end / torch raw encode", r["memories_per_second"] / torch_raw
            )
            out.add_ratio(
                f"{spec} raw encode / torch raw encode", r["raw_encode_per_second"] / torch_raw
            )
            out.add_ratio(
                f"{spec} end-to-end / torch end-to-end", r["memories_per_second"] / torch_e2e
            )
    for spec, items in runs.items():
        summary = dict(items[-1])
        for key in _MEDIAN_FIELDS:
            summary[key] = statistics.median(r[key] for r in items)
        summary["runs"] = items
        out.results[spec] = summary
    out.settle(48)
    return out


def _cold_p50(size: dict[str, Any], mode: str) -> float | None:
    for stat in size["latency"]:
        if (
            stat["surface"] == "library"
            and stat["mode"] == mode
            and not stat["filtered"]
            and stat["phase"] == "cold"
        ):
            return float(stat["p50_ms"])
    return None


def _recall_at_k(size: dict[str, Any], ef: int) -> float | None:
    for point in size["hnsw"]:
        if (
            point["ef_runtime"] == ef
            and not point["filtered"]
            and point["knn"] == min(p["knn"] for p in size["hnsw"])
        ):
            return float(point["recall_at_k"])
    return None


def compare_recall(
    settings: Settings,
    sizes: list[int],
    *,
    rounds: int = 1,
    collection_prefix: str = "bench-recall",
    keep: bool = False,
    **kwargs: Any,
) -> Comparison:
    """``bench recall`` once per backend per round (own corpus vectors and collection each).

    Rounds alternate the backends; each backend's collections are written once
    and reused by later rounds, then dropped unless *keep*. With
    ``corpus_embedder`` one backend embeds the corpus and every backend queries
    that one collection (the cold-query cost is then the backend's alone). Cold p50 ratios are
    per round, then the median; HNSW recall@k is the last round's.
    """
    from .recall import drop_collections, run

    _check_rounds(rounds)
    out = Comparison("recall", rounds=rounds)
    specs = contenders(settings)
    # One corpus embedded by one backend is one collection all backends query.
    shared = kwargs.get("corpus_embedder")
    prefixes = {
        spec: f"{collection_prefix}-{'corpus-' + shared if shared else spec}" for spec in specs
    }
    ef = settings.hnsw_ef_runtime
    try:
        for i in range(rounds):
            this: dict[str, dict[str, Any]] = {}
            for spec in specs:
                result = run(
                    settings.replace(embedder=spec),
                    sizes,
                    collection_prefix=prefixes[spec],
                    keep=True,
                    **kwargs,
                )
                this[spec] = result.to_dict()
                out.results.setdefault(spec, {"runs": []})["runs"].append(this[spec])
                out.text += [f"== {spec} (round {i + 1}/{rounds})", *result.lines(), ""]
            base = this[BASELINE]
            for spec, r in this.items():
                for size, base_size in zip(r["sizes"], base["sizes"], strict=True):
                    n = size["n"]
                    for mode in ("semantic", "hybrid"):
                        mine, theirs = _cold_p50(size, mode), _cold_p50(base_size, mode)
                        if mine is not None and theirs:
                            out.add_ratio(f"N={n} {spec} cold {mode} p50 / torch", mine / theirs)
    finally:
        if not keep:
            for prefix in dict.fromkeys(prefixes.values()):
                drop_collections(settings, sizes, prefix)
    for spec, entry in out.results.items():
        runs = entry.pop("runs")
        out.results[spec] = {**runs[-1], "runs": runs}
        for size in runs[-1]["sizes"]:
            recall = _recall_at_k(size, ef)
            if recall is not None:
                out.ratio_runs[f"N={size['n']} {spec} HNSW recall@k (ef={ef})"] = [recall]
    out.settle(52)
    return out
