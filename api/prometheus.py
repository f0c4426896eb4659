"""``/metrics/prometheus``: memory counts and runtime counters in Prometheus text format.

One sample per collection (label ``collection``); nested numeric values of
``store.metrics()`` become ``houkai_<path>`` gauges, ``calls`` become a
``houkai_calls_total{op=…}`` counter, LLM extraction usage becomes
``houkai_extraction_{input_tokens,output_tokens,calls,cost_usd}_total{provider=…,model=…}``
counters. A collection whose metrics fail is
skipped with a log line, never a failed scrape.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from typing import Any

from houkai.extraction.usage import store_usage

log = logging.getLogger("houkai.api")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(**labels: str) -> str:
    inner = ",".join(f'{k}="{_escape(str(v))}"' for k, v in labels.items())
    return "{" + inner + "}"


def _metric_name(path: list[str]) -> str:
    clean = "_".join(p for p in path if p)
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in clean)
    return "houkai_" + out.strip("_").lower()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _flatten(prefix: list[str], data: Any, out: dict[str, float]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            _flatten([*prefix, str(key)], value, out)
        return
    number = _number(data)
    if number is not None:
        out[_metric_name(prefix)] = number


def render(service: Any, collections: Iterable[str]) -> str:
    """The exposition text for *collections*."""
    samples: dict[str, list[tuple[str, float]]] = {}
    types: dict[str, str] = {}

    def add(name: str, labels: str, value: float, kind: str = "gauge") -> None:
        samples.setdefault(name, []).append((labels, value))
        types.setdefault(name, kind)

    for name in collections:
        try:
            store = service.store(name)
            add("houkai_memories", _labels(collection=name), float(store.count()))
            metrics = store.metrics() if hasattr(store, "metrics") else {}
            usage = store_usage(store)["providers"]
        except Exception as exc:  # one bad collection must not fail the scrape
            log.warning("prometheus: metrics of %s failed: %s", name, exc)
            continue
        for op, count in (metrics.get("calls") or {}).items():
            number = _number(count)
            if number is not None:
                add("houkai_calls_total", _labels(collection=name, op=str(op)), number, "counter")
        for provider, row in usage.items():
            for model, figures in row["models"].items():
                labels = _labels(collection=name, provider=provider, model=model)
                for figure, value in figures.items():
                    add(f"houkai_extraction_{figure}_total", labels, float(value), "counter")
        flat: dict[str, float] = {}
        _flatten([], {k: v for k, v in metrics.items() if k not in ("calls", "count")}, flat)
        for metric, value in flat.items():
            add(metric, _labels(collection=name), value)
    lines: list[str] = []
    for metric in sorted(samples):
        lines.append(f"# TYPE {metric} {types[metric]}")
        for labels, value in samples[metric]:
            text = str(int(value)) if value.is_integer() else repr(value)
            lines.append(f"{metric}{labels} {text}")
    return "\n".join(lines) + "\n"
