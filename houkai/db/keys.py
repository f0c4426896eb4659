"""Redis key layout: every key houkai writes for a collection, and collection names.

Tags and sources are arbitrary user strings. Rather than escape them into
RediSearch query syntax (and hope every special character is covered), the
indexed TAG fields hold a short hash of each value (:func:`value_key`), and the
raw values live in plain fields: exact matching, case-sensitive, and no
injection is possible.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property

from ..domain.model import ValidationError

COLLECTION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


def validate_collection(name: object) -> str:
    if not isinstance(name, str) or not COLLECTION_RE.fullmatch(name):
        raise ValidationError(
            "collection must be 1-64 characters of letters, digits, '_', '.' or '-' "
            f"and start with a letter or digit — got {name!r}"
        )
    return name


_GLOB_CHARS = re.compile(r"([*?\[\]\\^])")


def prefix_pattern(prefix: str) -> str:
    """A ``SCAN``/``ZSCAN`` ``MATCH`` pattern for keys or members starting with *prefix*
    (its glob characters escaped)."""
    return _GLOB_CHARS.sub(r"\\\1", prefix) + "*"


def value_key(value: str) -> str:
    """The indexed stand-in for a tag or source: 16 hex chars, safe in any query."""
    return hashlib.blake2b(value.encode("utf-8"), digest_size=8).hexdigest()


def hash_tag(collection: str) -> str:
    """The Redis Cluster hash tag of *collection*: every key of the collection carries
    it, so a collection lives in one slot (one shard) and its Lua scripts and
    transactions never cross slots (ADR 0079)."""
    return "{" + collection + "}"


def validate_prefix(prefix: str) -> str:
    """A key prefix may not hold braces: they would move the keys' hash tag."""
    if "{" in prefix or "}" in prefix:
        raise ValidationError(f"key prefix may not contain '{{' or '}}' — got {prefix!r}")
    return prefix


# Per-collection key families of the layout before ADR 0079, ``<prefix>:<family>:<coll>``
# (exact) or ``<prefix>:<family>:<coll>:<rest>``; the tagged name of either is
# ``<prefix>:{<coll>}:<family>[:<rest>]``. Job keys (``<prefix>:job:<id>…``) are the
# one family not named by collection: their hash's ``collection`` field says whose.
LEGACY_FAMILIES: tuple[str, ...] = (
    "m", "in", "a", "coll", "tagnames", "lex", "acc", "inf", "findable", "journal",
    "metrics", "llmusage", "latency", "sess", "sessm", "sesso", "sessr", "sessq",
    "sessions", "sessdue", "jobs", "submit", "maint", "bench",
)  # fmt: skip
LEGACY_INDEX_FAMILIES: tuple[str, ...] = ("idx", "aidx")


