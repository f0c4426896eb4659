"""LLM extractors: ``llm:openai:<model>``, ``llm:anthropic:<model>``, ``llm:ollama:<model>``.

:func:`make_llm_extractor` is what :func:`houkai.extraction.registry.extractor_for`
calls. OpenAI and every OpenAI-compatible server (vLLM, LM Studio, llama.cpp server)
go through the ``openai`` client with ``base_url``; Ollama is that same client pointed
at Ollama's OpenAI-compatible endpoint (``http://localhost:11434/v1``), so a fully local
setup needs neither a cloud key nor another package; Anthropic goes through the
``anthropic`` client. Around every request: a Redis token bucket per provider
(:mod:`.ratelimit`), a Redis semaphore per provider (:mod:`.concurrency`), timeouts and
retries (:mod:`.retry`), and errors that say retry-later or dead-letter (:mod:`.errors`).
"""

from __future__ import annotations

import os
from typing import Any

from ...db.keys import GlobalKeys
from ...domain.model import ValidationError
from .concurrency import NoCap, Semaphore
from .errors import DeadLetter, LLMError, RetryLater, disposition
from .extractor import LLMExtractor
from .pricing import price_table
from .providers import AnthropicMessages, OpenAIChat, Transport
from .ratelimit import NoLimit, TokenBucket
from .retry import RetryPolicy

__all__ = [
    "DeadLetter",
    "LLMError",
    "LLMExtractor",
    "RetryLater",
    "disposition",
    "extractor_from_settings",
    "make_llm_extractor",
    "settings_options",
]

OLLAMA_BASE_URL = "http://localhost:11434/v1"
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
LEASE_MARGIN = 10.0  # seconds a concurrency lease outlives one request's timeout


def _api_key(
    provider: str, api_key: str | None, api_key_env: str | None, base_url: str | None
) -> str:
    if api_key:
        return api_key
    env = api_key_env or KEY_ENV.get(provider, "")
    if env and os.environ.get(env):
        return os.environ[env]
    if provider == "ollama" or base_url:
        return "unused"  # local servers take any key; the client insists on one
    raise ValidationError(
        f"llm:{provider} needs an API key: set {env} (or llm_api_key_env to the variable "
        "that holds it), or point llm_base_url at a local OpenAI-compatible server"
    )


def make_llm_extractor(
    provider: str,
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    api_key_env: str | None = None,
    timeout: float = 60.0,
    max_retries: int = 3,
    client: Any = None,
    prefix: str = "houkai",
    rate: float = 0.0,
    burst: float = 0.0,
    tpm: float = 0.0,
    concurrency: int = 0,
    wait: float = 30.0,
    prices: Any = None,
    mode: str = "json_schema",
    max_tokens: int = 0,
    temperature: float | None = None,
    cache_ttl: int = 86400,
    batch_chars: int = 24_000,
    transport: Transport | None = None,
) -> LLMExtractor:
    """An extractor for *provider* (openai | anthropic | ollama) and *model*.

    *client* is a Redis client: with it the rate limit (*rate* requests per second,
    *burst* at once; *tpm* estimated prompt tokens per minute) and the concurrency cap
    hold across every process sharing that Redis, and replies are cached for *cache_ttl*
    seconds; without it there is no limit.
    *wait* bounds the time one attempt may wait for a token or a slot.
    """
    if provider not in ("openai", "anthropic", "ollama"):
        raise ValidationError(f"unknown LLM provider {provider!r}")
    if timeout <= 0 or max_retries < 0 or min(rate, burst, tpm, concurrency) < 0:
        raise ValidationError("timeout must be > 0; retries, rate and concurrency >= 0")
    if transport is None:
        url = base_url or (OLLAMA_BASE_URL if provider == "ollama" else None)
        key = _api_key(provider, api_key, api_key_env, url)
        if provider == "anthropic":
            transport = AnthropicMessages(
                model,
                api_key=key,
                base_url=url,
                timeout=timeout,
                max_tokens=max_tokens,
                temperature=temperature,
            )
        else:
            transport = OpenAIChat(
                model,
                api_key=key,
                base_url=url,
                timeout=timeout,
                mode=mode,
                max_tokens=max_tokens,
                temperature=temperature,
            )
    limiter: TokenBucket | NoLimit = NoLimit()
    semaphore: Semaphore | NoCap = NoCap()
    if client is not None and rate > 0:
        limiter = TokenBucket(client, GlobalKeys(prefix).llm("rate", provider), rate, burst or None)
    tokens: TokenBucket | NoLimit = NoLimit()
    if client is not None and tpm > 0:  # a minute's worth may go at once, as providers allow
        tokens = TokenBucket(client, GlobalKeys(prefix).llm("tpm", provider), tpm / 60, tpm)
    if client is not None and concurrency > 0:
        lease = timeout + LEASE_MARGIN
        semaphore = Semaphore(client, GlobalKeys(prefix).llm("slots", provider), concurrency, lease)
    return LLMExtractor(
        provider,
        model,
        transport,
        limiter=limiter,
        token_limiter=tokens,
        semaphore=semaphore,
        policy=RetryPolicy(retries=max_retries),
        wait=wait,
        prices=price_table(prices),
        cache=client,
        cache_prefix=prefix,
        cache_ttl=cache_ttl if client is not None else 0,
        batch_chars=max(1, batch_chars),
    )


def settings_options(settings: Any, client: Any = None) -> dict[str, Any]:
    """The factory options the ``llm_*`` settings give (for an ``llm:`` spec only)."""
    return {
        "base_url": settings.llm_base_url or None,
        "api_key_env": settings.llm_api_key_env or None,
        "timeout": settings.llm_timeout,
        "max_retries": settings.llm_retries,
        "client": client,
        "prefix": settings.key_prefix,
        "rate": settings.llm_rate,
        "burst": settings.llm_burst,
        "tpm": settings.llm_tpm,
        "concurrency": settings.llm_concurrency,
        "wait": settings.llm_wait,
        "prices": settings.llm_prices,
        "mode": settings.llm_mode,
        "max_tokens": settings.llm_max_tokens,
        "cache_ttl": settings.llm_cache_ttl,
        "batch_chars": settings.llm_batch_chars,
    }


def extractor_from_settings(settings: Any, client: Any = None, spec: str | None = None) -> Any:
    """The extractor *spec* (default: ``settings.extractor``) names, an LLM one built with
    the ``llm_*`` settings and *client* (Redis) for the shared limits, usage and cache."""
    from ..registry import extractor_for, parse_spec

    name = spec or settings.extractor
    if parse_spec(name)[0] == "llm":
        return extractor_for(name, **settings_options(settings, client))
    return extractor_for(name)
