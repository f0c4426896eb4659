"""The agent examples: shared dispatch plus one tool-use loop per provider.

The ``anthropic`` / ``openai`` SDKs are replaced by scripted stubs injected in
``sys.modules`` before an example is loaded: no network, no keys. The memory
side is real (the session's Redis Stack and model).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str, monkeypatch: pytest.MonkeyPatch, **sdk_modules: Any):
    """Import ``examples/<name>.py`` fresh, with the given stub SDK modules installed."""
    for module_name, module in sdk_modules.items():
        monkeypatch.setitem(sys.modules, module_name, module)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def dispatch(store, settings, monkeypatch):
    """examples/dispatch.py bound to a fresh collection."""
    from houkai.app.service import MemoryService

    monkeypatch.syspath_prepend(str(EXAMPLES))
    import dispatch as module

    service = MemoryService(
        settings.replace(collection=store.collection_name, pipeline_mode="inline"), actor="agent"
    )
    module.set_service(service)
    yield module
    module.set_service(None)


# --------------------------------------------------------------------------- dispatch


def test_dispatch_remember_recall_forget(dispatch, store):
    stored = json.loads(
        dispatch.dispatch_tool(
            "remember",
            json.dumps(
                {
                    "text": "The user prefers answers in British English",
                    "type": "feedback",
                    "tags": ["style"],
                }
            ),
        )
    )
    assert stored["stored"] is True
    assert store.get(stored["id"]).type == "feedback"

    found = json.loads(dispatch.dispatch_tool("recall", '{"query": "which spelling to use?"}'))
    assert found["results"][0]["id"] == stored["id"]

    assert json.loads(dispatch.dispatch_tool("forget", {"memory_id": stored["id"]})) == {
        "deleted": True
    }
    assert store.get(stored["id"]) is None
    again = json.loads(dispatch.dispatch_tool("recall", '{"query": "which spelling to use?"}'))
    assert stored["id"] not in {r["id"] for r in again["results"]}


def test_dispatch_errors_are_json(dispatch):
    assert json.loads(dispatch.dispatch_tool("fly", "{}")) == {"error": "unknown tool: fly"}
    assert json.loads(dispatch.dispatch_tool("nuke", "{}")) == {"error": "unknown tool: nuke"}
    bad_json = json.loads(dispatch.dispatch_tool("recall", "{query: oops"))
    assert "not valid JSON" in bad_json["error"]
    missing = json.loads(dispatch.dispatch_tool("remember", "{}"))
    assert "missing required" in missing["error"]
    bad_type = json.loads(dispatch.dispatch_tool("remember", '{"text": "x", "type": "dream"}'))
    assert "type" in bad_type["error"]
    # empty arguments and nulls mean defaults
    assert "results" in json.loads(dispatch.dispatch_tool("list_recent", ""))
    assert "results" in json.loads(dispatch.dispatch_tool("list_recent", '{"limit": null}'))


def test_tool_definitions_per_provider(dispatch):
    from houkai.api.mcp_server import TOOLS_BY_NAME

    claude = dispatch.tool_definitions("anthropic")
    openai = dispatch.tool_definitions("openai")
    assert [t["name"] for t in claude] == list(dispatch.AGENT_TOOLS)
    assert [t["function"]["name"] for t in openai] == list(dispatch.AGENT_TOOLS)
    assert dispatch.tool_definitions("ollama") == openai
    remember = next(t for t in claude if t["name"] == "remember")
    assert remember["description"] == TOOLS_BY_NAME["remember"].description
    assert remember["input_schema"]["required"] == ["text"]
    assert "collection" not in remember["input_schema"]["properties"]
    fn = next(t["function"] for t in openai if t["function"]["name"] == "recall")
    assert fn["parameters"]["type"] == "object" and "query" in fn["parameters"]["properties"]
    assert [t["name"] for t in dispatch.anthropic_tools(["stats"])] == ["stats"]
    with pytest.raises(ValueError, match="unknown tools"):
        dispatch.openai_tools(["nope"])
    with pytest.raises(ValueError, match="provider"):
        dispatch.tool_definitions("gemini")


# --------------------------------------------------------------------------- Claude


class ScriptedAnthropic:
    """Stands in for ``anthropic.Anthropic``: replays responses, records requests."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.messages = NS(create=self._create)

    def _create(self, **kwargs: Any) -> Any:
        self.requests.append(json.loads(json.dumps(kwargs, default=_plain)))
        return self.script.pop(0)


def _plain(obj: Any) -> Any:
    return vars(obj) if isinstance(obj, NS) else str(obj)


