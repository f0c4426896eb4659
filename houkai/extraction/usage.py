"""What extraction spent: per-provider totals of tokens, cost and calls, per collection.

The one hook every extraction job calls (:func:`record_usage`); the LLM providers'
accounting plugs in here. Totals live in a Redis HASH (``Keys.extraction_usage``):
``<provider>:<model>:<field>`` → running sum, plus ``jobs`` and ``last_job``.
"""

from __future__ import annotations

from typing import Any

from ..db.decode import as_float, as_text
from ..db.keys import Keys
from .base import Usage

FIELDS: tuple[str, ...] = ("input_tokens", "output_tokens", "calls")


def record_usage(client: Any, keys: Keys, job_id: str, usage: Usage) -> None:
    """Add one job's *usage* to the collection's totals (a no-LLM job adds only ``jobs``)."""
    head = f"{usage.provider or 'rules'}:{usage.model or '-'}"
    pipe = client.pipeline(transaction=False)
    for name in FIELDS:
        value = int(getattr(usage, name))
        if value:
            pipe.hincrby(keys.extraction_usage, f"{head}:{name}", value)
    if usage.cost_usd:
        pipe.hincrbyfloat(keys.extraction_usage, f"{head}:cost_usd", float(usage.cost_usd))
    pipe.hincrby(keys.extraction_usage, f"{head}:jobs", 1)
    pipe.hset(keys.extraction_usage, "last_job", job_id)
    pipe.execute()


def usage_totals(client: Any, keys: Keys) -> dict[str, dict[str, float]]:
    """``{"<provider>:<model>": {"input_tokens": …, "cost_usd": …, "jobs": …}}``."""
    out: dict[str, dict[str, float]] = {}
    for raw_key, raw_value in client.hgetall(keys.extraction_usage).items():
        key = as_text(raw_key)
        head, _, name = key.rpartition(":")
        if not head:
            continue
        out.setdefault(head, {})[name] = as_float(raw_value)
    return out
