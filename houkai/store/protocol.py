"""The store protocol's names: the call counters and the primitives.

:data:`PRIMITIVES` are what the store's collaborators and its outside users (the write
pipeline, decay, reflection, the CLI's copy, the benches) build on: public and
documented on :class:`~houkai.store.MemoryStore`, but plumbing rather than the memory
API (they skip validation, conflict policy or journaling on purpose), so the async
wrapper and the doors do not expose them.
"""

from __future__ import annotations

CALL_NAMES: tuple[str, ...] = (
    "remember",
    "recall",
    "forget",
    "edit",
    "supersede",
    "link",
    "unlink",
    "restore",
    "purge_expired",
    "export",
    "import",
)

PRIMITIVES: frozenset[str] = frozenset(
    {
        "build_memory",
        "encode",
        "query_vector",
        "knn_exact",
        "write",
        "delete",
        "journal_append",
        "journal_append_many",
        "maybe_archive_journal",
        "count_call",
        "vector_blob",
        "vector_from_blob",
        "from_fields",
        "fields_of",
        "overlay_access",
        "account_access",
        "set_raw_fields",
        "content_counts_stale",
        "created_slices",
        "stale_aggregate",
        "wait_refreshes",
        "fold_ids",
        "touch_many",
        "check_conflicts",
        "apply_conflict_policy",
        "apply_conflict_policy_many",
        "reindex_links",
        "find_entry",
    }
)
