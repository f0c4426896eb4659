"""What tokens cost: a price table per model, in USD per million tokens (input, output).

The defaults are list prices at the time of writing and go stale; ``llm_prices``
(``"model=in/out,model2=in/out"``) adds or overrides entries. A model is priced by the
longest table key it starts with (``gpt-4o-mini-2024-07-18`` → ``gpt-4o-mini``). An
unknown model (a local one through Ollama or vLLM) costs 0; its tokens are still counted.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...domain.model import ValidationError

Prices = Mapping[str, tuple[float, float]]

DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "claude-3-haiku": (0.25, 1.25),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
}


def parse_prices(text: str) -> dict[str, tuple[float, float]]:
    """``"m1=0.15/0.6, m2=3/15"`` → ``{"m1": (0.15, 0.6), …}`` (USD per million tokens)."""
    table: dict[str, tuple[float, float]] = {}
    for entry in (text or "").split(","):
        if not entry.strip():
            continue
        model, _, pair = entry.partition("=")
        given, _, taken = pair.partition("/")
        try:
            price = (float(given), float(taken))
        except ValueError:
            raise ValidationError(
                f"llm_prices entry {entry.strip()!r} must be model=input/output "
                "(USD per million tokens)"
            ) from None
        if not model.strip() or min(price) < 0:
            raise ValidationError(f"llm_prices entry {entry.strip()!r} is not a price")
        table[model.strip()] = price
    return table


def price_table(extra: str | Prices | None = None) -> dict[str, tuple[float, float]]:
    """The defaults with *extra* (a ``llm_prices`` string or a mapping) on top."""
    table = dict(DEFAULT_PRICES)
    if isinstance(extra, str):
        table.update(parse_prices(extra))
    elif extra:
        table.update(extra)
    return table


def price_for(model: str, table: Prices) -> tuple[float, float]:
    """(input, output) USD per million tokens of *model*; (0, 0) when unknown."""
    best = ""
    for key in table:
        if model.startswith(key) and len(key) > len(best):
            best = key
    return table[best] if best else (0.0, 0.0)


def cost(model: str, input_tokens: int, output_tokens: int, table: Prices) -> float:
    given, taken = price_for(model, table)
    return (input_tokens * given + output_tokens * taken) / 1_000_000
