"""Recall as a package (issue #28): one registry of stages, one request, no circle.

* a stage registered in :data:`houkai.recall.stages.REGISTRY` (the one place) is a
  switch, runs in a recall, shows in ``explain`` and gets its ``bench suite`` mode;
* :class:`~houkai.recall.request.RecallRequest` has the registry's recall parameters
  (names and defaults) and refuses what the doors refuse (both are made from the one
  declaration, ``houkai/recall/parameters.py``: ``tests/test_recall_params.py``);
* the recall package imports no module that imports it back, and no file is long.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

import houkai
from houkai.app.operations.catalog import BY_NAME
from houkai.app.operations.schema import check_arguments
from houkai.bench.suite import suite_modes
from houkai.domain.model import ValidationError
from houkai.recall import stages as registry
from houkai.recall.candidates import Candidate
from houkai.recall.request import RecallRequest
from houkai.recall.stages.base import Signals, Stage, StageContext

PACKAGE = Path(houkai.__file__).parent


class Echo(Stage):
    """A probe stage: a signal of 0.01 × the candidate's cosine."""

    name = "echo"

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        return {"echo": (0.01, [c.cosine for c in cands])}


def test_a_stage_registered_in_the_one_place_runs_and_shows(store, monkeypatch) -> None:
    entry = registry.Entry("echo", False, "a probe", impl=Echo())
    monkeypatch.setattr(registry, "REGISTRY", (*registry.REGISTRY, entry))
    assert "echo" in registry.names() and "echo" not in registry.default_names()
    assert registry.resolve_stages("default,echo")[-1] == "echo"
    assert "+echo" in suite_modes(registry.default_names())  # the suite toggles it
    store.remember_many(["the deploy runbook lives in the wiki", "lunch is at noon"])
    hits = store.recall(
        "where is the deploy runbook?", k=2, mode="hybrid", stages="default,echo",
        explain=True, touch=False,
    )  # fmt: skip
    explain = hits[0][2]
    assert "echo" in explain["stages"]["active"]
    assert explain["stages"]["echo"] == pytest.approx(0.01 * explain["cosine"], abs=1e-6)
    off = store.recall("where is the deploy runbook?", k=2, mode="hybrid", explain=True)
    assert "echo" not in off[0][2]["stages"]  # off by default, as registered


def test_the_default_word_is_the_registry_s_defaults() -> None:
    assert registry.resolve_stages("default") == registry.default_names()
    assert registry.resolve_stages("default,fitted")[-1] == "fitted"
    assert registry.resolve_stages(None) == registry.names()
    with pytest.raises(ValidationError, match="unknown recall stage 'llm'"):
        registry.resolve_stages("default,llm")


def _request_fields() -> dict[str, dataclasses.Field[Any]]:
    return {f.name: f for f in dataclasses.fields(RecallRequest)}


def test_the_request_holds_the_registry_s_recall_parameters() -> None:
    door = BY_NAME["recall"].params.model_fields
    fields = _request_fields()
    converted = {"graph"}  # the door's graph weight becomes the request's HybridWeights
    assert set(door) - converted <= set(fields)
    for name, spec in door.items():
        if name in converted or spec.is_required() or spec.default is None:
            continue  # None at a door means "the store's default"
        assert fields[name].default == spec.default, name


BAD: list[tuple[str, Any]] = [
    ("k", -1), ("k", 10_001), ("overfetch", 0), ("overfetch", 101), ("mode", "fast"),
    ("fusion", "sum"), ("type", "nope"), ("diversity", 1.5), ("dedup_threshold", -0.1),
    ("min_cosine", -1.5), ("min_importance", 2.0), ("since", "yesterday"),
    ("user_id", 42), ("query", None),
]  # fmt: skip


@pytest.mark.parametrize(("name", "value"), BAD)
def test_the_library_refuses_what_the_doors_refuse(name: str, value: Any) -> None:
    arguments = {"query": "x", name: value}
    with pytest.raises(ValidationError):
        check_arguments(BY_NAME["recall"], arguments)
    with pytest.raises(ValidationError, match=name):
        RecallRequest(**arguments)


def test_a_request_is_frozen_and_a_door_s_is_not_checked_again() -> None:
    request = RecallRequest("x", k=3, stages="query,prf")
    assert request.stages == ("query", "prf")  # resolved once
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.k = 4  # type: ignore[misc]
    checked = RecallRequest.checked(query="x", k=3, mode="hybrid")
    assert checked == RecallRequest("x", k=3, mode="hybrid")


# --------------------------------------------------------------------------- layout
def _imports(path: Path, module: str) -> set[str]:
    """The houkai modules *path* (module *module*) imports, resolved to module names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("houkai")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            if not base.startswith("houkai"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _module_path(candidate) else base)
    return found


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (type-only imports run never)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for child in node.body for n in ast.walk(child)}
    return [n for n in ast.walk(tree) if id(n) not in skipped]


def _module_path(module: str) -> Path | None:
    rel = Path(*module.split(".")[1:])
    for path in (PACKAGE / rel).with_suffix(".py"), PACKAGE / rel / "__init__.py":
        if path.exists():
            return path
    return None


def _graph(roots: tuple[str, ...]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    todo = [
        ".".join(("houkai", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for root in roots
        for p in (PACKAGE / root).rglob("*.py")
    ]
    while todo:
        module = todo.pop()
        path = _module_path(module)
        if module in graph or path is None:
            continue
        graph[module] = _imports(path, module)
        todo += graph[module]
    return graph


def test_recall_and_the_store_import_no_circle() -> None:
    graph = _graph(("recall", "store"))
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for nxt in graph.get(module, ()):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                if any(m.startswith("houkai.recall") for m in cycle):
                    raise AssertionError(" → ".join(cycle))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module.startswith("houkai.recall") and module not in state:
            visit(module)


def test_no_recall_module_is_long() -> None:
    long = {
        p.name: n
        for p in (PACKAGE / "recall").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
