"""Update links inferred when a memory is written (ADR 0105).

Agents write a changed fact as a new note, seldom with a supersede link, and often in
words of their own: "Tandemly moved engineering and product onto Linear on September 1;
the Jira projects are archived." shares no word with "What do we use for issue tracking
at work?", and ranks far below the note it replaced, "Product and engineering at
Tandemly track work in Jira." (first). Recall cannot find such an update from the
question; the note it updates can. So when a memory that says it is an update is
written (:func:`~houkai.recall.statements.may_update`), one KNN from its vector finds the
notes it may update: at least :data:`SIMILARITY` alike, on the same subject, sharing a
name or two words. Each gets the new memory's id in its ``updated_by`` set
(:meth:`~houkai.db.keys.Keys.updated_by`), and the collection's statistics say such a
link exists (:data:`~houkai.store.lexstats.UPDATES_FIELD`). Recall's ``current`` stage
reads the sets of its best candidates for a question about the present (one round trip,
none in a collection without a link) and gives the newest newer memory the rank of the
one it updates.

The link is derived, like the lexical statistics: no journal entry, no field of the
memory, nothing exported (an import writes the memories again, and their links with
them). Which of the two is newer is read at recall, from their ``created_at``: a batch
written in any order, or backdated, links the same. A forgotten update leaves its id in
the set; recall skips an id it cannot read. The memories of a collection an earlier
release wrote are linked by :func:`relink` (``houkai collections migrate``), once per
way of inferring them.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..db.decode import as_float, as_text
from ..db.keys import Keys
from ..db.schema import has_exact, index_info, read_meta, still_indexing
from ..domain.model import FOLLOWS, Memory, previous_turn
from ..recall.statements import content_words, may_update, says_update, stated_values
from . import codec, lexstats
from .codec import F
from .core import CoreStore, exact_knn_state
from .search import iter_keys, knn_query, queue_similarities, similarities

log = logging.getLogger(__name__)

#: Neighbours read per written update (its own vector is the nearest).
NEIGHBOURS = 6
#: Cosine of two notes one of which may update the other.
SIMILARITY = 0.6
#: Notes one update may link to: the nearest that qualify.
MOST = 2
#: A word or value more of an update's neighbourhood holds is no echo of the note it
#: replaces (as the ``current`` stage reads echoes among its candidates).
ECHO = 2
#: Updates whose neighbours one pipeline asks for.
BATCH = 256
#: How the links are inferred, numbered (the words of change, the thresholds above,
#: :func:`~houkai.recall.statements.may_update`): raise it when that changes, and the next
#: ``collections migrate`` links every collection's stored memories again
#: (:data:`~houkai.store.lexstats.LINKS_INFERRED_FIELD`). "1": ADR 0105's.
LINKS_INFERRED = lexstats.LINKS_INFERRED


@dataclass(frozen=True)
class _Index:
    """How one collection's index is asked for a note's nearest notes."""

    client: Any
    keys: Keys
    ef_runtime: int
    exact: bool


@dataclass(frozen=True)
class _Note:
    """A written note that says it is an update: what its links are inferred from (its
    vector as the index stores it)."""

    id: str
    text: str
    created_at: float
    blob: bytes


def _candidates(memories: Sequence[Memory]) -> list[Memory]:
    """Those of *memories* that say they are an update and are no turn of a recorded
    exchange: a later turn carries the talk on, it does not replace what was said (as the
    ``current`` stage reads them)."""
    return [m for m in memories if says_update(m.text) and previous_turn(m) is None]


def _a_turn(marks: bytes | str | None) -> bool:
    """Do a memory's stored links (its ``links`` field as read) make it follow another:
    a turn of a recorded exchange, as :func:`~houkai.domain.model.previous_turn` reads it
    from a whole memory?"""
    return f'"{FOLLOWS}"' in as_text(marks or b"")


def link_updates(core: CoreStore, memories: Sequence[Memory]) -> int:
    """Infer and record the update links of freshly written *memories* (see the module
    docstring); returns how many new links were recorded. Three round trips for a batch
    that holds an update (the KNNs, the neighbours' texts, the links), none otherwise. A
    failure is logged, never raised: the memories are stored, and a missing link costs
    only rank. :data:`BATCH` updates at a time, so a bulk write of a million memories never
    sends one pipeline of sixty thousand searches."""
    news = _candidates(memories)
    if not news:
        return 0
    index = _Index(core.client, core.keys, core.index_params.ef_runtime, core.knn_exact())
    linked = 0
    for start in range(0, len(news), BATCH):  # a bounded pipeline, however big the write
        batch = news[start : start + BATCH]
        try:
            vectors = _vectors(core, batch)
            notes = [
                _Note(m.id, m.text, m.created_at, core.vector_blob(vectors[m.id]))
                for m in batch
                if m.id in vectors
            ]
            linked += _link(index, notes)
        except Exception:  # the write stands; the link is an index of it
            log.warning("inferring update links failed for %d memories", len(batch), exc_info=True)
    return linked


def links_current(client: Any, stats_key: str) -> bool:
    """Are the collection's update links inferred the current way (:data:`LINKS_INFERRED`)?
    True for an empty collection: its first write sets the marker."""
    n, marker = client.hmget(stats_key, [lexstats.DOC_COUNT_FIELD, lexstats.LINKS_INFERRED_FIELD])
    return not int(n or 0) or as_text(marker or b"") == LINKS_INFERRED


def relink(
    client: Any, keys: Keys, *, ef_runtime: int, exact_upto: int, batch_size: int = 1000
) -> int | None:
    """Infer the update links of the memories a collection already holds, as if each had
    been written alone after the ones before it (its nearest notes among the older ones),
    unless they were linked the current way (:data:`LINKS_INFERRED`): a collection an
    earlier release wrote has none. Adds links, never removes one. Returns how many new
    links were recorded, or None while the index is still being built (its searches would
    miss memories: run it again once it is). Reads no store (no embedder is loaded): each
    memory's text, links, date and stored vector, oldest first; KNN at *ef_runtime*, or
    on the exact field while the collection has one and holds at most *exact_upto*
    memories (as recall's KNN). Idempotent and safe beside live writes, which link themselves;
    a failure is raised, so the marker is recorded only once every memory was read."""
    if links_current(client, keys.lexstats):
        return 0
    if still_indexing(index_info(client, keys.index)):
        log.info("update links: index %s is still being built; not inferred", keys.index)
        return None
    size, filled = exact_knn_state(client, keys)
    exact = has_exact(read_meta(client, keys).get("signature")) and filled and size <= exact_upto
    index = _Index(client, keys, ef_runtime, exact)
    linked = read = 0
    for batch in iter_keys(client, keys.index, "*", batch_size=batch_size):
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.hmget(key, [F.TEXT, F.LINKS, F.CREATED_AT, F.VEC])
        notes = [
            _Note(codec.memory_id_from_key(keys, key), as_text(text), as_float(at), vec)
            for key, (text, marks, at, vec) in zip(batch, pipe.execute(), strict=True)
            if text is not None
            and vec
            and at is not None
            and says_update(as_text(text))
            and not _a_turn(marks)
        ]
        for start in range(0, len(notes), BATCH):
            linked += _link(index, notes[start : start + BATCH], older_only=True)
        read += len(batch)
        log.debug("update links: %d memories read, %d links so far", read, linked)
    client.hset(keys.lexstats, lexstats.LINKS_INFERRED_FIELD, LINKS_INFERRED)
    log.info("update links: %d inferred for the %d memories already stored", linked, read)
    return linked


def _link(index: _Index, notes: list[_Note], *, older_only: bool = False) -> int:
    """Link *notes* from the older notes each may update; returns how many links are new.
    *older_only*: each note's neighbours are sought among the notes no newer than it (a
    collection linked after the fact, as if written one note at a time); a fresh write
    asks the whole index, its batch included."""
    client, keys = index.client, index.keys
    pipe = client.pipeline(transaction=False)
    for note in notes:
        where = f"@{F.CREATED_AT}:[-inf {note.created_at!r}]" if older_only else "*"
        query = knn_query(where, NEIGHBOURS, index.ef_runtime, exact=index.exact)
        queue_similarities(pipe, keys.index, query, NEIGHBOURS, note.blob)
    near: dict[str, list[tuple[str, float]]] = {}
    for note, reply in zip(notes, pipe.execute(), strict=True):
        hits = [(codec.memory_id_from_key(keys, key), sim) for key, sim in similarities(reply)]
        near[note.id] = [(i, sim) for i, sim in hits if i != note.id]
    if not any(s >= SIMILARITY for hits in near.values() for _, s in hits):
        return 0
    wanted = sorted({i for hits in near.values() for i, _ in hits})
    pipe = client.pipeline(transaction=False)
    for memory_id in wanted:
        pipe.hmget(keys.memory(memory_id), [F.TEXT, F.LINKS])
    texts: dict[str, str] = {}
    turns: set[str] = set()
    for memory_id, (text, marks) in zip(wanted, pipe.execute(), strict=True):
        if text is not None:
            texts[memory_id] = as_text(text)
            if _a_turn(marks):
                turns.add(memory_id)
    links: list[tuple[str, str]] = []
    for note in notes:
        hits = [(i, s) for i, s in near[note.id] if i in texts]
        common = _common([note.text, *(texts[i] for i, _ in hits)])
        olds = [
            i
            for i, s in hits
            if s >= SIMILARITY and i not in turns and may_update(note.text, texts[i], common)
        ]
        links += [(old, note.id) for old in olds[:MOST]]
    if not links:
        return 0
    pipe = client.pipeline(transaction=False)
    for old, new in links:
        pipe.sadd(keys.updated_by(old), new)
    pipe.hset(keys.lexstats, lexstats.UPDATES_FIELD, "1")
    return sum(int(added) for added in pipe.execute()[: len(links)])


def _common(family: Sequence[str]) -> frozenset[str]:
    """The words and values more than :data:`ECHO` notes of *family* (a written update and
    its nearest notes) hold: the subject all of them are about, or the incident each of a
    family of near-identical notes tells of, never what one update repeats of the note it
    replaces."""
    holders: Counter[str] = Counter()
    for text in family:
        holders.update(content_words(text) | stated_values(text))
    return frozenset(w for w, n in holders.items() if n > ECHO)


def _vectors(core: CoreStore, memories: Sequence[Memory]) -> dict[str, np.ndarray]:
    """The memories' vectors: in hand, else stored (one still pending has none yet)."""
    out = {
        m.id: np.asarray(m.embedding, dtype=np.float32) for m in memories if m.embedding is not None
    }
    missing = [m.id for m in memories if m.id not in out]
    if missing:
        out.update(core.vectors(missing))
    return out
