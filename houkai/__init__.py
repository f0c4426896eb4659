"""houkai: persistent, searchable long-term memory for LLM agents on Redis Stack."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real imports, for type checkers and IDEs
    from .archive import ExportSummary, ImportConflictError, ImportSummary
    from .async_store import AsyncMemoryStore
    from .decay import DecayEngine
    from .importance import score_importance
    from .ingest import chunk_text
    from .journal import Journal, JournalEntry
    from .model import (
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
    from .reflection import ReflectionEngine
    from .store import MemoryStore
    from .store.packing import extract_key_phrases
    from .summarizers import build_summarizer

# Imported on first attribute access (PEP 562): ``houkai --help`` or a CLI
# command that only needs the config must not pay for numpy, redis and the
# store's modules up front.
_LAZY: dict[str, str] = {
    "ExportSummary": ".archive",
    "ImportConflictError": ".archive",
    "ImportSummary": ".archive",
    "AsyncMemoryStore": ".async_store",
    "DecayEngine": ".decay",
    "score_importance": ".importance",
    "chunk_text": ".ingest",
    "Journal": ".journal",
    "JournalEntry": ".journal",
    "CONFLICT_POLICIES": ".model",
    "DIRECTIONS": ".model",
    "FUSIONS": ".model",
    "IMPORT_POLICIES": ".model",
    "LINK_RELS": ".model",
    "MEMORY_TYPES": ".model",
    "RECALL_MODES": ".model",
    "CompressedGroup": ".model",
    "Conflict": ".model",
    "ConflictError": ".model",
    "ConflictFn": ".model",
    "ExpandSpec": ".model",
    "Graph": ".model",
    "HybridWeights": ".model",
    "Link": ".model",
    "Memory": ".model",
    "MemoryNotFound": ".model",
    "MemoryType": ".model",
    "PackedMemory": ".model",
    "PackResult": ".model",
    "RememberItem": ".model",
    "Reranker": ".model",
    "ReflectionEngine": ".reflection",
    "MemoryStore": ".store",
    "extract_key_phrases": ".store.packing",
    "build_summarizer": ".summarizers",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'houkai' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
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
