"""Reflection summarizers built from a ``provider:model`` spec string (§7).

A summarizer is any ``Callable[[list[Memory]], str]``. ``build_summarizer``
turns a config spec into one:

- ``extractive`` (also ``None`` / ``""``): the built-in, no LLM.
- ``ollama:MODEL``: Ollama's OpenAI-compatible ``/v1/chat/completions`` over
  stdlib ``urllib`` (no SDK); base URL from ``OLLAMA_BASE_URL``, default
  ``http://localhost:11434``. The model may contain colons (``llama3.1:8b``).
- ``openai:MODEL`` / ``anthropic:MODEL``: the vendor SDK, imported lazily.

LLM summarizers are wrapped with a fallback by default: an exception or an
empty answer logs a warning and uses the extractive summary for that cluster,
because reflection runs unattended in maintenance and a down LLM must not fail
the tick. Spec errors raise ``ValueError`` at build time instead, so a typo'd
config fails at startup, not at 3 AM.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import urllib.request
from collections.abc import Callable

from ..domain.model import Memory, ValidationError

log = logging.getLogger(__name__)

Summarizer = Callable[[list[Memory]], str]

PROVIDERS: tuple[str, ...] = ("extractive", "ollama", "openai", "anthropic")
EXTRACTIVE_MAX_CHARS = 512
DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434"
LLM_TIMEOUT_SECONDS = 120.0
MAX_OUTPUT_TOKENS = 1024

PROMPT_TEMPLATE = (
    "You are condensing an AI agent's episodic memories into one durable semantic memory.\n\n"
    "Events (most important first):\n{events}\n\n"
    "Write one concise summary of 1-3 sentences that keeps the durable facts, decisions and "
    "patterns. Do not invent anything that is not in the events. Reply with the summary only."
)


def _by_importance(memories: list[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: m.importance, reverse=True)


def extractive_summarizer(memories: list[Memory]) -> str:
    """The default: texts joined most-important first, ``[Reflection ×N]`` prefix, 512 chars."""
    body = " | ".join(m.text for m in _by_importance(memories))
    return f"[Reflection ×{len(memories)}] {body}"[:EXTRACTIVE_MAX_CHARS]


def render_prompt(memories: list[Memory]) -> str:
    """The one prompt every LLM provider gets."""
    events = "\n".join(f"- {m.text}" for m in _by_importance(memories))
    return PROMPT_TEMPLATE.format(events=events)


def _ollama(model: str) -> Summarizer:
    """Chat with Ollama's OpenAI-compatible endpoint using only the standard library."""

    def summarize(memories: list[Memory]) -> str:
        base = (os.environ.get("OLLAMA_BASE_URL") or DEFAULT_OLLAMA_BASE_URL).rstrip("/")
        if not base.endswith("/v1"):
            base += "/v1"
        payload = {
            "model": model,
            "messages": [{"role": "user", "content": render_prompt(memories)}],
        }
        request = urllib.request.Request(
            f"{base}/chat/completions",
            data=json.dumps(payload).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=LLM_TIMEOUT_SECONDS) as response:
            data = json.loads(response.read().decode("utf-8"))
        return data["choices"][0]["message"]["content"] or ""

    return summarize


def _sdk(module: str, extra: str) -> object:
    """Import a vendor SDK on first use, with an install hint when it is absent."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"the {module} SDK is needed for a '{module}:' summarizer — "
            f"pip install 'houkai[{extra}]'"
        ) from exc


def _openai(model: str) -> Summarizer:
    client = _sdk("openai", "openai").OpenAI()  # type: ignore[attr-defined]

    def summarize(memories: list[Memory]) -> str:
        response = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": render_prompt(memories)}],
        )
        return response.choices[0].message.content or ""

    return summarize


def _anthropic(model: str) -> Summarizer:
    client = _sdk("anthropic", "anthropic").Anthropic()  # type: ignore[attr-defined]

    def summarize(memories: list[Memory]) -> str:
        response = client.messages.create(
            model=model,
            max_tokens=MAX_OUTPUT_TOKENS,
            messages=[{"role": "user", "content": render_prompt(memories)}],
        )
        return "".join(
            getattr(block, "text", "") or ""
            for block in response.content
            if getattr(block, "type", "") == "text"
        )

    return summarize


def with_fallback(inner: Summarizer, spec: str) -> Summarizer:
    """Use the extractive summary (and log a warning) when *inner* fails or says nothing."""

    def summarize(memories: list[Memory]) -> str:
        try:
            text = (inner(memories) or "").strip()
        except Exception as exc:  # any provider failure degrades, never fails the tick
            log.warning("summarizer %r failed (%s); using the extractive summary", spec, exc)
            return extractive_summarizer(memories)
        if not text:
            log.warning("summarizer %r returned nothing; using the extractive summary", spec)
            return extractive_summarizer(memories)
        return text

    summarize.spec = spec  # type: ignore[attr-defined]
    return summarize


def parse_spec(spec: str | None) -> tuple[str, str]:
    """``(provider, model)`` of a spec; ``("extractive", "")`` for the default.

    Raises ``ValueError`` for an unknown provider or a missing model.
    """
    if spec is None:
        return "extractive", ""
    if not isinstance(spec, str):
        raise ValidationError(
            f"summarizer spec must be a string like 'ollama:MODEL' — got {spec!r}"
        )
    text = spec.strip()
    if not text or text.lower() in ("extractive", "default", "none"):
        return "extractive", ""
    provider, sep, model = text.partition(":")
    provider, model = provider.strip().lower(), model.strip()
    if provider not in PROVIDERS:
        raise ValidationError(
            f"Unknown summarizer provider {provider!r} in {spec!r} — expected one of: "
            f"{', '.join(PROVIDERS)} (as 'extractive' or 'provider:MODEL')"
        )
    if provider == "extractive":
        if model:  # tolerated as in the seed: the extractive summarizer has no model
            log.info("summarizer spec %r: the extractive summarizer ignores the model part", spec)
        return "extractive", ""
    if not sep or not model:
        raise ValidationError(
            f"summarizer spec {spec!r} is missing a model — e.g. '{provider}:MODEL'"
        )
    return provider, model


def build_summarizer(spec: str | None, *, fallback: bool = True) -> Summarizer:
    """Build the summarizer for *spec* (see the module docstring for the forms).

    ``fallback=False`` surfaces LLM errors instead of degrading. Raises
    ``ValueError`` on a bad spec and ``ImportError`` (with an install hint) when
    the provider's SDK is missing.
    """
    provider, model = parse_spec(spec)
    if provider == "extractive":
        return extractive_summarizer
    factories: dict[str, Callable[[str], Summarizer]] = {
        "ollama": _ollama,
        "openai": _openai,
        "anthropic": _anthropic,
    }
    inner = factories[provider](model)
    return with_fallback(inner, f"{provider}:{model}") if fallback else inner


__all__ = [
    "PROVIDERS",
    "Summarizer",
    "build_summarizer",
    "extractive_summarizer",
    "parse_spec",
    "render_prompt",
    "with_fallback",
]
