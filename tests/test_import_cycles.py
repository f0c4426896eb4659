"""No import circle among the modules of houkai/, workers/ and api/.

The graph has an edge ``a -> b`` when module *a* imports *b* anywhere: at module level
(under an ``if``/``try`` too) and inside function bodies. Only imports under
``if TYPE_CHECKING:`` are left out: they never run. A function-local import counts on
purpose: it only defers a dependency, it does not remove it, and two modules that call
each other that way (``engines/embeddings.py`` and ``engines/onnx_embedder.py`` did) are
one unit split in two files. A package's ``__init__`` that a submodule's import runs
first is not an edge: every submodule would otherwise be in a circle with its package.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("houkai", "workers", "api")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of *tree* but those under ``if TYPE_CHECKING``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped
    ]


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                # ``from pkg import sub`` imports the submodule; ``from mod import name``
                # the module (a package that is this module's own ancestor is no edge)
                targets = [
                    f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules else stem
                    for alias in node.names
                ]
                targets = [t for t in targets if not name.startswith(t + ".")]
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_the_modules_and_their_imports() -> None:
    graph = import_graph()
    assert "houkai.store.core" in graph and "houkai.store" in graph
    assert "houkai.store.core" in graph["houkai.store.graph"]  # from .core import CoreStore
    assert "houkai.store.memories" in graph["houkai.store"]


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_function_local_import_counts() -> None:
    tree = ast.parse("def f():\n    import a\nif TYPE_CHECKING:\n    import b\n")
    assert [n.names[0].name for n in _imports(tree)] == ["a"]  # type: ignore[union-attr]


def test_the_engines_do_not_import_the_store() -> None:
    """The store embeds with the engines; the engines (embedders, importance, summarizers)
    know nothing of the store, so the two layers are no circle either (decay and
    reflection, which work on a store, live in it)."""
    graph = import_graph()
    reach = {
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if a.startswith("houkai.engines.") and b.startswith("houkai.store")
    }
    assert reach == set()
