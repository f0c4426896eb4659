"""The memory API's own: remember(_many), edit, forget, list_recent, nuke, drop.

Built on the core's primitives (validate and build, embed, write, journal) and
calling the two collaborators a write needs explicitly: :class:`Conflicts` runs
the conflict policy after (or, for ``raise``, before) a write, :class:`Graph`
indexes the ``follows`` links of a sequence.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..db.decode import as_text
from ..db.filters import filter_expr
from ..db.keys import Keys
from ..db.schema import SEARCH_FIELDS, drop_index
from ..domain.model import (
    CONFLICT_POLICIES,
    FOLLOWS,
    LIST_SORTS,
    MEMORY_TYPES,
    ConflictError,
    ConflictFn,
    Link,
    Memory,
    MemoryNotFound,
    RememberItem,
    ValidationError,
    content_hash,
    new_id,
    resolve_expiry,
    validate_choice,
    validate_importance,
    validate_polarity,
    validate_source,
    validate_tags,
    validate_text,
)
from ..domain.scope import scope_filters, validate_message_ids, validate_scope
from . import access, codec, specificity
from .conflicts import Conflicts
from .core import CoreStore
from .graph import Graph
from .options import coerce_remember_item
from .search import search
from .updates import link_updates

_UNSET: Any = object()  # "leave unchanged" where None is meaningful (edit's source)
#: The least time between two memories of one write call (:func:`date_after`): more than
#: the whole microsecond the dashboard pages by.
CALL_ORDER_STEP = 1e-5


def date_after(memory: Memory, before: float) -> None:
    """Date *memory* at least :data:`CALL_ORDER_STEP` after *before*, the memory ahead of
    it in its write call. The call's order is its history to recall's ``current`` stage
    (ADR 0093): a clock that steps back or ticks coarsely must not tie or reverse it."""
    if memory.created_at < before + CALL_ORDER_STEP:
        memory.created_at = memory.last_accessed = before + CALL_ORDER_STEP


class Memories:
    """remember, remember_many, edit, forget, list_recent, nuke, drop over a :class:`CoreStore`."""

    def __init__(self, core: CoreStore, graph: Graph, conflicts: Conflicts) -> None:
        self.core = core
        self.graph = graph
        self.conflicts = conflicts

    def build_memory(
        self,
        text: str,
        type: str | None = None,
        tags: Iterable[str] | None = (),
        importance: float | None = None,
        source: str | None = None,
        *,
        polarity: int = 0,
        expires_at: float | None = None,
        ttl_seconds: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        message_ids: Sequence[str] | None = None,
    ) -> Memory:
        """Validate inputs and build a Memory: no write, no journal, no conflict scan."""
        clean = validate_text(text)
        type = type or self.core.settings.default_type
        validate_choice(type, MEMORY_TYPES, "type")
        polarity = validate_polarity(polarity)
        expiry = resolve_expiry(expires_at, ttl_seconds)
        tag_list = validate_tags(tags)
        source = validate_source(source)
        if importance is None:
            if self.core.importance_fn is not None:
                importance = self.core.importance_fn(clean, type, list(tag_list))
            else:
                importance = self.core.settings.default_importance
        now = time.time()
        return Memory(
            id=new_id(),
            text=clean,
            type=type,
            tags=tag_list,
            importance=validate_importance(importance),
            created_at=now,
            last_accessed=now,
            source=source,
            polarity=polarity,
            expires_at=expiry,
            collection=self.core.collection_name,
            state="pending",
            content_hash=content_hash(clean),
            user_id=validate_scope(user_id, "user_id"),
            agent_id=validate_scope(agent_id, "agent_id"),
            session_id=validate_scope(session_id, "session_id"),
            message_ids=validate_message_ids(message_ids),
        )

    def remember(
        self,
        text: str,
        type: str | None = None,
        tags: Iterable[str] | None = (),
        importance: float | None = None,
        source: str | None = None,
        *,
        polarity: int = 0,
        expires_at: float | None = None,
        ttl_seconds: float | None = None,
        on_conflict: str | None = None,
        contradiction_fn: ConflictFn | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        message_ids: Sequence[str] | None = None,
    ) -> Memory:
        """Embed and store one memory; the conflict policy is README's "Links, supersede,
        conflicts". The scope ids and ``message_ids`` record whose it is and where it
        came from (see :mod:`houkai.domain.scope`)."""
        if on_conflict is not None:
            validate_choice(on_conflict, CONFLICT_POLICIES, "on_conflict")
        memory = self.build_memory(
            text,
            type,
            tags,
            importance,
            source,
            polarity=polarity,
            expires_at=expires_at,
            ttl_seconds=ttl_seconds,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            message_ids=message_ids,
        )
        policy = on_conflict or self.core.conflict_policy
        vector = self.core.encode([memory.text])
        memory.embedding = vector[0].tolist()
        if policy == "raise":
            conflicts = self.conflicts.check_conflicts(
                memory, self.core.conflict_threshold, contradiction_fn or self.core.contradiction_fn
            )
            if conflicts:
                raise ConflictError(conflicts)
        self.core.write([memory], vector)
        self.core.count_call("remember")
        self.core.journal_append("remember", memory.id, after=memory.to_dict())
        link_updates(self.core, [memory])
        if policy in ("warn", "supersede"):
            self.conflicts.apply_conflict_policy(
                memory, policy, contradiction_fn or self.core.contradiction_fn
            )
        return memory

    def remember_many(
        self,
        items: Iterable[str | RememberItem | Mapping[str, Any]],
        *,
        batch_size: int = 128,
        on_conflict: str | None = None,
        contradiction_fn: ConflictFn | None = None,
        sequence: bool = False,
    ) -> list[Memory]:
        """Store many memories with batched embedding; validation is all-or-nothing.

        ``sequence=True`` marks the items as one ordered run (a conversation, a
        document's chunks): each memory gets a ``follows`` link to the one before
        it, so recall's context stage can score a hit with its neighbours.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValidationError("batch_size must be an integer >= 1")
        policy = on_conflict or self.core.conflict_policy
        validate_choice(policy, CONFLICT_POLICIES, "on_conflict")
        if policy == "raise":
            raise ValidationError(
                "on_conflict='raise' is not supported by remember_many() — bulk rollback is "
                "ill-defined; use remember() per item"
            )
        built = [self.build_memory(**coerce_remember_item(item)) for item in items]
        for before, memory in itertools.pairwise(built):
            date_after(memory, before.created_at)
        if sequence:
            for before, memory in itertools.pairwise(built):
                memory.links.append(Link(to=before.id, rel=FOLLOWS))
        for start in range(0, len(built), batch_size):
            chunk = built[start : start + batch_size]
            vectors = self.core.encode([m.text for m in chunk])
            for memory, vector in zip(chunk, vectors, strict=True):
                memory.embedding = vector.tolist()
            self.core.write(chunk, vectors)
            if sequence:
                self.graph.reindex_links(chunk)
            self.core.count_call("remember", len(chunk))
            self.core.journal_append_many("remember", ((m.id, None, m.to_dict()) for m in chunk))
        link_updates(self.core, built)
        if policy in ("warn", "supersede") and built:
            self.conflicts.apply_conflict_policy_many(
                built, policy, contradiction_fn or self.core.contradiction_fn
            )
        return built

    def edit(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        type: str | None = None,
        tags: Iterable[str] | None = None,
        importance: float | None = None,
        polarity: int | None = None,
        expires_at: float | None = None,
        source: str | None = _UNSET,
    ) -> Memory:
        """Update fields in place, keeping id, links, supersede state and access tracking.

        Omitted fields stay; ``source=None`` clears the source; ``expires_at=0``
        clears a TTL. A changed text is re-embedded. A call that changes nothing
        writes nothing and journals nothing.
        """
        current = self.core.get(memory_id)
        if current is None:
            raise MemoryNotFound(memory_id)
        updated = Memory.from_dict(current.to_dict())
        if text is not None:
            updated.text = validate_text(text)
            updated.content_hash = content_hash(updated.text)
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
            updated.type = type
        if tags is not None:
            updated.tags = validate_tags(tags)
        if importance is not None:
            updated.importance = validate_importance(importance)
        if polarity is not None:
            updated.polarity = validate_polarity(polarity)
        if expires_at is not None:
            updated.expires_at = resolve_expiry(expires_at, None)
        if source is not _UNSET:
            updated.source = validate_source(source)
        before = current.to_dict()
        changed = [name for name, value in updated.to_dict().items() if value != before[name]]
        if not changed:
            return current
        vector = None
        if updated.text != current.text:
            vector = self.core.encode([updated.text])
            updated.embedding = vector[0].tolist()
        pipe = self.core.client.pipeline(transaction=False)
        self.core.write([updated], vector, pipe, fields=changed)
        if not pipe.execute()[0]:
            raise MemoryNotFound(memory_id)
        self.core.count_call("edit")
        self.core.journal_append(
            "edit", memory_id, before=current.to_dict(), after=updated.to_dict()
        )
        return updated

    def forget(self, memory_id: str) -> bool:
        """Hard-delete one memory. False when it does not exist.

        Read and delete are one script, so the journal holds exactly what was
        deleted (a link or edit landing just before is in it, and undone with it).
        """
        if not isinstance(memory_id, str) or not memory_id:
            return False
        raw = self.core.scripts.delete_memory(
            keys=[
                self.core.keys.memory(memory_id),
                self.core.keys.lexstats,
                self.core.keys.access_doc(memory_id),
            ],
            args=[self.core.keys.incoming_prefix, memory_id],
        )
        if not raw:
            return False
        fields = {as_text(raw[i]): raw[i + 1] for i in range(0, len(raw), 2)}
        before = self.core.overlay_access([codec.from_hash(fields)])[0]
        self.core.client.hdel(self.core.keys.access, f"n:{memory_id}", f"t:{memory_id}")
        self.core.count_call("forget")
        self.core.journal_append("forget", memory_id, before=before.to_dict())
        return True

    def nuke(self) -> int:
        """Delete every memory of this collection; returns how many were deleted."""
        deleted = 0
        for batch in self.core.scan_keys(self.core.keys.memory_prefix + "*"):
            deleted += int(self.core.client.unlink(*batch))
        for batch in self.core.scan_keys(self.core.keys.incoming_prefix + "*"):
            self.core.client.unlink(*batch)
        for batch in self.core.scan_keys(self.core.keys.access_doc_prefix + "*"):
            self.core.client.unlink(*batch)
        for batch in self.core.scan_keys(self.core.keys.updated_by_prefix + "*"):
            self.core.client.unlink(*batch)  # a forgotten memory's stays until here (undo)
        self.core.client.delete(
            self.core.keys.tag_names,
            self.core.keys.lexstats,
            self.core.keys.access,
            self.core.keys.inflight,
            self.core.keys.aggregate_cache,
            self.core.keys.findability,
        )
        specificity.FREQUENCIES.forget(self.core.keys.lexstats)  # this process's; others age out
        self.core.journal_append("nuke", "", meta={"deleted": deleted})
        return deleted

    def drop(self) -> int:
        """Delete the collection entirely: memories, index, journal, metrics, registry entry."""
        deleted = self.nuke()  # memories, reverse links, tag names, BM25 and access hashes
        drop_index(self.core.client, self.core.keys)
        access.drop_access_index(self.core.client, self.core.keys)
        self.core.client.delete(
            self.core.keys.meta,
            self.core.keys.journal,
            self.core.keys.metrics,
            self.core.keys.latency,
            self.core.keys.llm_usage,
        )
        self.core.client.srem(Keys.registry(self.core.keys.prefix), self.core.collection_name)
        return deleted

    # ------------------------------------------------------------------ reads
    def list_recent(
        self,
        limit: int = 20,
        include_superseded: bool = False,
        include_expired: bool = False,
        *,
        type: str | None = None,
        tag: str | None = None,
        source: str | None = None,
        since: float | None = None,
        sort: str = "created",
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[Memory]:
        """Newest first (by *sort*: created, importance or accessed), hiding superseded and
        expired memories unless asked; every filter runs in RediSearch."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValidationError(f"limit must be an integer >= 0 — got {limit!r}")
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
        validate_choice(sort, tuple(LIST_SORTS), "sort")
        query = filter_expr(
            type=type,
            tag=tag,
            source=source,
            since=since,
            include_superseded=include_superseded,
            include_expired=include_expired,
            scope=scope_filters(user_id=user_id, agent_id=agent_id, session_id=session_id),
        )
        index = self.core.aggregate_index if sort == "accessed" else self.core.keys.index
        if index != self.core.keys.index:  # last access is the access documents' to sort by
            _, hits = search(
                self.core.client, index, query, sortby=("last_accessed", "DESC"), limit=limit,
                nocontent=True,
            )  # fmt: skip
            prefix = self.core.keys.access_doc_prefix
            ids = [hit.key[len(prefix) :] for hit in hits]
            found = self.core.get_many(ids)
            return [found[i] for i in ids if i in found]
        _, hits = search(
            self.core.client,
            index,
            query,
            return_fields=SEARCH_FIELDS,
            sortby=(LIST_SORTS[sort], "DESC"),
            limit=limit,
        )
        return self.core.overlay_access([codec.from_hash(h.fields) for h in hits])
