"""The data model: memories, links, vocabularies and the value types of the API.

Names, fields and defaults follow the seed design (ADR 0022, README "Library") so a seed user
switches by changing an import. What this architecture adds to ``Memory``:
``collection``, the embedding ``state`` (``pending`` / ``ready`` / ``failed``)
with its ``error``, and a ``content_hash``.

Every enum-ish parameter is validated here, in one place, so every front door
(library, REST, MCP, CLI, workers) rejects typos identically.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import MemoryNotFound as MemoryNotFound  # defined with the other errors

MemoryType = Literal["episodic", "semantic", "procedural", "feedback"]

MEMORY_TYPES: tuple[str, ...] = ("episodic", "semantic", "procedural", "feedback")
#: The link a memory written in sequence (a conversation's turn) carries to the one before.
FOLLOWS = "follows"
LINK_RELS: tuple[str, ...] = (
    "related",
    "refines",
    "derived_from",
    "example_of",
    "contradicts",
    "supersedes",
    FOLLOWS,  # written at ingest: this memory came right after the linked one
)
RECALL_MODES: tuple[str, ...] = ("semantic", "hybrid")
# ``list_recent`` sort keys → the SORTABLE field each one orders by (newest first).
LIST_SORTS: dict[str, str] = {
    "created": "created_at",
    "importance": "importance",
    "accessed": "last_accessed",
}
FUSIONS: tuple[str, ...] = ("weighted", "rrf")
CONFLICT_POLICIES: tuple[str, ...] = ("ignore", "warn", "supersede", "raise")
IMPORT_POLICIES: tuple[str, ...] = ("skip", "overwrite", "rename", "error")
DIRECTIONS: tuple[str, ...] = ("out", "in", "both")
EMBED_STATES: tuple[str, ...] = ("pending", "ready", "failed")
RECENCY_BASES: tuple[str, ...] = ("created", "accessed")

MAX_TEXT_CHARS = 100_000
MAX_TAGS = 64
MAX_TAG_CHARS = 256
MAX_ID_CHARS = 256
# Bounds every stored number must respect, whichever door wrote it (a single
# ``Infinity`` timestamp or a 1e30 counter used to break list/recall/stats for
# the whole collection). Timestamps are epoch seconds up to 9999-12-31;
# counters stay exact in a double (RediSearch NUMERIC) and in HINCRBY's int64.
MAX_TIMESTAMP = 253_402_300_799.0
# A TTL past this (about 3,000 years) is a mistake, and now + ttl must stay a timestamp.
MAX_TTL_SECONDS = 1e11
MAX_ACCESS_COUNT = 2**53 - 1
MAX_VECTOR_DIM = 65_536
# A recall's work grows with k and its candidate pool (k × overfetch, MMR over the
# pool): bounded here, so one request cannot hold a core for minutes (issue 27).
MAX_RECALL_K = 1_000
MAX_RECALL_POOL = 4_000
#: the scope a memory belongs to (filters on every read door; see houkai.domain.scope)
SCOPE_FIELDS: tuple[str, ...] = ("user_id", "agent_id", "session_id")
TIMESTAMP_FIELDS: tuple[str, ...] = ("created_at", "last_accessed", "superseded_at", "expires_at")


def _is_finite(value: Any) -> bool:
    """``math.isfinite`` that answers False for an int too large for a double."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def leaves(value: object, name: str = "") -> Iterator[tuple[str, object]]:
    """``(path, value)`` of every scalar in *value* (lists, tuples, dict keys and values),
    the path as errors name it (``expand.score``, ``tags.2``, ``meta (a key)``)."""
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from leaves(item, f"{name}.{i}" if name else str(i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (f"{name} (a key)" if name else "a key"), key
            yield from leaves(item, f"{name}.{key}" if name else str(key))
    else:
        yield name, value


def check_unicode(value: object, name: str = "") -> None:
    """Refuse a string holding a lone surrogate (``"\\ud800"`` in JSON, undecodable argv
    bytes) anywhere in *value* (strings, lists, dict keys and values), naming its path.

    Such a string cannot be encoded as UTF-8, so Redis, the embedder or the JSON answer
    would fail on it later (a 500, or an import half written); here it is a 400 first."""
    for path, leaf in leaves(value, name):
        if isinstance(leaf, str) and not leaf.isascii() and _SURROGATE.search(leaf):
            where = f"{path}: " if path else ""
            raise ValidationError(f"{where}holds a lone UTF-16 surrogate (not valid Unicode text)")


def validate_choice(value: object, allowed: tuple[str, ...], param: str) -> None:
    """Raise ``ValueError`` naming *param* and the allowed vocabulary."""
    if value not in allowed:
        raise ValidationError(f"{param} must be one of: {', '.join(allowed)} — got {value!r}")


def validate_polarity(polarity: object) -> int:
    if isinstance(polarity, bool) or polarity not in (-1, 0, 1):
        raise ValidationError(f"polarity must be -1, 0, or +1 — got {polarity!r}")
    return int(polarity)


def validate_importance(importance: object) -> float:
    """Importance is a finite number; it is clamped into [0, 1] like the seed does."""
    if isinstance(importance, bool) or not isinstance(importance, int | float):
        raise ValidationError(f"importance must be a number in [0, 1] — got {importance!r}")
    if not _is_finite(importance):
        raise ValidationError(f"importance must be finite — got {str(importance)[:40]}")
    return max(0.0, min(1.0, float(importance)))


def validate_text(text: object) -> str:
    if not isinstance(text, str):
        raise ValidationError(f"text must be a string — got {type(text).__name__}")
    check_unicode(text, "text")
    clean = text.strip()
    if not clean:
        raise ValidationError("text must be a non-empty string")
    if len(clean) > MAX_TEXT_CHARS:
        raise ValidationError(f"text is {len(clean)} characters; the limit is {MAX_TEXT_CHARS}")
    return clean


def validate_tags(tags: Iterable[str] | None) -> list[str]:
    """Normalise tags: strip surrounding space, drop duplicates, keep order.

    Any character is allowed (spaces, unicode, RediSearch syntax characters)
    except a comma, which the seed rejects because tags travel comma-joined.
    """
    if tags is None:
        return []
    if isinstance(tags, str):
        raise ValidationError("tags must be a list of strings, not a single string")
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str):
            raise ValidationError(f"each tag must be a string — got {tag!r}")
        check_unicode(tag, "tags")
        if "," in tag:
            raise ValidationError(
                f"tags must not contain commas — got {tag!r} (tags are stored comma-joined)"
            )
        clean = tag.strip()
        if not clean:
            raise ValidationError(f"tag must not be empty — got {tag!r}")
        if len(clean) > MAX_TAG_CHARS:
            raise ValidationError(f"tag longer than {MAX_TAG_CHARS} characters: {clean[:40]!r}…")
        if clean not in out:
            out.append(clean)
    if len(out) > MAX_TAGS:
        raise ValidationError(f"at most {MAX_TAGS} tags per memory — got {len(out)}")
    return out


def validate_source(source: object) -> str | None:
    if source is None or source == "":
        return None
    if not isinstance(source, str):
        raise ValidationError(f"source must be a string — got {source!r}")
    check_unicode(source, "source")
    return source


def resolve_expiry(
    expires_at: float | None, ttl_seconds: float | None, now: float | None = None
) -> float:
    """The seed's TTL rules: mutually exclusive, ttl > 0, expires_at >= 0 (0 = never)."""
    if expires_at is not None and ttl_seconds is not None:
        raise ValidationError("pass at most one of expires_at, ttl_seconds")
    if ttl_seconds is not None:
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int | float):
            raise ValidationError(f"ttl_seconds must be a number — got {ttl_seconds!r}")
        if not _is_finite(ttl_seconds) or not 0 < ttl_seconds <= MAX_TTL_SECONDS:
            raise ValidationError(
                f"ttl_seconds must be > 0 and at most {MAX_TTL_SECONDS:.0f} (a finite number)"
            )
        return check_timestamp(
            (time.time() if now is None else now) + float(ttl_seconds), "ttl_seconds (now + ttl)"
        )
    if expires_at is None:
        return 0.0
    if isinstance(expires_at, bool) or not isinstance(expires_at, int | float):
        raise ValidationError(f"expires_at must be a number — got {expires_at!r}")
    if not _is_finite(expires_at) or expires_at < 0:
        raise ValidationError("expires_at must be >= 0 (a finite number)")
    return check_timestamp(expires_at, "expires_at")


