"""The LLM extractor: prompts out, validated candidates and decisions in, with the
pipeline's promises around every attempt.

Each attempt takes a token from the provider's shared bucket (and, with a
tokens-per-minute limit, the prompt's estimated tokens from a second one), then a slot
under its concurrency cap, then makes one HTTP request. A transient failure (429, 5xx, timeout)
waits with backoff (at least the server's ``Retry-After``) and tries again; a malformed
reply is asked again; both share the call's retry budget. What is left when the
budget is spent is :class:`~.errors.RetryLater` or :class:`~.errors.DeadLetter`, both
carrying the tokens spent. A validated reply is cached in Redis under the hash of its
prompt, so a redelivered task gets the same answer without paying for it again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from redis.exceptions import RedisError

from ...db.keys import GlobalKeys
from ..base import Candidate, ChatMessage, Decision, ExtractResult, Neighbour, Usage
from . import prompts
from .concurrency import NoCap, Semaphore
from .errors import DeadLetter, LLMError, MalformedReply, RetryLater
from .parse import parse_candidates, parse_decision
from .pricing import Prices, cost
from .providers import Reply, Transport
from .ratelimit import NoLimit, TokenBucket
from .retry import RetryPolicy

log = logging.getLogger(__name__)
T = TypeVar("T")
CHARS_PER_TOKEN = 4  # a prompt's token estimate for the tokens-per-minute bucket


class LLMExtractor:
    """An :class:`~houkai.extraction.base.Extractor` backed by one provider and model."""

    def __init__(
        self,
        provider: str,
        model: str,
        transport: Transport,
        *,
        limiter: TokenBucket | NoLimit | None = None,
        token_limiter: TokenBucket | NoLimit | None = None,
        semaphore: Semaphore | NoCap | None = None,
        policy: RetryPolicy | None = None,
        wait: float = 30.0,
        prices: Prices | None = None,
        cache: Any = None,
        cache_prefix: str = "",
        cache_ttl: int = 0,
        batch_chars: int = prompts.BATCH_CHARS,
    ) -> None:
        self.provider = provider
        self.model = model
        self.spec = f"llm:{provider}:{model}"
        self.transport = transport
        self.limiter = limiter or NoLimit()
        self.token_limiter = token_limiter or NoLimit()
        self.semaphore = semaphore or NoCap()
        self.policy = policy or RetryPolicy()
        self.wait = wait
        self.prices = prices or {}
        self.cache = cache if cache_ttl > 0 else None
        self.cache_prefix = cache_prefix
        self.cache_ttl = cache_ttl
        self.batch_chars = batch_chars

    # ------------------------------------------------------------------ protocol
    def extract(self, messages: Sequence[ChatMessage], *, summary: str = "") -> ExtractResult:
        """Candidates from *messages* citing their ids, in message order. Long batches go
        in parts of about ``batch_chars`` characters (each cached on its own, so a retry
        after a failed part pays only for the parts not yet answered); a part in which no
        user spoke costs no call."""
        total = self._usage()
        candidates: list[Candidate] = []
        for part in prompts.batches(messages, self.batch_chars):
            if not any(m.role == "user" and m.content.strip() for m in part):
                continue
            ids = [m.id for m in part]
            try:
                found, usage = self._call(
                    prompts.EXTRACT_SYSTEM,
                    prompts.extraction_prompt(part, summary),
                    prompts.EXTRACT_TOOL,
                    prompts.EXTRACT_SCHEMA,
                    functools.partial(parse_candidates, message_ids=ids),
                )
            except LLMError as exc:
                total.add(exc.usage)  # the parts already answered were paid for too
                exc.usage = total
                raise
            candidates.extend(found)
            total.add(usage)
        return ExtractResult(candidates, total)

    def decide(
        self, candidate: Candidate, neighbours: Sequence[Neighbour]
    ) -> tuple[Decision | None, Usage]:
        """ADD/UPDATE/NOOP from the model; with no neighbours it is ADD without a call."""
        if not neighbours:
            return Decision("ADD", candidate, reason="no stored memory near it"), self._usage()
        aliases = prompts.neighbour_aliases(neighbours)
        return self._call(
            prompts.DECIDE_SYSTEM,
            prompts.decision_prompt(candidate, neighbours),
            prompts.DECIDE_TOOL,
            prompts.DECIDE_SCHEMA,
            lambda payload: parse_decision(payload, candidate, aliases),
        )

    # ------------------------------------------------------------------ one call
    def _usage(self) -> Usage:
        return Usage(provider=self.provider, model=self.model)

    def _cache_key(self, system: str, prompt: str) -> str:
        digest = hashlib.sha256(f"{self.spec}\0{system}\0{prompt}".encode()).hexdigest()
        return GlobalKeys(self.cache_prefix).llm("reply", digest[:40])

    def _cached(self, key: str) -> Any:
        if self.cache is None:
            return None
        try:
            raw = self.cache.get(key)
        except Exception as exc:  # the cache is an optimisation: never a failure
            log.warning("llm reply cache read failed: %s", exc)
            return None
        return json.loads(raw) if raw else None

    def _remember(self, key: str, payload: Any) -> None:
        if self.cache is None:
            return
        try:
            data = payload if isinstance(payload, str) else json.dumps(payload)
            self.cache.set(key, json.dumps(data), ex=self.cache_ttl)
        except Exception as exc:
            log.warning("llm reply cache write failed: %s", exc)

    def _attempt(self, system: str, prompt: str, name: str, schema: dict[str, Any]) -> Reply:
        self.limiter.acquire(1, timeout=self.wait)
        if isinstance(self.token_limiter, TokenBucket):  # tokens per minute: an estimate
            estimate = (len(system) + len(prompt) + len(json.dumps(schema))) / CHARS_PER_TOKEN
            self.token_limiter.acquire(min(estimate, self.token_limiter.burst), timeout=self.wait)
        with self.semaphore.slot(timeout=self.wait):
            return self.transport.complete(system, prompt, name, schema)

    def _call(
        self,
        system: str,
        prompt: str,
        name: str,
        schema: dict[str, Any],
        parse: Callable[[Any], T],
    ) -> tuple[T, Usage]:
        usage = self._usage()
        key = self._cache_key(system, prompt)
        cached = self._cached(key)
        if cached is not None:
            try:
                return parse(cached), usage
            except MalformedReply:
                pass  # a cache from an older prompt shape: ask again
        tries = self.policy.retries + 1
        problem = ""
        for attempt in range(tries):
            try:
                reply = self._attempt(system, prompt, name, schema)
            except LLMError as exc:  # our limiter or semaphore: not now
                exc.usage, exc.attempts = usage, attempt + 1
                raise
            except RedisError as exc:  # the shared limits are out of reach: not now either
                raise RetryLater(
                    f"{self.spec}: the rate limit / concurrency cap in Redis failed: {exc}",
                    usage=usage,
                    attempts=attempt + 1,
                    retry_after=self.policy.base * 10,
                ) from exc
            except Exception as exc:
                kind, after = self.transport.classify(exc)
                problem = f"{type(exc).__name__}: {exc}"
                if kind == "malformed":
                    log.warning("%s: malformed response: %s", self.spec, problem)
                    continue
                if kind == "permanent":
                    raise DeadLetter(
                        f"{self.spec}: {problem}", usage=usage, attempts=attempt + 1
                    ) from exc
                delay = self.policy.delay(attempt, after)
                if attempt + 1 >= tries or delay > self.policy.max_wait:
                    raise RetryLater(
                        f"{self.spec}: {problem} (after {attempt + 1} attempts)",
                        usage=usage,
                        attempts=attempt + 1,
                        retry_after=max(delay, after or 0.0),
                    ) from exc
                log.info("%s: %s; retry %d in %.2fs", self.spec, problem, attempt + 1, delay)
                time.sleep(delay)
                continue
            spent = Usage(
                provider=self.provider,
                model=self.model,
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
                cost_usd=cost(self.model, reply.input_tokens, reply.output_tokens, self.prices),
                calls=1,
            )
            usage.add(spent)
            try:
                value = parse(reply.payload)
            except MalformedReply as exc:
                problem = f"malformed reply: {exc}"
                log.warning("%s: %s (attempt %d of %d)", self.spec, problem, attempt + 1, tries)
                continue
            self._remember(key, reply.payload)
            return value, usage
        raise DeadLetter(
            f"{self.spec}: no valid reply in {tries} attempts; last: {problem}",
            usage=usage,
            attempts=tries,
        )
