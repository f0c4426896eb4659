"""An OpenAI agent with long-term memory: the function-calling loop over houkai.

    pip install houkai openai
    export OPENAI_API_KEY=...             # and optionally HOUKAI_COLLECTION, REDIS_URL
    python examples/openai_agent.py

Copy this file and ``dispatch.py`` into your app; ``run_turn`` is the loop.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from openai import OpenAI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dispatch import SYSTEM_PROMPT, dispatch_tool, openai_tools

MODEL = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
MAX_STEPS = 8


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
                "content": message.content,
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
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": dispatch_tool(call.function.name, call.function.arguments),
                }
            )
    return "(stopped: too many tool calls in one turn)"


def main() -> None:
    client = OpenAI()
    messages: list[dict[str, Any]] = []
    print("OpenAI with houkai memory. Empty line to quit.")
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