def check_timestamp(value: object, name: str) -> float:
    """A finite epoch-seconds number in ``[0, MAX_TIMESTAMP]`` (0 means "unset")."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValidationError(f"{name} must be a number (epoch seconds) — got {value!r}")
    if not 0 <= value <= MAX_TIMESTAMP:  # type: ignore[operator]  # false for nan
        raise ValidationError(f"{name} must be a finite epoch time in [0, {MAX_TIMESTAMP:.0f}]")
    return float(value)


def check_memory(memory: Memory) -> Memory:
    """Refuse a memory whose numbers could poison the index; the one check every write uses.

    Called by :func:`houkai.store.codec.to_hash`, so no door (library, pipeline,
    REST, MCP, import, undo) can store a non-finite or out-of-range value.
    """
    for name in TIMESTAMP_FIELDS:
        check_timestamp(getattr(memory, name), name)
    importance = memory.importance
    if (
        isinstance(importance, bool)
        or not isinstance(importance, numbers.Real)
        or not 0 <= importance <= 1
    ):
        raise ValidationError(f"importance must be a finite number in [0, 1] — got {importance!r}")
    count = memory.access_count
    if (
        isinstance(count, bool)
        or not isinstance(count, numbers.Integral)
        or not 0 <= count <= MAX_ACCESS_COUNT
    ):
        raise ValidationError(f"access_count must be an integer in [0, {MAX_ACCESS_COUNT}]")
    validate_polarity(memory.polarity)
    for name in SCOPE_FIELDS:
        value = getattr(memory, name)
        if not isinstance(value, str) or len(value) > MAX_ID_CHARS:
            raise ValidationError(f"{name} must be a string of at most {MAX_ID_CHARS} characters")
    if not all(isinstance(x, str) and len(x) <= MAX_ID_CHARS for x in memory.message_ids):
        raise ValidationError("message_ids must be a list of id strings")
    return memory


def content_hash(text: str) -> str:
    """Hash of the normalised text (case-folded, whitespace collapsed) for cheap dedup."""
    normalised = " ".join(text.lower().split())
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:32]


def new_id() -> str:
    return str(uuid.uuid4())


@dataclass
class Link:
    """A directed, typed edge from one memory to another."""

    to: str
    rel: str


def previous_turn(memory: Memory) -> str | None:
    """The id of the memory *memory* follows in a recorded exchange (None: it follows none)."""
    return next((x.to for x in memory.links if x.rel == FOLLOWS), None)


@dataclass
class Graph:
    """A subgraph of memories and their links."""

    nodes: dict[str, Memory]
    edges: list[tuple[str, str, str]]  # (src_id, dst_id, rel)


@dataclass
class Memory:
    id: str
    text: str
    type: str = "semantic"
    tags: list[str] = field(default_factory=list)
    importance: float = 0.5
    created_at: float = field(default_factory=time.time)
    last_accessed: float = field(default_factory=time.time)
    access_count: int = 0
    source: str | None = None
    links: list[Link] = field(default_factory=list)
    superseded_by: str = ""
    superseded_at: float = 0.0
    polarity: int = 0
    expires_at: float = 0.0
    # --- what the Redis architecture adds -----------------------------------
    collection: str = ""
    state: str = "ready"  # pending | ready | failed
    error: str = ""
    content_hash: str = ""
    # --- provenance and scope (issue 30): who it belongs to, where it came from ---
    user_id: str = ""
    agent_id: str = ""
    session_id: str = ""
    message_ids: list[str] = field(default_factory=list)
    embedding: list[float] | None = field(default=None, repr=False, compare=False)

    def is_expired(self, now: float | None = None) -> bool:
        return bool(self.expires_at) and self.expires_at <= (time.time() if now is None else now)

    def to_dict(self) -> dict[str, Any]:
        """Full self-contained snapshot (journal, export, JSON front doors); no vector."""
        return {
            "id": self.id,
            "text": self.text,
            "type": self.type,
            "tags": list(self.tags),
            "importance": self.importance,
            "created_at": self.created_at,
            "last_accessed": self.last_accessed,
            "access_count": self.access_count,
            "source": self.source,
            "links": [{"to": link.to, "rel": link.rel} for link in self.links],
            "superseded_by": self.superseded_by,
            "superseded_at": self.superseded_at,
            "polarity": self.polarity,
            "expires_at": self.expires_at,
            "collection": self.collection,
            "state": self.state,
            "error": self.error,
            "content_hash": self.content_hash,
            **self.scope_dict(),
        }

    def scope_dict(self) -> dict[str, Any]:
        """The provenance and scope fields that are set (none for a plain memory)."""
        out: dict[str, Any] = {n: getattr(self, n) for n in SCOPE_FIELDS if getattr(self, n)}
        if self.message_ids:
            out["message_ids"] = list(self.message_ids)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Memory:
        """Inverse of :meth:`to_dict`; absent fields read as their neutral defaults."""
        now = time.time()
        return cls(
            id=str(d["id"]),
            text=str(d["text"]),
            type=d.get("type") or "semantic",
            tags=list(d.get("tags") or []),
            importance=float(d.get("importance", 0.5)),
            created_at=float(d.get("created_at") or now),
            last_accessed=float(d.get("last_accessed") or d.get("created_at") or now),
            access_count=int(d.get("access_count") or 0),
            source=d.get("source") or None,
            links=[Link(to=x["to"], rel=x["rel"]) for x in (d.get("links") or [])],
            superseded_by=str(d.get("superseded_by") or ""),
            superseded_at=float(d.get("superseded_at") or 0.0),
            polarity=int(d.get("polarity") or 0),
            expires_at=float(d.get("expires_at") or 0.0),
            collection=str(d.get("collection") or ""),
            state=str(d.get("state") or "ready"),
            error=str(d.get("error") or ""),
            content_hash=str(d.get("content_hash") or ""),
            user_id=str(d.get("user_id") or ""),
            agent_id=str(d.get("agent_id") or ""),
            session_id=str(d.get("session_id") or ""),
            message_ids=[str(x) for x in d.get("message_ids") or []],
            embedding=d.get("embedding"),
        )

    # --- the seed's flat metadata codec (its Chroma rows) ----------------------
    def to_metadata(self) -> dict[str, Any]:
        """The seed's flat metadata record: tags comma-joined, links as JSON, no ``None``.

        Seed code reads and writes memories in this shape (``store.collection.get`` /
        ``update``, see :class:`houkai.store.seed_collection.CollectionName`).
        """
        return {
            "type": self.type,
            "tags": ",".join(self.tags),
            "importance": self.importance,
            "created_at": self.created_at,
            "last_accessed": self.last_accessed,
            "access_count": self.access_count,
            "source": self.source or "",
            "links": json.dumps([{"to": link.to, "rel": link.rel} for link in self.links]),
            "superseded_by": self.superseded_by,
            "superseded_at": self.superseded_at,
            "polarity": self.polarity,
            "expires_at": self.expires_at,
        }

    @classmethod
    def from_record(cls, mid: str, text: str, meta: dict[str, Any]) -> Memory:
        """Inverse of :meth:`to_metadata` (the seed's reader: unreadable links read as none)."""
        try:
            links = [Link(to=x["to"], rel=x["rel"]) for x in json.loads(meta.get("links") or "[]")]
        except (ValueError, KeyError, TypeError):
            links = []
        now = time.time()
        return cls(
            id=mid,
            text=text,
            type=meta.get("type") or "semantic",
            tags=[t for t in str(meta.get("tags") or "").split(",") if t],
            importance=float(meta.get("importance", 0.5)),
            created_at=float(meta.get("created_at", now)),
            last_accessed=float(meta.get("last_accessed", now)),
            access_count=int(meta.get("access_count", 0)),
            source=meta.get("source") or None,
            links=links,
            superseded_by=str(meta.get("superseded_by") or ""),
            superseded_at=float(meta.get("superseded_at") or 0.0),
            polarity=int(meta.get("polarity") or 0),
            expires_at=float(meta.get("expires_at") or 0.0),
        )


@dataclass(frozen=True)
class HybridWeights:
    """Blend weights for hybrid recall (README "Recall").

    ``graph`` and ``polarity_weight`` are nudges."""

    cosine: float = 0.55
    lexical: float = 0.20
    recency: float = 0.15
    importance: float = 0.10
    decay_rate: float = 0.10
    polarity_weight: float = 0.05
    graph: float = 0.0
    recency_basis: Literal["created", "accessed"] = "created"

    def __post_init__(self) -> None:
        for name in ("cosine", "lexical", "recency", "importance", "decay_rate", "graph"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValidationError(
                    f"HybridWeights.{name} must be a finite number >= 0 — got {value!r}"
                )
        validate_choice(self.recency_basis, RECENCY_BASES, "recency_basis")
        if self.cosine + self.lexical + self.recency + self.importance <= 0:
            raise ValidationError("HybridWeights: at least one weight must be > 0")


@dataclass(frozen=True)
class ExpandSpec:
    """Graph-walk expansion after recall (README "Recall")."""

    rels: tuple[str, ...] = ("refines", "example_of")
    depth: int = 1
    cap: int = 5
    score: float = 0.70
    decay: float = 1.0
    rerank: bool = False

    def __post_init__(self) -> None:
        for rel in self.rels:
            validate_choice(rel, LINK_RELS, "expand.rels")
        if self.depth < 1:
            raise ValidationError(f"expand.depth must be >= 1 — got {self.depth}")
        if self.cap < 0:
            raise ValidationError(f"expand.cap must be >= 0 — got {self.cap}")
        if not 0 < self.decay <= 1:
            raise ValidationError(f"expand.decay must be in (0, 1] — got {self.decay}")


@dataclass(frozen=True)
class RememberItem:
    """One entry for :meth:`MemoryStore.remember_many`."""

    text: str
    type: str = "semantic"
    tags: tuple[str, ...] = ()
    importance: float | None = None
    source: str | None = None
    polarity: int = 0
    expires_at: float | None = None
    ttl_seconds: float | None = None
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    message_ids: tuple[str, ...] = ()


REMEMBER_ITEM_FIELDS: tuple[str, ...] = (
    "text",
    "type",
    "tags",
    "importance",
    "source",
    "polarity",
    "expires_at",
    "ttl_seconds",
    "user_id",
    "agent_id",
    "session_id",
    "message_ids",
)


@dataclass
class PackedMemory:
    """A memory selected for a context pack, with its token cost."""

    memory: Memory
    score: float
    tokens: int


@dataclass
class CompressedGroup:
    """Several similar low-ranked memories folded into one summary line."""

    memories: list[Memory]
    text: str
    tokens: int


@dataclass
class PackResult:
    """Memories that fit a token budget plus a ready-to-inject context block."""

    items: list[PackedMemory]
    text: str
    used_tokens: int
    budget: int
    truncated: bool
    compressed_groups: list[CompressedGroup] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items)

    def ids(self) -> list[str]:
        return [p.memory.id for p in self.items]


@dataclass
class Conflict:
    a: Memory
    b: Memory
    similarity: float
    kind: Literal["duplicate", "contradiction"]
    reason: str  # "polarity_diff" | "negation_diff" | "custom_fn" | "similarity"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "similarity": round(self.similarity, 4),
            "a": {"id": self.a.id, "text": self.a.text},
            "b": {"id": self.b.id, "text": self.b.text},
        }