@dataclass(frozen=True)
class Keys:
    """Every Redis key houkai writes for one collection, under one prefix."""

    prefix: str
    collection: str

    def __post_init__(self) -> None:
        validate_prefix(self.prefix)

    @cached_property
    def tag(self) -> str:
        """``<prefix>:{<collection>}``: the start of every key of the collection."""
        return f"{self.prefix}:{hash_tag(self.collection)}"

    @cached_property
    def memory_prefix(self) -> str:
        """Remembered: every memory key and every key-to-id conversion starts here."""
        return f"{self.tag}:m:"

    def memory(self, memory_id: str) -> str:
        return self.memory_prefix + memory_id

    @property
    def index(self) -> str:
        return f"{self.tag}:idx"

    @property
    def meta(self) -> str:
        """Collection metadata: schema version, embedding model, dimension, created_at."""
        return f"{self.tag}:coll"

    def incoming(self, memory_id: str) -> str:
        """Reverse link index: SET of ``src_id|rel`` pointing at *memory_id*."""
        return f"{self.tag}:in:{memory_id}"

    def updated_by(self, memory_id: str) -> str:
        """SET of the ids of newer memories that say they update *memory_id*, inferred when
        they were written (:mod:`houkai.store.updates`)."""
        return self.updated_by_prefix + memory_id

    @property
    def updated_by_prefix(self) -> str:
        return f"{self.tag}:upd:"

    @property
    def incoming_prefix(self) -> str:
        return f"{self.tag}:in:"

    @property
    def tag_names(self) -> str:
        """HASH value_key(tag) → tag, to name tags in aggregations."""
        return f"{self.tag}:tagnames"

    @property
    def lexstats(self) -> str:
        """HASH of BM25 corpus statistics: ``t:<term>`` → df, ``__N``, ``__len``."""
        return f"{self.tag}:lex"

    @property
    def access(self) -> str:
        """HASH of access counts not yet folded into memories: ``n:<id>``, ``t:<id>``."""
        return f"{self.tag}:acc"

    @cached_property
    def access_doc_prefix(self) -> str:
        """Access documents: per memory, its access counts and the fields the decay and
        health aggregates filter on, under a vector-free index (ADR 0075)."""
        return f"{self.tag}:a:"

    def access_doc(self, memory_id: str) -> str:
        return self.access_doc_prefix + memory_id

    @property
    def access_index(self) -> str:
        """The vector-free index over the access documents (ADR 0075)."""
        return f"{self.tag}:aidx"

    @property
    def inflight(self) -> str:
        """HASH memory id → ``job:pos`` for memories not yet ``ready`` (pending or failed):
        pipeline bookkeeping that a ready memory no longer carries."""
        return f"{self.tag}:inf"

    @property
    def findability(self) -> str:
        """STRING: the JSON report of the collection's last findability check (ADR 0069)."""
        return f"{self.tag}:findable"

    @property
    def journal(self) -> str:
        return f"{self.tag}:journal"

    @property
    def metrics(self) -> str:
        return f"{self.tag}:metrics"

    @property
    def llm_usage(self) -> str:
        """HASH of LLM extraction tokens and cost, ``<provider>|<model>|<figure>``; each
        job's share in ``<this>:job:<id>`` (houkai/extraction/usage.py)."""
        return f"{self.tag}:llmusage"

    @property
    def latency(self) -> str:
        return f"{self.tag}:latency"

    @property
    def aggregate_cache(self) -> str:
        """HASH of collection-wide aggregates (stats, facets, growth): current 30 s at most,
        kept 30 days for the dashboard's stale-while-revalidate reads (ADR 0048)."""
        return f"{self.metrics}:aggcache"

    # --- sessions (issue 30; houkai.sessions) --------------------------------
    def session(self, session_id: str) -> str:
        """HASH of one session: scope, times, message counter, running summary."""
        return f"{self.tag}:sess:{value_key(session_id)}"

    def session_messages(self, session_id: str) -> str:
        """HASH message id → JSON message, for the messages a session still holds."""
        return f"{self.tag}:sessm:{value_key(session_id)}"

    def session_order(self, session_id: str) -> str:
        """ZSET message id → sequence number: the order messages arrived in."""
        return f"{self.tag}:sesso:{value_key(session_id)}"

    def session_results(self, session_id: str) -> str:
        """HASH message id → JSON of what it became: present once its extraction committed."""
        return f"{self.tag}:sessr:{value_key(session_id)}"

    def session_queued(self, session_id: str) -> str:
        """STRING set while an extraction of the session is queued (one at a time)."""
        return f"{self.tag}:sessq:{value_key(session_id)}"

    @property
    def sessions(self) -> str:
        """ZSET session id → last activity: the collection's sessions, for list and TTL."""
        return f"{self.tag}:sessions"

    @property
    def sessions_due(self) -> str:
        """ZSET session id → when its debounced extraction is due (pending messages)."""
        return f"{self.tag}:sessdue"

    # --- pipeline, maintenance, bench ------------------------------------------
    @property
    def jobs(self) -> str:
        """ZSET job id → created at: the collection's jobs, newest last."""
        return f"{self.tag}:jobs"

    def job(self, job_id: str) -> str:
        """HASH of one job's counters (its lists and bitmap hang below this name)."""
        return f"{self.tag}:job:{job_id}"

    def submit(self, digest: str) -> str:
        """STRING marking one submit attempt (idempotent resubmits, houkai/pipeline/write.py)."""
        return f"{self.tag}:submit:{digest}"

    @property
    def maintenance(self) -> str:
        """HASH of the collection's maintenance state; ``:runs`` and ``:lock`` below it."""
        return f"{self.tag}:maint"

    @property
    def moves(self) -> str:
        """Counter of the collection's slot moves: odd while one runs (houkai/db/cluster.py;
        a search that overlaps a move answers 503 instead of a partial result)."""
        return f"{self.tag}:moves"

    @property
    def ack(self) -> str:
        """Written (expiring) before ``WAIT`` on a cluster with replicas, so the wait covers
        every earlier write of the collection (houkai/app/replication.py)."""
        return f"{self.tag}:ack"

    @property
    def bench(self) -> str:
        """Marker of a collection a benchmark created (removed with it)."""
        return f"{self.tag}:bench"

    @staticmethod
    def registry(prefix: str) -> str:
        """SET of every collection name under *prefix* (global, touched alone)."""
        return f"{prefix}:collections"

    # --- the layout before ADR 0079 ------------------------------------------------
    def legacy(self, family: str, rest: str = "") -> str:
        """The pre-0079 name of a key of *family* (``rest`` without its leading ':')."""
        base = f"{self.prefix}:{family}:{self.collection}"
        return f"{base}:{rest}" if rest else base

    def tagged(self, family: str, rest: str = "") -> str:
        """The tagged name of the pre-0079 key ``legacy(family, rest)``."""
        return f"{self.tag}:{family}:{rest}" if rest else f"{self.tag}:{family}"