def test_claude_agent_loop(dispatch, store, monkeypatch):
    script = [
        NS(
            stop_reason="tool_use",
            content=[
                NS(type="text", text="I'll remember that."),
                NS(
                    type="tool_use",
                    id="tu_1",
                    name="remember",
                    input={"text": "The user's cat is called Miso", "tags": ["personal"]},
                ),
            ],
        ),
        NS(
            stop_reason="tool_use",
            content=[
                NS(type="tool_use", id="tu_2", name="recall", input={"query": "name of the cat"}),
            ],
        ),
        NS(stop_reason="end_turn", content=[NS(type="text", text="Your cat is Miso.")]),
    ]
    fake = ScriptedAnthropic(script)
    sdk = types.ModuleType("anthropic")
    sdk.Anthropic = lambda **kw: fake
    example = load_example("claude_agent", monkeypatch, anthropic=sdk)

    messages = [{"role": "user", "content": "My cat is called Miso. What's my cat's name?"}]
    answer = example.run_turn(example.anthropic.Anthropic(), messages)

    assert answer == "Your cat is Miso."
    assert len(fake.requests) == 3
    first = fake.requests[0]
    assert {t["name"] for t in first["tools"]} == set(
        example.dispatch_tool.__globals__["AGENT_TOOLS"]
    )
    assert first["system"]
    # tool results went back as tool_result blocks, answering the right tool_use ids
    result_1 = messages[2]["content"][0]
    assert result_1["type"] == "tool_result" and result_1["tool_use_id"] == "tu_1"
    stored = json.loads(result_1["content"])
    assert store.get(stored["id"]).text == "The user's cat is called Miso"
    recalled = json.loads(messages[4]["content"][0]["content"])
    assert recalled["results"][0]["id"] == stored["id"]
    assert messages[-1]["role"] == "assistant"


# --------------------------------------------------------------------------- OpenAI / Ollama


class ScriptedOpenAI:
    """Stands in for ``openai.OpenAI``: replays chat completions, records requests."""

    def __init__(self, script: list[Any], **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.chat = NS(completions=NS(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        self.requests.append(json.loads(json.dumps(kwargs)))
        return NS(choices=[NS(message=self.script.pop(0))])


def _tool_call(call_id: str, name: str, arguments: Any) -> Any:
    return NS(id=call_id, type="function", function=NS(name=name, arguments=arguments))


def _openai_script(arguments_as_text: bool = True) -> list[Any]:
    def args(value: dict[str, Any]) -> Any:
        return json.dumps(value) if arguments_as_text else value

    return [
        NS(
            content=None,
            tool_calls=[
                _tool_call(
                    "c1",
                    "remember",
                    args({"text": "Deploys happen from the main branch", "type": "procedural"}),
                ),
                _tool_call("c2", "fly", args({})),
            ],
        ),
        NS(content=None, tool_calls=[_tool_call("c3", "recall", args({"query": "deploy branch"}))]),
        NS(content="From main.", tool_calls=None),
    ]


@pytest.mark.parametrize("example_name", ["openai_agent", "ollama_agent"])
def test_openai_compatible_agent_loops(example_name, dispatch, store, monkeypatch):
    created: list[ScriptedOpenAI] = []
    # Ollama models sometimes send arguments as an object rather than a JSON string.
    script = _openai_script(arguments_as_text=example_name == "openai_agent")

    def make(**kwargs: Any) -> ScriptedOpenAI:
        created.append(ScriptedOpenAI(script, **kwargs))
        return created[-1]

    sdk = types.ModuleType("openai")
    sdk.OpenAI = make
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://ollama.lan:11434/v1")
    example = load_example(example_name, monkeypatch, openai=sdk)
    client = example.make_client() if example_name == "ollama_agent" else example.OpenAI()
    if example_name == "ollama_agent":
        assert client.kwargs["base_url"] == "http://ollama.lan:11434/v1"
        assert client.kwargs["api_key"]

    messages = [{"role": "user", "content": "Where do we deploy from?"}]
    assert example.run_turn(client, messages) == "From main."

    assert messages[0]["role"] == "system"
    tools = created[0].requests[0]["tools"]
    assert all(t["type"] == "function" for t in tools)
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["c1", "c2", "c3"]
    stored = json.loads(tool_msgs[0]["content"])
    assert store.get(stored["id"]).type == "procedural"
    assert json.loads(tool_msgs[1]["content"]) == {"error": "unknown tool: fly"}
    assert json.loads(tool_msgs[2]["content"])["results"][0]["id"] == stored["id"]
    # the assistant turn carrying tool calls is echoed back in OpenAI's wire format
    assistant = messages[2]
    assert assistant["tool_calls"][0]["function"]["name"] == "remember"