class ValidationError(ValueError):
    """Bad input from a caller: every front door shows it (HTTP 400, CLI ``Error:``, a
    tool error). A plain ``ValueError`` from deeper down is a bug, shown as a 500."""


class ValidationTypeError(ValidationError, TypeError):
    """Bad input of the wrong type (the seed raises ``TypeError`` there): a 400 like any
    :class:`ValidationError`, and still caught by ``except TypeError``."""


class NothingToIngest(ValidationError):
    """A well-formed path that names nothing to ingest (no such file, no matching files):
    bad input to the CLI, a 404 at the REST door, like an unknown id."""


class StateConflict(ValidationError):
    """Well-formed, but refused by the current state (an undo the journal or the memory
    no longer allows): HTTP 409 rather than 400."""


class ConflictError(Exception):
    """``on_conflict="raise"`` refused a write; ``.conflicts`` lists why."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        super().__init__(f"{len(conflicts)} conflict(s) detected")
        self.conflicts = conflicts


class EmbeddingModelMismatch(ImportError, ValidationError):
    """An archive's vectors come from another embedding model (``regenerate_vectors`` re-embeds).

    An ``ImportError`` as in the seed, and a ``ValueError`` so every door
    reports it as bad input (HTTP 400, CLI ``Error:``).
    """


ConflictFn = Callable[[Memory, Memory], bool]
Reranker = Callable[[str, list[Memory]], list[float]]
ImportanceFn = Callable[[str, str, list[str]], float]
