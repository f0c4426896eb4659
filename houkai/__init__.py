"""houkai: persistent, searchable long-term memory for LLM agents on Redis Stack."""

from __future__ import annotations

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