class GlobalKeys:
    """The few keys that belong to no collection. They share one hash tag (the
    prefix) because Lua scripts and transactions touch them together (worker
    heartbeats with in-flight records; the outbox's ZSET with its HASH)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.tag = f"{{{prefix}}}"

    @property
    def registry(self) -> str:
        return Keys.registry(self.prefix)

    @property
    def workers(self) -> str:
        """ZSET worker → last heartbeat."""
        return f"{self.tag}:workers"

    def running(self, worker: str) -> str:
        """HASH task id → JSON record of the tasks *worker* runs."""
        return f"{self.tag}:running:{worker}"

    @property
    def running_workers(self) -> str:
        return f"{self.tag}:running-workers"

    @property
    def outbox(self) -> str:
        return f"{self.tag}:outbox"

    @property
    def outbox_tasks(self) -> str:
        return f"{self.tag}:outbox:tasks"

    @property
    def outbox_suspects(self) -> str:
        return f"{self.tag}:outbox:suspects"

    @property
    def layout_migration(self) -> str:
        """HASH of the key-layout migration's progress (houkai/db/layout_migration.py)."""
        return f"{self.tag}:layout-migration"

    @property
    def celery_namespace(self) -> str:
        """kombu's key prefix on the broker Redis (never a cluster)."""
        return f"{self.prefix}:celery:"

    @property
    def redbeat(self) -> str:
        return f"{self.prefix}:redbeat"

    def sessdue_marker(self, name: str) -> str:
        """Short-lived STRINGs of the due-session sweep (``swept``, ``idle``)."""
        return f"{self.prefix}:sessdue:{name}"

    def llm(self, kind: str, name: str) -> str:
        """LLM provider limits and the reply cache (``rate``, ``tpm``, ``slots``, ``reply``)."""
        return f"{self.prefix}:llm:{kind}:{name}"

    # Pre-0079 names of the global keys the migration renames.
    def legacy_globals(self) -> dict[str, str]:
        p = self.prefix
        return {
            f"{p}:workers": self.workers,
            f"{p}:running-workers": self.running_workers,
            f"{p}:outbox": self.outbox,
            f"{p}:outbox:tasks": self.outbox_tasks,
            f"{p}:outbox:suspects": self.outbox_suspects,
        }
