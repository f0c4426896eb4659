"""A local Ollama agent with long-term memory (OpenAI-compatible endpoint, no API key).

    pip install houkai openai
    ollama pull llama3.1                  # a model with tool support
    export OLLAMA_BASE_URL=http://localhost:11434/v1   # or another host on your network
    python examples/ollama_agent.py

Same loop as ``openai_agent.py``; only the client's base URL and model differ.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from openai import OpenAI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dispatch import SYSTEM_PROMPT, dispatch_tool, openai_tools

BASE_URL = os.environ.get("OLLAMA_BASE_URL", "http://localhost:11434/v1")
MODEL = os.environ.get("OLLAMA_MODEL", "llama3.1")
MAX_STEPS = 8


def make_client() -> Any:
    """An OpenAI client pointed at Ollama (the key is required by the SDK, ignored by Ollama)."""
    return OpenAI(base_url=BASE_URL, api_key=os.environ.get("OLLAMA_API_KEY", "ollama"))


def run_turn(
    client: Any,
    messages: list[dict[str, Any]],
    *,
    model: str = MODEL,
    tools: list[dict[str, Any]] | None = None,
    max_steps: int = MAX_STEPS,
) -> str:
    """Send *messages*, run every function call, return the final answer (extends *messages*)."""
    tools = tools if tools is not None else openai_tools()
    if not messages or messages[0].get("role") != "system":
        messages.insert(0, {"role": "system", "content": SYSTEM_PROMPT})
    for _ in range(max_steps):
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        message = response.choices[0].message
        calls = list(message.tool_calls or [])
        if not calls:
            messages.append({"role": "assistant", "content": message.content or ""})
            return message.content or ""
        messages.append(
            {
                "role": "assistant",
                "content": message.content or "",
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in calls
                ],
            }
        )
        for call in calls:
            # Some local models send arguments as an object, not a JSON string.
            arguments = call.function.arguments
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": dispatch_tool(call.function.name, arguments),
                }
            )
    return "(stopped: too many tool calls in one turn)"


def main() -> None:
    client = make_client()
    messages: list[dict[str, Any]] = []
    print(f"Ollama ({MODEL} at {BASE_URL}) with houkai memory. Empty line to quit.")
    while True:
        try:
            user = input("you> ").strip()
        except EOFError:
            break
        if not user:
            break
        messages.append({"role": "user", "content": user})
        print("assistant>", run_turn(client, messages))


if __name__ == "__main__":
    main()
