"""One tool dispatcher for every agent example (Claude, OpenAI, Ollama).

``dispatch_tool(name, arguments_json) -> str`` is JSON in, JSON out: exactly
what OpenAI/Ollama function calling hands you (Claude's dict input is
``json.dumps``-ed first). It calls :meth:`houkai.app.service.MemoryService.dispatch`,
so validation and behaviour are identical to the MCP server and REST API, and
errors come back as ``{"error": "..."}`` for the model to read instead of
crashing your loop.

The tool definitions for each provider are generated from the operation
registry (:mod:`houkai.app.operations.tools`), like the MCP tools, so names,
descriptions and JSON schemas never drift from the MCP tools or the REST API.

Memory goes to the collection in ``HOUKAI_COLLECTION`` (default ``ai_houkai``)
on the Redis Stack in ``REDIS_URL`` (default: houkai's embedded server).
"""

from __future__ import annotations

import json
from typing import Any

from houkai.api.mcp_server import (
    INSTRUCTIONS,
    TOOLS_BY_NAME,
    clean_arguments,
    error_message,
    to_jsonable,
)

from houkai.app.operations import tools as registry_tools

#: What an app's agent usually needs; pass ``names=`` to expose more.
AGENT_TOOLS: tuple[str, ...] = (
    "auto_context",
    "recall",
    "remember",
    "edit",
    "forget",
    "list_recent",
)
SYSTEM_PROMPT = INSTRUCTIONS

_service: Any = None


def get_service() -> Any:
    """The MemoryService the examples use (actor ``agent``), created on first call."""
    global _service
    if _service is None:
        from houkai.app.service import MemoryService

        _service = MemoryService(actor="agent")
    return _service


def set_service(service: Any) -> None:
    """Point the dispatcher at another service (a collection per user, tests)."""
    global _service
    _service = service


def dispatch_tool(name: str, arguments: str | dict[str, Any] | None = None) -> str:
    """Run tool *name* with JSON *arguments*; always returns a JSON string.

    Success: the tool's result (a list result is wrapped as ``{"results": [...]}``).
    Failure: ``{"error": "<why>"}``, e.g. ``{"error": "unknown tool: fly"}``.
    """
    if name not in TOOLS_BY_NAME:
        return json.dumps({"error": f"unknown tool: {name}"})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return json.dumps({"error": f"arguments are not valid JSON: {exc.msg}"})
    try:
        result = get_service().dispatch(name, clean_arguments(arguments))
        data = to_jsonable(result)
    except Exception as exc:  # the model reads the error and can correct itself
        return json.dumps({"error": error_message(exc)})
    if isinstance(data, list):
        data = {"results": data}
    return json.dumps(data, ensure_ascii=False)


def anthropic_tools(names: tuple[str, ...] | list[str] | None = None) -> list[dict[str, Any]]:
    """Tool definitions in Anthropic's format: ``{name, description, input_schema}``."""
    return registry_tools.anthropic_tools(AGENT_TOOLS if names is None else names)


def openai_tools(names: tuple[str, ...] | list[str] | None = None) -> list[dict[str, Any]]:
    """Tool definitions in OpenAI's (and Ollama's) ``{"type": "function", ...}`` format."""
    return registry_tools.openai_tools(AGENT_TOOLS if names is None else names)


def tool_definitions(
    provider: str, names: tuple[str, ...] | list[str] | None = None
) -> list[dict[str, Any]]:
    """``provider``: ``anthropic`` | ``openai`` | ``ollama``."""
    if provider == "anthropic":
        return anthropic_tools(names)
    if provider in ("openai", "ollama"):
        return openai_tools(names)
    raise ValueError(f"provider must be anthropic, openai or ollama, got {provider!r}")
