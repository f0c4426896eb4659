"""A Claude agent with long-term memory: the Anthropic tool-use loop over houkai.

    pip install houkai anthropic
    export ANTHROPIC_API_KEY=...          # and optionally HOUKAI_COLLECTION, REDIS_URL
    python examples/claude_agent.py

Copy this file and ``dispatch.py`` into your app; ``run_turn`` is the loop.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anthropic

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dispatch import SYSTEM_PROMPT, anthropic_tools, dispatch_tool

MODEL = os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5")
MAX_STEPS = 8


def run_turn(
    client: Any,
    messages: list[dict[str, Any]],
    *,
    model: str = MODEL,
    tools: list[dict[str, Any]] | None = None,
    max_steps: int = MAX_STEPS,
) -> str:
    """Send *messages*, run every tool call Claude makes, return its final text.

    *messages* is extended in place with the assistant turns and tool results,
    so the caller keeps the conversation.
    """
    tools = tools if tools is not None else anthropic_tools()
    for _ in range(max_steps):
        response = client.messages.create(
            model=model, max_tokens=1024, system=SYSTEM_PROMPT, tools=tools, messages=messages
        )
        messages.append({"role": "assistant", "content": response.content})
        calls = [b for b in response.content if getattr(b, "type", None) == "tool_use"]
        if response.stop_reason != "tool_use" or not calls:
            return "".join(
                getattr(b, "text", "")
                for b in response.content
                if getattr(b, "type", None) == "text"
            )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call.id,
                        "content": dispatch_tool(call.name, json.dumps(call.input)),
                    }
                    for call in calls
                ],
            }
        )
    return "(stopped: too many tool calls in one turn)"


def main() -> None:
    client = anthropic.Anthropic()
    messages: list[dict[str, Any]] = []
    print("Claude with houkai memory. Empty line to quit.")
    while True:
        try:
            user = input("you> ").strip()
        except EOFError:
            break
        if not user:
            break
        messages.append({"role": "user", "content": user})
        print("claude>", run_turn(client, messages))


if __name__ == "__main__":
    main()
