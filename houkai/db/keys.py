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


@dataclass(frozen=True)
class Keys:
    """Every Redis key houkai writes for one collection, under one prefix."""

    prefix: str
    collection: str

    @cached_property
    def memory_prefix(self) -> str:
        """Remembered: every memory key and every key-to-id conversion starts here."""
        return f"{self.prefix}:m:{self.collection}:"

    def memory(self, memory_id: str) -> str:
        return self.memory_prefix + memory_id

    @property
    def index(self) -> str:
        return f"{self.prefix}:idx:{self.collection}"

    @property
    def meta(self) -> str:
        """Collection metadata: schema version, embedding model, dimension, created_at."""
        return f"{self.prefix}:coll:{self.collection}"

    def incoming(self, memory_id: str) -> str:
        """Reverse link index: SET of ``src_id|rel`` pointing at *memory_id*."""
        return f"{self.prefix}:in:{self.collection}:{memory_id}"

    @property
    def incoming_prefix(self) -> str:
        return f"{self.prefix}:in:{self.collection}:"

    @property
    def tag_names(self) -> str:
        """HASH value_key(tag) → tag, to name tags in aggregations."""
        return f"{self.prefix}:tagnames:{self.collection}"

    @property
    def lexstats(self) -> str:
        """HASH of BM25 corpus statistics: ``t:<term>`` → df, ``__N``, ``__len``."""
        return f"{self.prefix}:lex:{self.collection}"

    @property
    def access(self) -> str:
        """HASH of access counts not yet folded into memories: ``n:<id>``, ``t:<id>``."""
        return f"{self.prefix}:acc:{self.collection}"

    @cached_property
    def access_doc_prefix(self) -> str:
        """Access documents: per memory, its access counts and the fields the decay and
        health aggregates filter on, under a vector-free index (ADR 0075)."""
        return f"{self.prefix}:a:{self.collection}:"

    def access_doc(self, memory_id: str) -> str:
        return self.access_doc_prefix + memory_id

    @property
    def access_index(self) -> str:
        """The vector-free index over the access documents (ADR 0075)."""
        return f"{self.prefix}:aidx:{self.collection}"

    @property
    def inflight(self) -> str:
        """HASH memory id → ``job:pos`` for memories not yet ``ready`` (pending or failed):
        pipeline bookkeeping that a ready memory no longer carries."""
        return f"{self.prefix}:inf:{self.collection}"

    @property
    def findability(self) -> str:
        """STRING: the JSON report of the collection's last findability check (ADR 0069)."""
        return f"{self.prefix}:findable:{self.collection}"

    @property
    def journal(self) -> str:
        return f"{self.prefix}:journal:{self.collection}"

    @property
    def metrics(self) -> str:
        return f"{self.prefix}:metrics:{self.collection}"

    @property
    def llm_usage(self) -> str:
        """HASH of LLM extraction tokens and cost, ``<provider>|<model>|<figure>``; each
        job's share in ``<this>:job:<id>`` (houkai/extraction/usage.py)."""
        return f"{self.prefix}:llmusage:{self.collection}"

    @property
    def latency(self) -> str:
        return f"{self.prefix}:latency:{self.collection}"

    @property
    def aggregate_cache(self) -> str:
        """HASH of collection-wide aggregates (stats, facets, growth): current 30 s at most,
        kept 30 days for the dashboard's stale-while-revalidate reads (ADR 0048)."""
        return f"{self.metrics}:aggcache"

    # --- sessions (issue 30; houkai.sessions) --------------------------------
    def session(self, session_id: str) -> str:
        """HASH of one session: scope, times, message counter, running summary."""
        return f"{self.prefix}:sess:{self.collection}:{value_key(session_id)}"

    def session_messages(self, session_id: str) -> str:
        """HASH message id → JSON message, for the messages a session still holds."""
        return f"{self.prefix}:sessm:{self.collection}:{value_key(session_id)}"

    def session_order(self, session_id: str) -> str:
        """ZSET message id → sequence number: the order messages arrived in."""
        return f"{self.prefix}:sesso:{self.collection}:{value_key(session_id)}"

    def session_results(self, session_id: str) -> str:
        """HASH message id → JSON of what it became: present once its extraction committed."""
        return f"{self.prefix}:sessr:{self.collection}:{value_key(session_id)}"

    def session_queued(self, session_id: str) -> str:
        """STRING set while an extraction of the session is queued (one at a time)."""
        return f"{self.prefix}:sessq:{self.collection}:{value_key(session_id)}"

    @property
    def sessions(self) -> str:
        """ZSET session id → last activity: the collection's sessions, for list and TTL."""
        return f"{self.prefix}:sessions:{self.collection}"

    @property
    def sessions_due(self) -> str:
        """ZSET session id → when its debounced extraction is due (pending messages)."""
        return f"{self.prefix}:sessdue:{self.collection}"

    @staticmethod
    def registry(prefix: str) -> str:
        """SET of every collection name under *prefix*."""
        return f"{prefix}:collections"
