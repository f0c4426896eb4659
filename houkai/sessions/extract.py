"""One extraction job: a session's not-yet-extracted messages → reconciled memories.

Runs on a worker (``houkai.extract_session``), or in-process when asked explicitly
(``store.extract_session``, ``houkai session extract``); never inside the request that
adds messages.

Idempotent on re-delivery and safe after a crash at any point: each candidate's memory
id is derived from the session, its messages and its text, so a job that runs again
finds what it already wrote (and finishes a supersede it had not reached); messages are
marked extracted only after every candidate of the batch is stored, and a message
already marked keeps its first result. A second run over the same messages makes no
new memory.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..db.decode import as_float
from ..domain.config import parse_duration
from ..domain.model import Memory, ValidationError
from ..extraction.base import Candidate, ChatMessage, Decision, Extractor, Usage
from ..extraction.usage import record_usage
from .reconcile import decide, find_neighbours

log = logging.getLogger(__name__)

_NAMESPACE = uuid.UUID("6f1c8a52-3c1e-4c55-9d0b-2f6a3c1d7e90")


@dataclass
class ExtractionReport:
    session_id: str
    status: str = "done"  # done | idle | debounced | missing
    messages: int = 0
    candidates: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    decisions: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def memory_id_for(collection: str, session_id: str, candidate: Candidate) -> str:
    """The candidate's memory id: the same messages and text give the same id."""
    key = "\x00".join((collection, session_id, ",".join(candidate.message_ids), candidate.text))
    return str(uuid.uuid5(_NAMESPACE, key))


def extractor_from_settings(settings: Any, client: Any = None) -> Extractor:
    """The configured extractor; an LLM one shares its rate limits, concurrency cap, reply
    cache and usage figures through *client* (Redis) with every worker."""
    from ..extraction.llm import extractor_from_settings as build

    return build(settings, client)


def _with_times(messages: list[ChatMessage], held: Mapping[str, Mapping[str, Any]]) -> list:
    """Messages without their own ``ts`` get the time they arrived (dates resolve from it)."""
    out = []
    for m in messages:
        if m.ts is None and held.get(m.id, {}).get("at"):
            m = ChatMessage(m.id, m.role, m.content, float(held[m.id]["at"]), m.name)
        out.append(m)
    return out


def run_extraction(
    store: Any,
    session_id: str,
    *,
    due: float = 0.0,
    extractor: Extractor | None = None,
    job_id: str = "",
) -> ExtractionReport:
    """Extract *session_id*'s pending messages into memories (see the module docstring).

    *due* > 0 marks a debounced trigger, as a release before the due-session sweep sent
    (a countdown task per message; some may still be queued after an upgrade): when newer
    messages arrived since it was scheduled and fewer than the message threshold are
    pending, it does nothing."""
    state = store.session_state
    settings = store.settings
    report = ExtractionReport(session_id)
    meta = state.meta(session_id)
    if meta is None:  # deleted, or expired idle: nothing to do, and no longer due
        store.client.zrem(store.keys.sessions_due, session_id)
        report.status = "missing"
        return report
    if due:
        idle = parse_duration(settings.extract_after_idle)
        last = as_float(meta.get("updated_at"))
        if last + idle > time.time() + 0.5 and state.pending_count(session_id) < max(
            1, settings.extract_after_messages
        ):
            report.status = "debounced"
            return report
    store.client.delete(store.keys.session_queued(session_id))  # later messages queue anew
    held = {m["id"]: m for m in state.messages(session_id) if not m["extracted"]}
    pending = _with_times(state.pending(session_id), held)
    if not pending:
        state.settle_due(session_id)
        state.trim(session_id)
        report.status = "idle"
        return report
    extractor = extractor or extractor_from_settings(settings, store.client)
    _, provider, model = [*extractor.spec.split(":", 2), "", ""][:3]
    usage = Usage(provider=provider or "rules", model=model or extractor.spec)
    result = extractor.extract(pending, summary=meta.get("summary", ""))
    usage.add(result.usage)
    scope = {n: meta[n] for n in ("user_id", "agent_id") if meta.get(n)}
    became: dict[str, list[dict[str, Any]]] = {m.id: [] for m in pending}
    written = 0
    for candidate in result.candidates:
        if not isinstance(candidate.text, str) or not candidate.text.strip():
            continue  # an extractor's empty proposal says nothing
        decision, spent, vector = _reconcile(store, extractor, candidate, session_id, scope)
        if spent is not None:
            usage.add(spent)
        memory_id, wrote = _apply(store, decision, session_id, scope, vector)
        written += wrote
        entry: dict[str, Any] = {"action": decision.action, "id": memory_id, "text": candidate.text}
        if decision.action == "UPDATE":
            entry["supersedes"] = decision.target_id
        report.decisions.append({**entry, "reason": decision.reason})
        for mid in candidate.message_ids or [pending[-1].id]:
            became.setdefault(mid, []).append(entry)
        report.added += decision.action == "ADD"
        report.updated += decision.action == "UPDATE"
        report.unchanged += decision.action == "NOOP"
    became = {mid: v for mid, v in became.items() if mid in held}
    state.commit(session_id, became, written)
    state.settle_due(session_id)
    state.trim(session_id)
    record_usage(store.client, store.keys, job_id or f"inline-{uuid.uuid4().hex[:8]}", usage)
    report.messages = len(pending)
    report.candidates = len(result.candidates)
    report.usage = {k: v for k, v in vars(usage).items() if v}
    log.info(
        "session %s: %d message(s) → %d candidate(s): %d added, %d updated, %d unchanged",
        session_id, report.messages, report.candidates, report.added, report.updated,
        report.unchanged,
    )  # fmt: skip
    return report


