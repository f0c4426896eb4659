"""Old module paths from houkai 0.1, kept importable after the move into layers.

houkai 0.1 kept every module at the top of the package (``houkai.decay``,
``houkai.service`` …). Code written against those paths, and the seed test
kit's import shim, keep working: importing an old path returns the module at
its new home (the same module object, so patching either name patches both).
New code imports the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

MOVED: dict[str, str] = {
    "houkai.model": "houkai.domain.model",
    "houkai.config": "houkai.domain.config",
    "houkai.errors": "houkai.domain.errors",
    "houkai.text": "houkai.domain.text",
    "houkai.timeparse": "houkai.domain.timeparse",
    "houkai.coerce": "houkai.domain.coerce",
    "houkai.connection": "houkai.db.connection",
    "houkai.redis_server": "houkai.db.server",
    "houkai.journal": "houkai.db.journal",
    "houkai.index": "houkai.db.schema",
    "houkai.async_store": "houkai.store.async_store",
    "houkai.archive": "houkai.store.archive",
    "houkai.decay": "houkai.store.decay",
    "houkai.engines.decay": "houkai.store.decay",  # issue 28: where the store/engines circle stops
    "houkai.reflection": "houkai.store.reflection",
    "houkai.engines.reflection": "houkai.store.reflection",
    "houkai.summarizers": "houkai.engines.summarizers",
    "houkai.importance": "houkai.engines.importance",
    "houkai.embeddings": "houkai.engines.embeddings",
    "houkai.onnx_embedder": "houkai.engines.onnx_embedder",
    "houkai.onnx_export": "houkai.engines.onnx_export",
    "houkai.jobs": "houkai.pipeline.jobs",
    "houkai.maintenance": "houkai.pipeline.maintenance",
    "houkai.ingest": "houkai.pipeline.chunking",
    "houkai.service": "houkai.app.service",
    "houkai.auth": "houkai.app.auth",
    "houkai.serverpaths": "houkai.app.serverpaths",
    "houkai.dashboard": "houkai.app.dashboard",
    "houkai.eval": "houkai.bench.eval",
    "houkai.tui": "houkai.cli.tui",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves an old path to the module at its new home."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """The module already ran at its new home."""


def install() -> None:
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
