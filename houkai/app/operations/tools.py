"""Provider tool definitions (Anthropic, OpenAI/Ollama) generated from the registry.

The same name, description and parameter schema as the MCP tool, without the
``collection`` argument (an app picks the collection, not the model).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .catalog import BY_NAME
from .schema import params_schema
from .spec import Operation


def _ops(names: Iterable[str]) -> list[Operation]:
    chosen = list(names)
    unknown = [n for n in chosen if n not in BY_NAME or not BY_NAME[n].mcp]
    if unknown:
        tools = ", ".join(n for n, op in BY_NAME.items() if op.mcp)
        raise ValueError(f"unknown tools {unknown}; available: {tools}")
    return [BY_NAME[n] for n in chosen]


def anthropic_tools(names: Iterable[str]) -> list[dict[str, Any]]:
    """``{name, description, input_schema}`` per tool (Anthropic's Messages API)."""
    return [
        {"name": op.name, "description": op.agent_description, "input_schema": params_schema(op)}
        for op in _ops(names)
    ]


def openai_tools(names: Iterable[str]) -> list[dict[str, Any]]:
    """``{"type": "function", "function": {name, description, parameters}}`` (OpenAI, Ollama)."""
    return [
        {
            "type": "function",
            "function": {
                "name": op.name,
                "description": op.agent_description,
                "parameters": params_schema(op),
            },
        }
        for op in _ops(names)
    ]
