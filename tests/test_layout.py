"""The package layout: layers as folders, and houkai 0.1's module paths still importing."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import houkai
from houkai.compat import MOVED

PACKAGE = Path(houkai.__file__).parent


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_module_path_is_the_new_module(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


def test_patching_an_old_path_patches_the_new(monkeypatch: pytest.MonkeyPatch) -> None:
    import houkai.decay

    import houkai.store.decay

    monkeypatch.setattr(houkai.decay, "_probe_attribute", 42, raising=False)
    assert houkai.store.decay._probe_attribute == 42  # type: ignore[attr-defined]


def test_top_level_holds_only_layers() -> None:
    """New modules go into a layer; the top level keeps the public API and the
    compatibility shims (one module, :mod:`houkai.compat`)."""
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "compat.py"]
    layers = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert layers == [
        "app",
        "bench",
        "cli",
        "corpora",
        "db",
        "domain",
        "engines",
        "extraction",  # issue 30: conversations in, candidate memories out
        "installers",
        "pipeline",
        "recall",  # issue 28: recall as its own package
        "sessions",  # issue 30: working memory of conversations
        "store",
    ]


def test_domain_does_not_reach_into_outer_layers() -> None:
    """The domain layer imports nothing from Redis access, the store or the doors."""
    for path in (PACKAGE / "domain").glob("*.py"):
        text = path.read_text()
        for outer in ("..db", "..store", "..engines", "..pipeline", "..app", "..cli"):
            assert f"from {outer}" not in text, f"{path.name} imports {outer}"


def test_inner_layers_do_not_import_the_benchmarks() -> None:
    """The encoder's calibration reads generated text from houkai.corpora, not houkai.bench:
    a benchmark is an outer door, and the library must not need it."""
    for layer in ("domain", "db", "store", "recall", "engines", "pipeline", "corpora"):
        for path in (PACKAGE / layer).glob("*.py"):
            imports = re.findall(r"^\s*(?:from|import)\s+(\S+)", path.read_text(), re.M)
            bench = [m for m in imports if m in ("..bench", "houkai.bench") or ".bench." in m]
            assert not bench, f"{layer}/{path.name} imports {bench}"


def test_every_package_ships_in_the_wheel() -> None:
    """A package missing from pyproject's list installs from a checkout but not from a wheel."""
    import tomllib

    listed = set(
        tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"][
            "packages"
        ]
    )
    found = {
        "houkai." + ".".join(p.parent.relative_to(PACKAGE).parts)
        if p.parent != PACKAGE
        else "houkai"
        for p in PACKAGE.rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found - listed == set()


def test_no_module_in_houkai_is_over_600_lines() -> None:
    """Small modules with one job: a file that grows past 600 lines is split by concern."""
    root = Path(__file__).resolve().parent.parent / "houkai"
    long = {
        str(path.relative_to(root)): n
        for path in root.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
