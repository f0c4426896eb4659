"""houkai: persistent, searchable long-term memory for LLM agents on Redis Stack."""

from __future__ import annotations

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
from .store import MemoryStore

__version__ = "0.1.0"

__all__ = [
    "CONFLICT_POLICIES",
    "DIRECTIONS",
    "FUSIONS",
    "IMPORT_POLICIES",
    "LINK_RELS",
    "MEMORY_TYPES",
    "RECALL_MODES",
    "CompressedGroup",
    "Conflict",
    "ConflictError",
    "ConflictFn",
    "ExpandSpec",
    "Graph",
    "HybridWeights",
    "Link",
    "Memory",
    "MemoryNotFound",
    "MemoryStore",
    "MemoryType",
    "PackResult",
    "PackedMemory",
    "RememberItem",
    "Reranker",
    "__version__",
]
