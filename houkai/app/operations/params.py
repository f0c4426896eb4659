"""The parameter model of every operation: names, types, bounds, defaults, one-line docs.

Add a parameter here and it reaches REST (query/body and its validation),
OpenAPI, the MCP tool's inputSchema, the agent examples' provider tools, the
CLI options (:func:`houkai.app.operations.cli.cli_options`) and the README
tables. Defaults are the service's; ``None`` means "the server's setting".
Recall's parameters (``Recall`` and the ``Filters`` / ``Ranking`` groups) are declared in
:mod:`houkai.recall.parameters` instead, with the library's: :mod:`.declared` builds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from houkai.db.journal import JournalOp
from houkai.domain.model import LIST_SORTS, MAX_TIMESTAMP, MAX_TTL_SECONDS
from houkai.recall.parameters import BY_NAME as RECALL_PARAMS

from .declared import ScopeId, declared
from .fields import (
    CURSOR_PATTERN,
    DELTA_PATTERN,
    ENTRY_PATTERN,
    GLOB_PATTERN,
    MAX_K,
    SUMMARIZER_PATTERN,
    TIME_HELP,
    BatchConflictPolicy,
    Chunking,
    ConflictPolicy,
    Cosine,
    Direction,
    Fraction,
    Id,
    LinkRel,
    MemoryTypeName,
    NonEmpty,
    Polarity,
    RecallCount,
    RecallMode,
    Tag,
    Tags,
    Text,
    Timestamp,
)
from .params_admin import (
    ArchivePath,
    Backup,
    CollectionCopy,
    CollectionMigrate,
    CollectionRef,
    Export,
    ExportStream,
    Import,
    ImportOptions,
    Nuke,
    VectorFormat,
)
from .schema import NULLABLE
from .spec import Params

_TYPE_DOC = (
    "Kind of memory: episodic = a time-stamped event; semantic = a distilled fact; "
    "procedural = a how-to rule or convention; feedback = a user preference or correction."
)
_MODE_DOC = RECALL_PARAMS["mode"].doc  # recall_pack and auto_context say it as recall does
_MIN_COSINE_DOC = RECALL_PARAMS["min_cosine"].doc
_MEMORY_ID_DOC = "Id of the memory (as returned by remember/recall)."
_TAGS_DOC = 'Short lowercase labels (no commas), e.g. ["deploy", "api"].'
_ON_CONFLICT_DOC = (
    "What to do when a near-duplicate or contradicting memory exists: ignore (store anyway), "
    "warn (store and report), supersede (store and hide the old one), raise (don't store; "
    "return the conflicts). Default: the server's policy."
)

#: The most conflict pairs one scan answers (its ``limit``'s bound).
MAX_CONFLICT_PAIRS = 100_000
Expiry = Annotated[float, Field(ge=0, le=MAX_TIMESTAMP)]
Ttl = Annotated[float, Field(gt=0, le=MAX_TTL_SECONDS)]
Budget = Annotated[int, Field(ge=1, le=1_000_000)]
Count = Annotated[int, Field(ge=1, le=MAX_K)]
WaitTimeout = Annotated[float, Field(ge=0)]
EntryId = Annotated[str, Field(pattern="^[0-9]{1,15}-[0-9]{1,15}$")]
_LIST_SORTS: list[Any] = sorted(LIST_SORTS)


def _wait(default: bool) -> Any:
    return Field(
        default,
        description="Wait until the memories are embedded and recallable"
        f" (default {str(default).lower()}).",
    )


_TIMEOUT = Field(None, description="Seconds to wait at most when wait is true.")


# --------------------------------------------------------------------------- shared groups
@declared("filters")  # the fields: the recall parameters declared for "filters"
class Filters(Params):
    group: ClassVar[bool] = True  # a shared group: listed after the own fields


class Expand(Params):
    rels: list[LinkRel] | None = Field(None, description="Link relations to follow.")
    depth: Annotated[int, Field(ge=1, le=1000)] | None = Field(None, description="Hops.")
    cap: Annotated[int, Field(ge=0, le=1000)] | None = Field(None, description="Most added.")
    score: float | None = Field(None, description="Score of an added neighbour.")
    decay: Annotated[float, Field(gt=0, le=1)] | None = Field(None, description="Per hop.")
    rerank: bool | None = Field(None, description="Rerank after expansion.")


@declared("ranking")  # fusion, diversity, …: the recall parameters declared for "ranking"
class Ranking(Params):
    """The advanced ranking knobs of recall and recall_pack (store defaults when unset)."""

    group: ClassVar[bool] = True  # a shared group: listed after the own fields
    # the doors' spelling of the library's HybridWeights and ExpandSpec (service_args)
    graph: Annotated[float, Field(ge=0)] | None = Field(
        None, description="Graph-proximity weight (hybrid)."
    )
    expand: bool | Expand | None = Field(
        None, description="Add linked memories of the hits (true, or the expansion spec)."
    )


class RememberItem(Params):
    model_config = {
        "extra": "forbid",
        "regex_engine": "python-re",
        "json_schema_extra": {"not": {"required": ["expires_at", "ttl_seconds"]}},
    }

    text: Text = Field(description="The memory, one self-contained statement (no secrets).")
    type: MemoryTypeName | None = Field(None, description=_TYPE_DOC)
    tags: Tags | None = Field(None, description=_TAGS_DOC)
    importance: Fraction | None = Field(
        None, description="0..1; how much this matters long-term (default 0.5)."
    )
    source: str | None = Field(
        None, description="Provenance string, e.g. a file path, URL or conversation id."
    )
    polarity: Polarity | None = Field(
        None, description='-1 negative ("don\'t", "never"), 0 neutral, +1 positive.'
    )
    expires_at: Expiry | None = Field(
        None, description="Epoch seconds after which the memory expires (hidden, later purged)."
    )
    ttl_seconds: Ttl | None = Field(
        None, description="Expire this many seconds from now (alternative to expires_at)."
    )
    user_id: ScopeId | None = Field(None, description="The user this memory belongs to.")
    agent_id: ScopeId | None = Field(None, description="The agent this memory belongs to.")
    session_id: ScopeId | None = Field(None, description="The session it came from.")
    message_ids: Annotated[list[ScopeId], Field(max_length=256)] | None = Field(
        None, description="Provenance: the ids of the messages it came from."
    )


class Document(Params):
    text: Text = Field(description="Document text.")
    source: str | None = Field(None, description="Provenance, e.g. the file path.")
    tags: Tags | None = Field(None, description=_TAGS_DOC)
    type: MemoryTypeName | None = Field(None, description=_TYPE_DOC)


# --------------------------------------------------------------------------- writes
class Remember(RememberItem):
    on_conflict: ConflictPolicy | None = Field(None, description=_ON_CONFLICT_DOC)
    auto_importance: bool | None = Field(
        None,
        description="Score the importance from the text when none is given "
        "(default: the auto_importance setting).",
    )
    wait: bool = _wait(True)
    timeout: WaitTimeout | None = _TIMEOUT


class RememberMany(Params):
    items: list[Text | RememberItem] = Field(
        description="The memories to store (a string or an object with text)."
    )
    batch_size: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        None, description="Embedding batch size."
    )
    on_conflict: BatchConflictPolicy | None = Field(
        None, description="Conflict policy for each item (default: server policy)."
    )
    wait: bool = _wait(True)
    timeout: WaitTimeout | None = _TIMEOUT


class Edit(Params):
    model_config = {
        "extra": "forbid",
        "regex_engine": "python-re",
        "json_schema_extra": {"not": {"required": ["source", "clear_source"]}},
    }

    memory_id: Id = Field(description=_MEMORY_ID_DOC)
    text: Text | None = Field(None, description="New text (re-embedded).")
    type: MemoryTypeName | None = Field(None, description=_TYPE_DOC)
    tags: Tags | None = Field(None, description="New tag list (replaces the old one).")
    importance: Fraction | None = Field(None, description="0..1; how much this matters.")
    polarity: Polarity | None = Field(None, description="-1 negative, 0 neutral, +1 positive.")
    source: str | None = Field(
        None, description="New source (null clears it).", json_schema_extra={NULLABLE: True}
    )
    clear_source: Literal[True] | None = Field(
        None, description="true removes the source (false is not a change: omit it)."
    )
    expires_at: Expiry | None = Field(
        None, description="New expiry (epoch seconds); 0 removes the expiry."
    )


class MemoryRef(Params):
    memory_id: Id = Field(description=_MEMORY_ID_DOC)


class PurgeExpired(Params):
    dry_run: bool = Field(False, description="Only report what would be purged.")


class Prune(Params):
    """Decay pruning; unset values come from the ``[maintenance]`` settings."""

    decay_rate: Annotated[float, Field(ge=0)] | None = Field(
        None, description="Decay λ per day (default: maintenance_decay_rate)."
    )
    min_score: Annotated[float, Field(ge=0)] | None = Field(
        None, description="Prune below this score (default: maintenance_decay_min_score)."
    )
    frequency_weight: Annotated[float, Field(ge=0)] | None = Field(
        None, description="How strongly recall count resists decay (default: config)."
    )
    protect: list[MemoryTypeName] | None = Field(
        None, description="Types never pruned (default: maintenance_decay_protect_types)."
    )
    dry_run: bool = Field(False, description="Only report what would be pruned.")


class CheckFindable(Params):
    """A findability check now; unset values come from the ``[maintenance]`` settings."""

    sample: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        None, description="Memories to ask for (default: maintenance_findable_sample)."
    )
    repair: bool = Field(
        True, description="Re-insert into the HNSW graph what its own vector does not find."
    )
    text: bool = Field(
        True,
        description="Also ask semantic recall for each memory's own text (k=5), and hybrid "
        "recall for a word only it holds (k=5).",
    )


class Reflect(Params):
    """Reflection; unset values come from the ``[maintenance]`` settings."""

    threshold: Fraction | None = Field(
        None, description="Cluster similarity (default: maintenance_reflect_similarity_threshold)."
    )
    min_cluster_size: Annotated[int, Field(ge=2, le=10_000)] | None = Field(
        None, description="Smallest cluster to summarise (default: config)."
    )
    summarizer: Annotated[str, Field(max_length=200, pattern=SUMMARIZER_PATTERN)] | None = Field(
        None,
        description="extractive | ollama:MODEL | openai:MODEL | anthropic:MODEL "
        "(over REST/MCP-HTTP only with an admin token; default: config).",
    )
    consolidate: Literal["none", "soft", "hard"] = Field(
        "none",
        description="After writing: soft = supersede + link the sources, hard = delete them.",
    )
    dry_run: bool = Field(False, description="Only report the summaries it would write.")


class Link(Params):
    src_id: Id = Field(description="Source memory id.")
    dst_id: Id = Field(description="Target memory id.")
    rel: LinkRel = Field("related", description="Link relation.")


class Unlink(Params):
    src_id: Id = Field(description="Source memory id.")
    dst_id: Id = Field(description="Target memory id.")
    rel: LinkRel | None = Field(None, description="Only this relation (default: all).")


class Supersede(Params):
    old_id: Id = Field(description="The outdated memory.")
    new_id: Id = Field(description="The memory that replaces it.")


class Undo(Params):
    entry_id: EntryId | None = Field(
        None, description="Journal entry id (e.g. 1712345678901-0) from journal_tail."
    )
    memory_id: Id | None = Field(None, description="Undo the newest change touching this memory.")


class MaintenanceTick(Params):
    reflect_apply: bool | None = Field(
        None, description="Write reflection summaries (default: the config's setting)."
    )
    force: bool = Field(False, description="Run every job now, due or not.")
    lock_wait: Annotated[float, Field(ge=0, le=3600)] | None = Field(
        None,
        description="Seconds to wait for a tick running elsewhere (default 0: skip this tick).",
    )


class Retag(Params):
    model_config = {
        "extra": "forbid",
        "regex_engine": "python-re",
        "json_schema_extra": {"anyOf": [{"required": ["add"]}, {"required": ["remove"]}]},
    }

    memory_id: Id = Field(description=_MEMORY_ID_DOC)
    add: list[Tag] | None = Field(None, description="Tags to add.")
    remove: list[Tag] | None = Field(None, description="Tags to remove.")


class Bump(Params):
    memory_id: Id = Field(description=_MEMORY_ID_DOC)
    delta: Annotated[str, Field(pattern=DELTA_PATTERN)] = Field(
        description="+N or -N changes the importance by N, =N sets it (clamped to 0..1)."
    )


class JournalEntryRef(Params):
    entry: Annotated[str, Field(pattern=ENTRY_PATTERN)] = Field(
        description="Journal entry id (e.g. 1712345678901-0, from journal_tail) or its epoch ts."
    )


class JobRetry(Params):
    job_id: Id | None = Field(
        None, description="The job whose failed memories to re-queue (omit: the collection's)."
    )


class Ingest(Params):
    model_config = {
        "extra": "forbid",
        "regex_engine": "python-re",
        "json_schema_extra": {"oneOf": [{"required": ["documents"]}, {"required": ["path"]}]},
    }

    documents: Annotated[list[Document], Field(min_length=1)] | None = Field(
        None, description="Documents to chunk and store."
    )
    path: str | None = Field(None, description="Server-local file, folder or glob to ingest.")
    glob: Annotated[str, Field(pattern=GLOB_PATTERN)] | None = Field(
        None, description='File pattern inside a folder, relative, e.g. "**/*.md".'
    )
    max_chars: Annotated[int, Field(ge=20, le=1_000_000)] | None = Field(
        None, description="Longest chunk in characters."
    )
    min_chars: Annotated[int, Field(ge=1, le=1_000_000)] | None = Field(
        None,
        description="Shortest chunk in characters (shorter ones holding fewer than two "
        "words are dropped).",
    )
    chunking: Chunking | None = Field(
        None,
        description="paragraph: one memory per paragraph (default); "
        "pack: paragraphs packed up to max_chars.",
    )
    type: MemoryTypeName | None = Field(
        None, description="Type of every chunk (a document's own wins)."
    )
    tags: Tags | None = Field(None, description="Tags of every chunk (a document's own win).")
    source: str | None = Field(
        None, description="Source of every chunk (default: ingest:<file name>)."
    )
    importance: Fraction | None = Field(None, description="Importance of every chunk (0..1).")
    auto_importance: bool | None = Field(
        None,
        description="Score each chunk's importance from its text "
        "(default: the auto_importance setting, when no importance is given).",
    )
    batch_size: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        None, description="Embedding batch size."
    )
    wait: bool = _wait(True)
    timeout: WaitTimeout | None = _TIMEOUT


# --------------------------------------------------------------------------- reads
@declared("recall")  # query, k, mode, …: declared once, in houkai/recall/parameters.py
class Recall(Filters, Ranking):
    if TYPE_CHECKING:  # the declared fields are made at import

        def __getattr__(self, name: str) -> Any: ...


class Compress(Params):
    group: ClassVar[bool] = True  # a shared group: listed after the own fields
    compress: bool = Field(
        False, description="Fold similar memories that do not fit into one summary line."
    )
    compress_threshold: Fraction = Field(0.30, description="Similarity for folding (0..1).")
    compress_min_group: Count = Field(2, description="Smallest group to fold.")


class RecallPack(Filters, Ranking, Compress):
    query: NonEmpty = Field(description="What the context is for.")
    token_budget: Budget = Field(800, description="Approximate token budget for the block.")
    mode: RecallMode = Field("hybrid", description=_MODE_DOC)
    max_items: RecallCount = Field(50, description="Most memories to consider.")
    include_superseded: bool = Field(False, description="Also use superseded memories.")
    touch: bool = Field(True, description="Count this pack as an access of each memory.")
    header: Annotated[str, Field(max_length=10_000)] | None = Field(
        None, description="First line of the block."
    )


class AutoContext(Compress):
    task: NonEmpty = Field(description="The task or question you are about to work on.")
    token_budget: Budget = Field(800, description="Approximate token budget for the block.")
    max_phrases: Annotated[int, Field(ge=0, le=20)] = Field(
        3, description="Extra key-phrase searches."
    )
    mode: RecallMode = Field("hybrid", description=_MODE_DOC)
    min_cosine: Cosine | None = Field(None, description=_MIN_COSINE_DOC)
    header: Annotated[str, Field(max_length=10_000)] | None = Field(
        None, description="First line of the block."
    )
    user_id: ScopeId | None = Field(None, description="Only memories of this user.")
    agent_id: ScopeId | None = Field(None, description="Only memories of this agent.")
    session_id: ScopeId | None = Field(
        None, description="Only memories extracted from this session."
    )


class ListRecent(Params):
    limit: Annotated[int, Field(ge=0, le=MAX_K)] = Field(20, description="How many.")
    include_superseded: bool = Field(False, description="Also list superseded memories.")
    include_expired: bool = Field(False, description="Also list memories whose TTL passed.")
    type: MemoryTypeName | None = Field(None, description="Only memories of this type.")
    tag: str | None = Field(None, description="Only memories carrying this tag.")
    source: str | None = Field(None, description="Only memories with exactly this source.")
    since: Timestamp | None = Field(
        None, description=f"Only memories created at/after this time. {TIME_HELP}"
    )
    user_id: ScopeId | None = Field(None, description="Only memories of this user.")
    agent_id: ScopeId | None = Field(None, description="Only memories of this agent.")
    session_id: ScopeId | None = Field(
        None, description="Only memories extracted from this session."
    )
    sort: str = Field(
        "created",
        description="Newest first by this field.",
        json_schema_extra={"enum": _LIST_SORTS},
    )


class NoParams(Params):
    pass


class Neighbors(Params):
    memory_id: Id = Field(description=_MEMORY_ID_DOC)
    rel: LinkRel | None = Field(None, description="Only this relation.")
    direction: Direction = Field("both", description="out, in or both.")
    depth: Annotated[int, Field(ge=1, le=10)] = Field(1, description="Hops to follow.")


class Subgraph(Params):
    memory_ids: Annotated[list[Id], Field(min_length=1)] = Field(description="Start ids.")
    depth: Annotated[int, Field(ge=0, le=10)] = Field(1, description="Hops to follow.")


class FindConflicts(Params):
    model_config = {
        "extra": "forbid",
        "regex_engine": "python-re",
        "json_schema_extra": {"not": {"required": ["memory_id", "since"]}},
    }

    memory_id: Id | None = Field(None, description="Check only this memory; omit to scan all.")
    threshold: Fraction | None = Field(
        None, description="Similarity cutoff 0..1 (default from config, 0.80)."
    )
    since: Timestamp | None = Field(
        None,
        description="Incremental scan: only memories created at/after this time, each against "
        f"the whole collection (not with memory_id). {TIME_HELP}",
    )
    limit: Annotated[int, Field(ge=1, le=MAX_CONFLICT_PAIRS)] = Field(
        1000,
        description="At most this many pairs, in scan order (oldest memories first); a "
        "scan stops there, so a collection of near-duplicates answers in bounded time.",
    )


class JournalTail(Params):
    n: Count = Field(20, description="How many.")
    op: JournalOp | None = Field(None, description="Only entries of this operation.")
    since_seconds: Annotated[float, Field(ge=0)] | None = Field(
        None, description="Only entries from the last N seconds."
    )


class StateAt(Params):
    ts: Timestamp = Field(description=f"Point in time. {TIME_HELP}")


class GetAt(Params):
    memory_id: Id = Field(description=_MEMORY_ID_DOC)
    ts: Timestamp = Field(description=f"Point in time. {TIME_HELP}")


class JobRef(Params):
    job_id: Id = Field(description="The job id.")


class Jobs(Params):
    limit: Annotated[int, Field(ge=1, le=1000)] = Field(20, description="How many.")


class Browse(Params):
    sort: str = Field(
        "created",
        description="created, importance or decay.",
        json_schema_extra={"enum": ["created", "importance", "decay"]},
    )
    after: Annotated[str, Field(pattern=CURSOR_PATTERN)] | None = Field(
        None, description="The previous page's next cursor."
    )
    limit: Annotated[int, Field(ge=1, le=200)] = Field(25, description="Page size.")
    type: MemoryTypeName | None = Field(None, description="Only memories of this type.")
    tag: str | None = Field(None, description="Only memories carrying this tag.")
    include_superseded: bool = Field(False, description="Also list superseded memories.")


class Facets(Params):
    top_tags: Annotated[int, Field(ge=0, le=100)] = Field(15, description="How many tags.")


class Growth(Params):
    bucket: str = Field(
        "day", description="hour, day or week.", json_schema_extra={"enum": ["hour", "day", "week"]}
    )


#: The admin models live in :mod:`.params_admin`; they are part of this namespace.
__all__ = [
    "ArchivePath",
    "Backup",
    "CollectionCopy",
    "CollectionMigrate",
    "CollectionRef",
    "Export",
    "ExportStream",
    "Import",
    "ImportOptions",
    "Nuke",
    "VectorFormat",
]
