"""houkai: persistent, searchable long-term memory for LLM agents on Redis Stack."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import compat

compat.install()  # houkai 0.1's module paths (houkai.decay …)

if TYPE_CHECKING:  # the real imports, for type checkers and IDEs
    from .db.journal import Journal, JournalEntry
    from .domain.model import (
        CONFLICT_POLICIES,
        DIRECTIONS,
        FUSIONS,
        IMPORT_POLICIES,
        LINK_RELS,
        MEMORY_TYPES,
        RECALL_MODES,
        CompressedGroup,
        Conflict,
        ConflictError,
        ConflictFn,
        ExpandSpec,
        Graph,
        HybridWeights,
        Link,
        Memory,
        MemoryNotFound,
        MemoryType,
        PackedMemory,
        PackResult,
        RememberItem,
        Reranker,
    )
    from .engines.importance import score_importance
    from .engines.summarizers import build_summarizer
    from .pipeline.chunking import chunk_text
    from .recall.packing import extract_key_phrases
    from .store import MemoryStore
    from .store.archive import ExportSummary, ImportConflictError, ImportSummary
    from .store.async_store import AsyncMemoryStore
    from .store.decay import DecayEngine
    from .store.reflection import ReflectionEngine

# Imported on first attribute access (PEP 562): ``houkai --help`` or a CLI
# command that only needs the config must not pay for numpy, redis and the
# store's modules up front.
_LAZY: dict[str, str] = {
    "ExportSummary": ".store.archive",
    "ImportConflictError": ".store.archive",
    "ImportSummary": ".store.archive",
    "AsyncMemoryStore": ".store.async_store",
    "DecayEngine": ".store.decay",
    "score_importance": ".engines.importance",
    "chunk_text": ".pipeline.chunking",
    "Journal": ".db.journal",
    "JournalEntry": ".db.journal",
    "CONFLICT_POLICIES": ".domain.model",
    "DIRECTIONS": ".domain.model",
    "FUSIONS": ".domain.model",
    "IMPORT_POLICIES": ".domain.model",
    "LINK_RELS": ".domain.model",
    "MEMORY_TYPES": ".domain.model",
    "RECALL_MODES": ".domain.model",
    "CompressedGroup": ".domain.model",
    "Conflict": ".domain.model",
    "ConflictError": ".domain.model",
    "ConflictFn": ".domain.model",
    "ExpandSpec": ".domain.model",
    "Graph": ".domain.model",
    "HybridWeights": ".domain.model",
    "Link": ".domain.model",
    "Memory": ".domain.model",
    "MemoryNotFound": ".domain.model",
    "MemoryType": ".domain.model",
    "PackedMemory": ".domain.model",
    "PackResult": ".domain.model",
    "RememberItem": ".domain.model",
    "Reranker": ".domain.model",
    "ReflectionEngine": ".store.reflection",
    "MemoryStore": ".store",
    "extract_key_phrases": ".recall.packing",
    "build_summarizer": ".engines.summarizers",
}


# Loading one of these already pays for numpy, redis and the store (~2 s); the rest
# of the API then costs ~0.15 s more, so it is bound at once: ``vars(houkai)`` and
# tools that read the module's namespace (the seed test kit's import shim) see the
# whole public API, as they did before the package became lazy.
_LOADS_THE_STORE = frozenset({"MemoryStore", "AsyncMemoryStore"})


def _bind(name: str) -> Any:
    from importlib import import_module

    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'houkai' has no attribute {name!r}")
    value = _bind(name)
    if name in _LOADS_THE_STORE:
        for other in _LAZY:
            if other not in globals():
                _bind(other)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "CONFLICT_POLICIES",
    "DIRECTIONS",
    "FUSIONS",
    "IMPORT_POLICIES",
    "LINK_RELS",
    "MEMORY_TYPES",
    "RECALL_MODES",
    "AsyncMemoryStore",
    "CompressedGroup",
    "Conflict",
    "ConflictError",
    "ConflictFn",
    "DecayEngine",
    "ExpandSpec",
    "ExportSummary",
    "Graph",
    "HybridWeights",
    "ImportConflictError",
    "ImportSummary",
    "Journal",
    "JournalEntry",
    "Link",
    "Memory",
    "MemoryNotFound",
    "MemoryStore",
    "MemoryType",
    "PackResult",
    "PackedMemory",
    "ReflectionEngine",
    "RememberItem",
    "Reranker",
    "__version__",
    "build_summarizer",
    "chunk_text",
    "extract_key_phrases",
    "score_importance",
]
