"""The package layout: layers as folders, and houkai 0.1's module paths still importing."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import houkai
from houkai._moved import MOVED

PACKAGE = Path(houkai.__file__).parent


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_module_path_is_the_new_module(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


def test_patching_an_old_path_patches_the_new(monkeypatch: pytest.MonkeyPatch) -> None:
    import houkai.decay

    import houkai.engines.decay

    monkeypatch.setattr(houkai.decay, "_probe_attribute", 42, raising=False)
    assert houkai.engines.decay._probe_attribute == 42  # type: ignore[attr-defined]


def test_top_level_holds_only_layers() -> None:
    """New modules go into a layer; the top level keeps the public API and the aliases."""
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "_moved.py"]
    layers = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert layers == [
        "app",
        "bench",
        "cli",
        "db",
        "domain",
        "engines",
        "installers",
        "pipeline",
        "store",
    ]


def test_domain_does_not_reach_into_outer_layers() -> None:
    """The domain layer imports nothing from Redis access, the store or the doors."""
    for path in (PACKAGE / "domain").glob("*.py"):
        text = path.read_text()
        for outer in ("..db", "..store", "..engines", "..pipeline", "..app", "..cli"):
            assert f"from {outer}" not in text, f"{path.name} imports {outer}"
