"""Tokens and cost of extraction, per provider and model and per job, kept in Redis.

Totals live in one HASH per collection (``Keys.llm_usage``, fields
``<provider>|<model>|<figure>``), and each job's share in a HASH beside it that expires
with the job records. Every process adds with HINCRBY / HINCRBYFLOAT, so the figures
are shared the way the other metrics are; ``once`` makes a recording idempotent, so a
task redelivered after it counted a call does not count it twice.
"""

from __future__ import annotations

from typing import Any

from ..db.decode import as_text
from .base import Usage

USAGE_TTL = 7 * 86400  # a job's usage is kept as long as its job record
FIGURES: tuple[str, ...] = ("input_tokens", "output_tokens", "calls", "cost_usd")

# KEYS: totals, job, once marker (either is the totals key itself when absent: a cluster
# routes a script by its keys, so every key is the collection's). ARGV: ttl,
# provider|model, then input, output, calls, cost. Returns 0 when the once marker was already there.
_RECORD_LUA = """
if KEYS[3] ~= KEYS[1] then
  if not redis.call('SET', KEYS[3], '1', 'NX', 'EX', tonumber(ARGV[1])) then return 0 end
end
local head = ARGV[2]
for i, key in ipairs({KEYS[1], KEYS[2]}) do
  if i == 1 or key ~= KEYS[1] then
    redis.call('HINCRBY', key, head .. '|input_tokens', ARGV[3])
    redis.call('HINCRBY', key, head .. '|output_tokens', ARGV[4])
    redis.call('HINCRBY', key, head .. '|calls', ARGV[5])
    redis.call('HINCRBYFLOAT', key, head .. '|cost_usd', ARGV[6])
  end
end
if KEYS[2] ~= KEYS[1] then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1])) end
return 1
"""


def usage_key(prefix_or_keys: Any) -> str:
    """The totals HASH of a collection's :class:`~houkai.db.keys.Keys`, or *prefix_or_keys*
    itself when it is a string."""
    if isinstance(prefix_or_keys, str):
        return prefix_or_keys
    return str(prefix_or_keys.llm_usage)


def job_usage_key(prefix_or_keys: Any, job_id: str) -> str:
    return f"{usage_key(prefix_or_keys)}:job:{job_id}"


def record_usage(
    client: Any,
    prefix_or_keys: Any,
    job_id: str | None,
    usage: Usage,
    *,
    once: str | None = None,
) -> bool:
    """Add *usage* to the totals and to *job_id*'s share; False when *once* (an id of
    this recording, e.g. ``<job>:<message batch>``) was recorded before."""
    if not (usage.calls or usage.input_tokens or usage.output_tokens or usage.cost_usd):
        return True
    base = usage_key(prefix_or_keys)
    keys = [
        base,
        job_usage_key(prefix_or_keys, job_id) if job_id else base,
        f"{base}:once:{once}" if once else base,
    ]
    head = f"{usage.provider or 'unknown'}|{usage.model or 'unknown'}"
    args = [
        USAGE_TTL,
        head,
        int(usage.input_tokens),
        int(usage.output_tokens),
        int(usage.calls),
        repr(float(usage.cost_usd)),
    ]
    return bool(int(client.eval(_RECORD_LUA, 3, *keys, *args)))


def _empty() -> dict[str, Any]:
    return {"input_tokens": 0, "output_tokens": 0, "calls": 0, "cost_usd": 0.0}


def _fold(raw: dict[Any, Any]) -> dict[str, Any]:
    total = _empty()
    providers: dict[str, Any] = {}
    for field, value in (raw or {}).items():
        provider, _, rest = as_text(field).partition("|")
        model, _, figure = rest.rpartition("|")
        if figure not in FIGURES:
            continue
        number: float | int = float(value) if figure == "cost_usd" else int(value)
        entry = providers.setdefault(provider, {**_empty(), "models": {}})
        entry[figure] += number
        entry["models"].setdefault(model, _empty())[figure] += number
        total[figure] += number
    for entry in [total, *providers.values()]:
        entry["cost_usd"] = round(entry["cost_usd"], 6)
        for figures in entry.get("models", {}).values():
            figures["cost_usd"] = round(figures["cost_usd"], 6)
    return {**total, "providers": providers}


def usage_summary(client: Any, prefix_or_keys: Any, job_id: str | None = None) -> dict[str, Any]:
    """``{input_tokens, output_tokens, calls, cost_usd, providers: {name: {…, models}}}``
    for a collection, or for one job of it."""
    key = job_usage_key(prefix_or_keys, job_id) if job_id else usage_key(prefix_or_keys)
    return _fold(client.hgetall(key))


def store_usage(store: Any, job_id: str | None = None) -> dict[str, Any]:
    """The extraction usage of a store's collection (``/stats``, ``/metrics``) or of one
    of its jobs (``/jobs/<id>``); empty for a store that keeps no Redis keys."""
    client, keys = getattr(store, "client", None), getattr(store, "keys", None)
    if client is None or keys is None or not hasattr(keys, "llm_usage"):
        return _fold({})
    return usage_summary(client, keys, job_id)