def _reconcile(
    store: Any, extractor: Extractor, candidate: Candidate, session_id: str,
    scope: Mapping[str, str],
) -> tuple[Decision, Usage | None, Any]:  # fmt: skip
    own_id = memory_id_for(store.collection_name, session_id, candidate)
    vector = store.encode([candidate.text])
    neighbours, memories = find_neighbours(store, candidate, vector[0], scope, exclude=own_id)
    settings = store.settings
    decision, usage = decide(
        extractor,
        candidate,
        neighbours,
        memories,
        duplicate=settings.extract_duplicate_similarity,
        update=settings.extract_update_similarity,
    )
    return decision, usage, vector


def _apply(
    store: Any, decision: Decision, session_id: str, scope: Mapping[str, str], vector: Any
) -> tuple[str, int]:
    """Carry out *decision*: ``(the memory id it leaves, memories written)``."""
    candidate = decision.candidate
    if decision.action == "NOOP":
        return str(decision.target_id), 0
    memory_id = memory_id_for(store.collection_name, session_id, candidate)
    wrote = 0
    if not store.exists(memory_id):
        memory = _build(store, candidate, session_id, scope)
        memory.id = memory_id
        _write(store, memory, vector)
        wrote = 1
    target = decision.target_id
    if decision.action == "UPDATE" and target and target != memory_id:
        old = store.get(target)
        if old is not None and not old.superseded_by:
            store.supersede(target, memory_id)
    return memory_id, wrote


def _build(store: Any, candidate: Candidate, session_id: str, scope: Mapping[str, str]) -> Memory:
    """The candidate as a memory; a field an extractor got wrong (an unknown type, a bad
    tag or importance) falls back to the default rather than failing the whole batch."""
    kwargs: dict[str, Any] = {
        "polarity": candidate.polarity if candidate.polarity in (-1, 0, 1) else 0,
        "session_id": session_id,
        "message_ids": list(candidate.message_ids),
        **scope,
    }
    source = f"session:{session_id}"
    try:
        return store.build_memory(
            candidate.text, candidate.type, list(candidate.tags), candidate.importance, source,
            **kwargs,
        )  # fmt: skip
    except ValidationError as exc:
        log.warning("candidate %r: %s; stored with default type, tags, importance", candidate, exc)
        return store.build_memory(candidate.text, None, [candidate.kind], None, source, **kwargs)


def _write(store: Any, memory: Memory, vector: Any) -> None:
    """Store one memory (its *vector* already encoded) under its own id, journalled like
    ``remember``."""
    memory.embedding = vector[0].tolist()
    store.write([memory], vector)
    store.count_call("remember")
    store.journal_append("remember", memory.id, after=memory.to_dict())
