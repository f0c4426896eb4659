"""Every module imports on its own, as the first houkai module of a fresh interpreter.

:mod:`tests.test_import_cycles` reads the import graph from the source and leaves out
the package ``__init__`` a submodule's import runs first, so it cannot see a circle that
closes through one: ``houkai.recall.candidates`` imported ``houkai.store.codec``, whose
package ``__init__`` (the ``MemoryStore`` facade) reached ``houkai.store.updates``, which
imported a name from the half-built ``houkai.recall.candidates``. ``import houkai.recall
.engine`` then failed with an ImportError, though every test passed, because the tests
import ``houkai.store`` first. Here each module is imported with every houkai module
dropped from ``sys.modules`` before it, in one child interpreter (the third-party
packages stay loaded, so the whole walk takes seconds).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WALK = r"""
import importlib, json, pkgutil, sys
import houkai, houkai.api, houkai.workers
names = sorted(
    m.name
    for package in (houkai, houkai.api, houkai.workers)
    for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not m.name.endswith("__main__")  # runs the CLI
)
failed = {}
for name in names:
    for loaded in [k for k in sys.modules if k == "houkai" or k.startswith("houkai.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - reported by the test
        failed[name] = repr(exc)
print(json.dumps({"names": names, "failed": failed}))
"""


def test_every_module_imports_first() -> None:
    run = subprocess.run(
        [sys.executable, "-c", WALK], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    names = report["names"]
    # the walk reached every door, not only the library
    assert {"houkai.recall.engine", "houkai.api.routes", "houkai.workers.tasks"} <= set(names)
    assert report["failed"] == {}, "\n".join(f"{k}: {v}" for k, v in report["failed"].items())
