"""What a CLI process imports before it answers (issue #26: `--version` took 1.1–1.9 s).

``--version`` and ``--help`` never touch the store, Redis, numpy or a model: the root
group imports its commands only when one is asked for (``--help`` lists them, which
needs the operation registry and so pydantic, but not the store behind it).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
from houkai.cli import main
sys.argv = ["houkai", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
names = ("numpy", "redis", "pydantic", "rich", "houkai.store", "houkai.app.service",
         "houkai.app.operations", "torch", "onnxruntime", "transformers")
print(json.dumps([m for m in names if m in sys.modules]), file=sys.stderr)
"""


def _imported(*args: str) -> tuple[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120
    )
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])


def test_version_imports_nothing_but_click_and_the_config() -> None:
    out, heavy = _imported("--version")
    assert out.startswith("houkai, version ") and heavy == []


@pytest.mark.parametrize("args", [("--help",), ("recall", "--help"), ("jobs", "--help")])
def test_help_needs_the_registry_but_no_store(args: tuple[str, ...]) -> None:
    out, heavy = _imported(*args)
    assert "Usage: houkai" in out
    assert not {"numpy", "redis", "houkai.store", "houkai.app.service", "torch"} & set(heavy)
