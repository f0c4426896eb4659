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
list of words of change.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..db.decode import as_text
from ..db.schema import index_info, still_indexing
from ..domain.model import FOLLOWS, Memory, previous_turn
from ..recall.statements import content_words, may_update, says_update, stated_values
from . import codec, lexstats
from .codec import F
from .core import CoreStore
from .search import knn_query, queue_similarities, similarities

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
#: The words of change the links are inferred by (:data:`~houkai.recall.statements.
#: UPDATE_WORDS`), numbered: raise it when they change, and the next
#: ``collections migrate`` links every collection's stored memories again
#: (:data:`~houkai.store.lexstats.LINKS_READ_FIELD`). "1": those of ADR 0105.
LINKS_READ = "1"


def _candidates(memories: Sequence[Memory]) -> list[Memory]:
    """Those of *memories* that say they are an update and are no turn of a recorded
    exchange: a later turn carries the talk on, it does not replace what was said (as the
    ``current`` stage reads them)."""
    return [m for m in memories if says_update(m.text) and previous_turn(m) is None]


def link_updates(core: CoreStore, memories: Sequence[Memory]) -> int:
    """Infer and record the update links of freshly written *memories* (see the module
    docstring); returns how many were recorded. Three round trips for a batch that holds
    an update (the KNNs, the neighbours' texts, the links), none otherwise. A failure is
    logged, never raised: the memories are stored, and a missing link costs only rank.
    :data:`BATCH` updates at a time, so a bulk write of a million memories never sends one
    pipeline of sixty thousand searches."""
    news = _candidates(memories)
    linked = 0
    for start in range(0, len(news), BATCH):  # a bounded pipeline, however big the write
        batch = news[start : start + BATCH]
        try:
            linked += _link(core, batch)
        except Exception:  # the write stands; the link is an index of it
            log.warning("inferring update links failed for %d memories", len(batch), exc_info=True)
    return linked


def relink(core: CoreStore, batch_size: int = 1000) -> int | None:
    """Infer the update links of the memories already stored, unless they were linked by
    the current words of change (:data:`LINKS_READ`): a collection an earlier release
    wrote has none, or those an older list found. Returns how many links were recorded
    (a link already there counts again: a set member is added once), or None while the
    index is still being built (its searches would miss memories: run it again later).
    Idempotent and safe beside live writes, which link themselves; a failure is raised,
    so the number is recorded only once every memory was read."""
    client, stats = core.client, core.keys.lexstats
    if as_text(client.hget(stats, lexstats.LINKS_READ_FIELD) or b"") == LINKS_READ:
        return 0
    if still_indexing(index_info(client, core.keys.index)):
        log.info("update links: index %s is still being built; not inferred", core.keys.index)
        return None
    linked = 0
    for memories in core.iter_memories(batch_size=batch_size):
        news = _candidates(memories)
        for start in range(0, len(news), BATCH):
            linked += _link(core, news[start : start + BATCH])
    client.hset(stats, lexstats.LINKS_READ_FIELD, LINKS_READ)
    log.info("update links: %d inferred for the memories already stored", linked)
    return linked


def _link(core: CoreStore, news: list[Memory]) -> int:
    vectors = _vectors(core, news)
    exact = core.knn_exact()
    pipe = core.client.pipeline(transaction=False)
    asked = [m for m in news if m.id in vectors]
    query = knn_query("*", NEIGHBOURS, core.index_params.ef_runtime, exact=exact)
    for memory in asked:
        queue_similarities(
            pipe, core.keys.index, query, NEIGHBOURS, core.vector_blob(vectors[memory.id])
        )
    near: dict[str, list[tuple[str, float]]] = {}
    for memory, reply in zip(asked, pipe.execute(), strict=True):
        hits = [(codec.memory_id_from_key(core.keys, key), sim) for key, sim in similarities(reply)]
        near[memory.id] = [(i, sim) for i, sim in hits if i != memory.id]
    if not any(s >= SIMILARITY for hits in near.values() for _, s in hits):
        return 0
    wanted = sorted({i for hits in near.values() for i, _ in hits})
    pipe = core.client.pipeline(transaction=False)
    for memory_id in wanted:
        pipe.hmget(core.keys.memory(memory_id), [F.TEXT, F.LINKS])
    texts: dict[str, str] = {}
    turns: set[str] = set()
    for memory_id, (text, marks) in zip(wanted, pipe.execute(), strict=True):
        if text is not None:
            texts[memory_id] = as_text(text)
            if f'"{FOLLOWS}"' in as_text(marks or b""):
                turns.add(memory_id)
    links: list[tuple[str, str]] = []
    for memory in asked:
        hits = [(i, s) for i, s in near[memory.id] if i in texts]
        common = _common([memory.text, *(texts[i] for i, _ in hits)])
        olds = [
            i
            for i, s in hits
            if s >= SIMILARITY and i not in turns and may_update(memory.text, texts[i], common)
        ]
        links += [(old, memory.id) for old in olds[:MOST]]
    if not links:
        return 0
    pipe = core.client.pipeline(transaction=False)
    for old, new in links:
        pipe.sadd(core.keys.updated_by(old), new)
    pipe.hset(core.keys.lexstats, lexstats.UPDATES_FIELD, "1")
    pipe.execute()
    return len(links)


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
