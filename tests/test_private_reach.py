"""No module reaches into another module's private names.

A name with a leading underscore is its module's own business. Library code (``houkai/``,
``api/``, ``workers/``) may use a private name only where it is defined: an
``other._name`` attribute or a ``from x import _name`` whose name this module does not
define itself is a reach, and fails here. The rule reads the source, so a new reach fails
before review, whatever its file.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("houkai", "api", "workers")
#: The standard library's public API that happens to start with an underscore.
NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make"})
#: Known reaches still to go, each with its reason. Keep this list shrinking.
KNOWN: dict[str, frozenset[str]] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_names(tree: ast.AST) -> set[str]:
    """Private names a module defines: functions, classes, assignments and attribute
    stores (``self._x = …``, ``obj._x = …``), class-level annotations, imports of its
    own private modules."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {n for n in names if _private(n)}


def reaches(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = defined_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                # a package's own private module (``from . import _moved``) is its own
                if _private(alias.name) and not (node.level and node.module is None):
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if node.attr in own or node.attr in NAMEDTUPLE_API:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            found.append((node.lineno, ast.unparse(node)))
    rel = path.relative_to(ROOT).as_posix()
    allowed = KNOWN.get(rel, frozenset())
    return [
        f"{rel}:{line}: {text}"
        for line, text in found
        if not any(text.endswith(f".{name}") for name in allowed)
    ]


def test_no_module_reaches_into_another_modules_private_names() -> None:
    found = [
        hit for layer in LAYERS for path in (ROOT / layer).rglob("*.py") for hit in reaches(path)
    ]
    assert found == [], "\n".join(found)


def test_the_rule_catches_a_reach(tmp_path: Path) -> None:
    probe = ROOT / "houkai" / "_reach_probe_for_test.py"
    probe.write_text(
        "from houkai.store import core\n"
        "from houkai.db.server import _secret\n"
        "def f(store):\n"
        "    return store._gather, core._UNSET\n"
    )
    try:
        found = reaches(probe)
    finally:
        probe.unlink()
    assert len(found) == 3, found


def test_the_known_list_only_names_reaches_that_still_exist() -> None:
    for rel, names in KNOWN.items():
        text = (ROOT / rel).read_text(encoding="utf-8")
        for name in names:
            assert f".{name}" in text, f"{rel} no longer reaches {name}: drop it from KNOWN"
