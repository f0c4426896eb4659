"""A recall through a door reads its question once (issue #28): one tokenisation of the
query, one encode, one check of the arguments.

Before recall was its own package an MCP recall tokenised the query three times or more
(``query_terms`` in ``recall``, ``_gather`` and ``_add_lexical``, again in the stages) and
checked its arguments twice (the registry's schema at the door, the store's own checks).
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import pytest
from houkai.api import mcp_server

from houkai.app.service import MemoryService
from houkai.domain import text as text_module

QUESTION = "What did Priya decide about the billing-api Postgres upgrade last week?"
QUESTIONS = {  # one per test: the query vector cache is the process's
    "hybrid": QUESTION,
    "semantic": "Which Postgres version did Priya choose for billing-api?",
}


@pytest.fixture()
def counted(store, settings, monkeypatch, request) -> Counter[str]:
    """An MCP door over *store*, counting tokenisations of the question, encodes and
    argument checks."""
    store.remember_many(
        [
            "Priya decided to move billing-api to Postgres 16 after the load test.",
            "billing-api ran on Postgres 14 until the upgrade.",
            "The search service stays on Elasticsearch.",
            "Tom said the upgrade window is Sunday night.",
        ]
    )
    store.recall("warm up", k=1, mode="hybrid")  # every module imported before the patches
    counts: Counter[str] = Counter()
    question = QUESTIONS[request.param]
    real_tokenize = text_module.tokenize

    def tokenize(text: str) -> list[str]:
        if text == question:
            counts["tokenize"] += 1
        return real_tokenize(text)

    # every module that imported the tokenizer by name, and the text module itself
    for name, module in list(sys.modules.items()):
        if name.startswith("houkai") and getattr(module, "tokenize", None) is real_tokenize:
            monkeypatch.setattr(module, "tokenize", tokenize)
    embedder: Any = store.embedder
    real_encode = embedder.encode

    def encode(texts: Any, *args: Any, **kwargs: Any) -> Any:
        counts["encode"] += sum(1 for t in texts if t == question)
        return real_encode(texts, *args, **kwargs)

    monkeypatch.setattr(embedder, "encode", encode)
    from houkai.app.operations import schema

    real_check = schema.check_arguments

    def check(op: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        if op.name == "recall":
            counts["door check"] += 1
        return real_check(op, arguments)

    for module in [m for n, m in sys.modules.items() if n.startswith("houkai")]:
        if getattr(module, "check_arguments", None) is real_check:
            monkeypatch.setattr(module, "check_arguments", check)
    from houkai.domain import model

    real_choice = model.validate_choice

    def validate_choice(value: Any, choices: Any, name: str) -> Any:
        if name == "fusion":  # only a recall's library check asks for the fusion
            counts["library check"] += 1
        return real_choice(value, choices, name)

    for module in [m for n, m in sys.modules.items() if n.startswith("houkai")]:
        if getattr(module, "validate_choice", None) is real_choice:
            monkeypatch.setattr(module, "validate_choice", validate_choice)
    service = MemoryService(
        settings.replace(collection=store.collection_name),
        actor="mcp",
        store_factory=lambda name: store,
    )
    mcp_server.set_service(service)
    yield counts
    mcp_server.set_service(None)


@pytest.mark.parametrize("counted", ["hybrid", "semantic"], indirect=True)
def test_an_mcp_recall_reads_its_question_once(counted: Counter[str], request) -> None:
    mode = request.node.callspec.params["counted"]
    hits = mcp_server.to_jsonable(
        mcp_server.call_tool("recall", {"query": QUESTIONS[mode], "k": 3, "mode": mode})
    )
    assert hits and "Priya" in json_text(hits)
    assert counted["tokenize"] == 1, counted
    assert counted["encode"] == 1, counted
    assert counted["door check"] == 1 and counted["library check"] == 0, counted


def json_text(value: Any) -> str:
    import json

    return json.dumps(value)
