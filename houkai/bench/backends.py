"""``--compare``: the torch backend and the default backend side by side, in one run.

A shared 2-core machine drifts by tens of percent between runs, so a speed-up
is only meaningful as a ratio measured in the same run: both backends go
through the same benchmark one after the other and the summary divides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..domain.config import Settings
from ..engines.embeddings import resolve_spec

BASELINE = "minilm-torch"


def contenders(settings: Settings) -> list[str]:
    """``[minilm-torch, the default's concrete backend]`` (the default is resolved, not aliased)."""
    default = resolve_spec(settings.embedder)[0]
    return [BASELINE] if default == BASELINE else [BASELINE, default]


@dataclass
class Comparison:
    """Per-backend results plus the same-run ratios."""

    kind: str
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    ratios: dict[str, float] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"compare": self.kind, "results": self.results, "ratios": self.ratios}

    def lines(self) -> list[str]:
        return self.text


def compare_ingest(settings: Settings, n: int, **kwargs: Any) -> Comparison:
    """``bench ingest`` once per backend, each with its own fresh worker."""
    from .ingest import run

    out = Comparison("ingest")
    for spec in contenders(settings):
        result = run(settings.replace(embedder=spec), n, own_worker=True, **kwargs)
        out.results[spec] = result.to_dict()
        out.text += [f"== {spec}", *result.lines(), ""]
    torch_raw = out.results[BASELINE]["raw_encode_per_second"]
    for spec, r in out.results.items():
        out.ratios[f"{spec} end-to-end / torch raw encode"] = round(
            r["memories_per_second"] / torch_raw, 3
        )
        out.ratios[f"{spec} raw encode / torch raw encode"] = round(
            r["raw_encode_per_second"] / torch_raw, 3
        )
    out.text += [f"{name:48s} {value:.2f}×" for name, value in out.ratios.items()]
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


def compare_recall(settings: Settings, sizes: list[int], **kwargs: Any) -> Comparison:
    """``bench recall`` once per backend (own corpus vectors each): cold p50 and HNSW recall."""
    from .recall import run

    out = Comparison("recall")
    for spec in contenders(settings):
        result = run(settings.replace(embedder=spec), sizes, **kwargs)
        out.results[spec] = result.to_dict()
        out.text += [f"== {spec}", *result.lines(), ""]
    base = out.results[BASELINE]
    ef = settings.hnsw_ef_runtime
    for spec, r in out.results.items():
        for size, base_size in zip(r["sizes"], base["sizes"], strict=True):
            n = size["n"]
            for mode in ("semantic", "hybrid"):
                mine, theirs = _cold_p50(size, mode), _cold_p50(base_size, mode)
                if mine is not None and theirs:
                    out.ratios[f"N={n} {spec} cold {mode} p50 / torch"] = round(mine / theirs, 3)
            recall = _recall_at_k(size, ef)
            if recall is not None:
                out.ratios[f"N={n} {spec} HNSW recall@k (ef={ef})"] = round(recall, 4)
    out.text += [f"{name:52s} {value:.3f}" for name, value in out.ratios.items()]
    return out
