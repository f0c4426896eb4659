"""The write pipeline: submit → pending → embed → ready (:mod:`.write`), job records
(:mod:`.jobs`), task names and sending (:mod:`.dispatch`), scheduled maintenance
(:mod:`.maintenance`) and chunking (:mod:`.chunking`).

``from houkai.pipeline import Pipeline`` keeps working (houkai 0.1's path); the
names resolve lazily so that importing :mod:`.jobs` does not load numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_SUBMODULES = {
    "write",
    "jobs",
    "maintenance",
    "chunking",
    "dispatch",
    "batch",
    "documents",
    "scheduler",
    "outbox",
}


def __getattr__(name: str) -> Any:
    if name.startswith("__") or name in _SUBMODULES:
        raise AttributeError(name)
    return getattr(import_module(".write", __name__), name)
