"""Compatibility with the seed design and houkai 0.1, fenced in one place.

Everything here keeps old code working and nothing new should use it. **Retirement:**
the seed spellings go when the seed test kit (``../shared/seed``) stops being the
acceptance suite; the houkai 0.1 spellings go in houkai 0.3, one minor release after
0.2 announced them (see the CHANGELOG). Retiring one means deleting it here and the
line in the inventory below; no other module defines a shim.

In this module:

- :data:`MOVED` and :func:`install`: houkai 0.1's top-level module paths
  (``houkai.decay`` …) import the module at its new home in a layer.
- :data:`CLI_SPELLINGS` and :data:`CLI_SPELLINGS_BY_OPERATION`: the CLI's older option
  spellings (``--budget``, ``-g``, ``recall --limit`` …) beside the registry's names.
- ``EMBED_TASK``: houkai 0.1's name of the embed task.

Elsewhere, because they are parts of a signature or a schema (listed so the retirement
finds them): ``edit(clear_source=…)`` (the seed's spelling of ``source=None``,
houkai/app/operations/params.py), ``--store``/``-S`` and ``AI_HOUKAI_COLLECTION`` on the
root command, ``--format rich`` and ``text`` (houkai/cli/output.py), ``reflect
--consolidate`` alone meaning ``soft`` (houkai/cli/commands/lifecycle.py),
``Pipeline(app=…)`` (houkai/pipeline/write.py), ``from houkai.pipeline import Pipeline``
(houkai/pipeline/__init__.py), ``houkai.maintenance.MaintenanceScheduler``
(houkai/pipeline/scheduler.py), the seed's ``claudemd_snippet()`` and
``MaintenanceState.next_run_at()``, and ``get_at(timestamp=…)`` (houkai/store/history.py).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Mapping
from types import ModuleType

# --------------------------------------------------------------------------- module paths
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
    "houkai.maintenance": "houkai.pipeline.scheduler",
    # houkai 0.2: recall moved out of the store into its own package (issue 28)
    "houkai.store.packing": "houkai.recall.packing",
    "houkai.store.recall": "houkai.recall.engine",
    "houkai.store.query": "houkai.recall.query",
    "houkai.store.diversity": "houkai.recall.diversity",
    "houkai.store.lexical_feedback": "houkai.recall.lexical_feedback",
    "houkai.store.stages": "houkai.recall.stages",  # the seed's scheduler + state names
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


# --------------------------------------------------------------------------- CLI spellings
#: Older extra spellings of a parameter, on every command that takes it (the seed's and
#: houkai 0.1's).
CLI_SPELLINGS: Mapping[str, tuple[str, ...]] = {
    "tag": ("-g",),
    "source": ("-s",),
    "token_budget": ("--budget",),
    "tags": ("--tag",),
}
#: Older spellings of one operation's parameters on its command.
CLI_SPELLINGS_BY_OPERATION: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "recall": {"k": ("--limit",)},
    "find_conflicts": {"memory_id": ("--id",), "threshold": ("-T",)},
    "journal_tail": {"n": ("--number",)},
    "maintenance_tick": {"lock_wait": ("--wait",)},
}


# --------------------------------------------------------------------------- names
def __getattr__(name: str) -> str:
    """``EMBED_TASK``: houkai 0.1's name of the embed task (``pipeline.dispatch.EMBED_BATCH``),
    resolved on use so that importing houkai loads no pipeline module."""
    if name == "EMBED_TASK":
        from .pipeline.dispatch import EMBED_BATCH

        return EMBED_BATCH
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
