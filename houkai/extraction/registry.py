"""One place an extractor spec is parsed: ``rules`` or ``llm:<provider>:<model>``.

Providers import lazily, so the no-LLM default never imports an LLM client.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..domain.model import ValidationError
from .base import Extractor

#: the no-LLM default: user-stated facts, preferences, decisions and dated events
DEFAULT_EXTRACTOR = "rules"
LLM_PROVIDERS: tuple[str, ...] = ("openai", "anthropic", "ollama")

#: spec head → "module:factory"; a factory takes (model, **options) and returns an Extractor
_FACTORIES: dict[str, str] = {
    "rules": "houkai.extraction.rules:make_rules_extractor",
    "llm": "houkai.extraction.llm:make_llm_extractor",
}


def parse_spec(spec: object) -> tuple[str, str, str]:
    """``(kind, provider, model)`` of an extractor spec, or a ValidationError naming it."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValidationError(
            f"extractor must be 'rules' or 'llm:<provider>:<model>' — got {spec!r}"
        )
    text = spec.strip()
    if text == "rules":
        return "rules", "", ""
    head, _, rest = text.partition(":")
    provider, _, model = rest.partition(":")
    if head != "llm" or provider not in LLM_PROVIDERS or not model:
        raise ValidationError(
            "extractor must be 'rules' or 'llm:<provider>:<model>' with provider one of "
            f"{', '.join(LLM_PROVIDERS)} — got {spec!r}"
        )
    return head, provider, model


def extractor_for(spec: str = DEFAULT_EXTRACTOR, **options: Any) -> Extractor:
    """The extractor a spec names; *options* (``base_url``, ``api_key``, ``timeout`` …)
    go to the provider's factory."""
    kind, provider, model = parse_spec(spec)
    module_name, _, factory_name = _FACTORIES[kind].partition(":")
    factory = getattr(importlib.import_module(module_name), factory_name)
    if kind == "rules":
        return factory(**options)
    return factory(provider, model, **options)
