"""The wire: one structured-output call through the ``openai`` or ``anthropic`` client.

A transport sends a system prompt and a user prompt, asks for a reply in a JSON schema
and returns the raw structured payload with the tokens it cost; parsing and retrying
are the extractor's. The SDKs' own retries are off (``max_retries=0``): retries, the
rate limit and the concurrency cap are ours, so every attempt passes through them.

- :class:`OpenAIChat`: Chat Completions, for OpenAI and every OpenAI-compatible server
  (Ollama at ``http://localhost:11434/v1``, vLLM, LM Studio, llama.cpp server) via
  ``base_url``. ``mode`` ``json_schema`` (structured output, the default), ``tools``
  (a forced function call) or ``json`` (JSON mode, the schema in the prompt) for
  servers that lack the first two.
- :class:`AnthropicMessages`: the Messages API with one forced tool whose
  ``input_schema`` is the reply's schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from ...domain.model import ValidationError
from .retry import Kind, classify

OPENAI_MODES: tuple[str, ...] = ("json_schema", "tools", "json")


@dataclass(frozen=True)
class Reply:
    payload: str | dict[str, Any] | None
    input_tokens: int = 0
    output_tokens: int = 0


class Transport(Protocol):
    def complete(self, system: str, prompt: str, name: str, schema: dict[str, Any]) -> Reply:
        """One request; raises the client's exceptions."""
        ...

    def classify(self, exc: BaseException) -> tuple[Kind, float | None]:
        """Transient or permanent, and the server's Retry-After if it sent one."""
        ...


def _tokens(value: Any) -> int:
    return int(value) if isinstance(value, int) and value > 0 else 0


class OpenAIChat:
    """Chat Completions through ``openai.OpenAI`` (any OpenAI-compatible ``base_url``)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        mode: str = "json_schema",
        max_tokens: int = 0,
        temperature: float | None = None,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise ValidationError(
                "the openai package is not installed: pip install 'houkai[openai]'"
            ) from None
        if mode not in OPENAI_MODES:
            raise ValidationError(f"mode must be one of {', '.join(OPENAI_MODES)} — got {mode!r}")
        self.model = model
        self.mode = mode
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )
        self._transient = (openai.APITimeoutError, openai.APIConnectionError)

    def complete(self, system: str, prompt: str, name: str, schema: dict[str, Any]) -> Reply:
        kwargs: dict[str, Any] = {"model": self.model}
        if self.mode == "json":
            system = f"{system}\n\nReply with one JSON object matching this schema:\n" + (
                json.dumps(schema)
            )
            kwargs["response_format"] = {"type": "json_object"}
        elif self.mode == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        else:
            kwargs["tools"] = [
                {"type": "function", "function": {"name": name, "parameters": schema}}
            ]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": name}}
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        kwargs["messages"] = [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt},
        ]
        response = self.client.chat.completions.create(**kwargs)
        usage = getattr(response, "usage", None)
        spent = (
            _tokens(getattr(usage, "prompt_tokens", 0)),
            _tokens(getattr(usage, "completion_tokens", 0)),
        )
        choices = getattr(response, "choices", None) or []
        if not choices:
            return Reply(None, *spent)
        message = choices[0].message
        for call in getattr(message, "tool_calls", None) or []:
            function = getattr(call, "function", None)
            if function is not None and function.name == name:
                return Reply(function.arguments, *spent)
        return Reply(getattr(message, "content", None), *spent)

    def classify(self, exc: BaseException) -> tuple[Kind, float | None]:
        return classify(exc, self._transient)


class AnthropicMessages:
    """The Messages API through ``anthropic.Anthropic``, the reply forced into one tool."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 0,
        temperature: float | None = None,
    ) -> None:
        try:
            import anthropic
        except ImportError:
            raise ValidationError(
                "the anthropic package is not installed: pip install 'houkai[anthropic]'"
            ) from None
        self.model = model
        self.max_tokens = max_tokens or 2048  # the Messages API requires a limit
        self.temperature = temperature
        self.client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )
        self._transient = (anthropic.APITimeoutError, anthropic.APIConnectionError)

    def complete(self, system: str, prompt: str, name: str, schema: dict[str, Any]) -> Reply:
        kwargs: dict[str, Any] = {}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        response = self.client.messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=system,
            messages=[{"role": "user", "content": prompt}],
            tools=[{"name": name, "description": system[:1000], "input_schema": schema}],
            tool_choice={"type": "tool", "name": name},
            **kwargs,
        )
        usage = getattr(response, "usage", None)
        spent = (
            _tokens(getattr(usage, "input_tokens", 0)),
            _tokens(getattr(usage, "output_tokens", 0)),
        )
        for block in getattr(response, "content", None) or []:
            if getattr(block, "type", "") == "tool_use" and getattr(block, "name", "") == name:
                payload = getattr(block, "input", None)
                return Reply(payload if isinstance(payload, dict | str) else None, *spent)
        return Reply(None, *spent)

    def classify(self, exc: BaseException) -> tuple[Kind, float | None]:
        return classify(exc, self._transient)
