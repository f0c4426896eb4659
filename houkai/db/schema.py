"""The RediSearch schema of a collection: its fields, vector type and index lifecycle.

Each collection has its own index over its own key prefix, so a query in one
collection cannot return another's memories: isolation holds by construction,
not by a filter someone might forget. Memories are HASH documents (measured
against JSON in ``docs/adr/0001-storage.md``).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

import redis

from ..domain.errors import CollectionMigrating
from ..domain.model import ValidationError
from .decode import as_float, as_text
from .keys import Keys
from .legacy_layout import check_not_legacy

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
# Schema version recorded in a collection's metadata: 2 adds ``vector_type``
# (collections without it are version 1 and hold FLOAT32 vectors).
META_SCHEMA_VERSION = 2
# Vector element types the HNSW index accepts here (RediSearch 2.10); bytes per dimension.
VECTOR_TYPES: dict[str, int] = {"FLOAT32": 4, "FLOAT16": 2, "BFLOAT16": 2}
LEGACY_VECTOR_TYPE = "FLOAT32"

# The hash fields of a Memory (everything but the vector); a search returns SEARCH_FIELDS.
MEMORY_FIELDS: tuple[str, ...] = (
    "id",
    "text",
    "type",
    "tags",
    "importance",
    "created_at",
    "last_accessed",
    "access_count",
    "source",
    "links",
    "superseded_by",
    "superseded_at",
    "polarity",
    "expires_at",
    "coll",
    "state",
    "error",
    "chash",
    "user_id",
    "agent_id",
    "session_id",
    "msgids",
)

#: What a search RETURNs for a Memory: a SORTABLE field comes back from the index's sort
#: copy, a number rounded to 12 significant digits (``created_at`` to about 10 ms, which
#: ties the memories of one write call), so the hash's exact ``created`` comes too.
SEARCH_FIELDS: tuple[str, ...] = (*MEMORY_FIELDS, "created")


def validate_vector_type(value: object) -> str:
    name = str(value).strip().upper() if isinstance(value, str) else ""
    if name not in VECTOR_TYPES:
        raise ValidationError(
            f"vector_type must be one of {', '.join(VECTOR_TYPES)} — got {value!r}"
        )
    return name


#: The HNSW vector field, and the FLAT field over the same hash field ``vec`` that
#: answers exact KNN while a collection is small enough (ADR 0069).
VECTOR_FIELD = "vec"
EXACT_FIELD = "vecx"
#: Metadata field set while RediSearch fills a newly added exact field: a KNN on a
#: half-filled FLAT field would miss what it has not reached yet.
EXACT_PENDING = "exact_pending"


@dataclass(frozen=True)
class IndexParams:
    dim: int
    m: int = 16
    ef_construction: int = 200
    ef_runtime: int = 64
    vector_type: str = LEGACY_VECTOR_TYPE
    #: The index has (or should get) the FLAT field :data:`EXACT_FIELD`.
    exact: bool = False

    def signature(self) -> str:
        fields: dict[str, object] = {
            "v": SCHEMA_VERSION,
            "dim": self.dim,
            "m": self.m,
            "efc": self.ef_construction,
            "efr": self.ef_runtime,
        }
        if self.vector_type != LEGACY_VECTOR_TYPE:
            # Only non-default types change the signature, so collections made
            # before vector types existed keep theirs and are not re-indexed.
            fields["vt"] = self.vector_type
        if self.exact:
            fields["x"] = 1
        fields["sc"] = 1  # the scope TAGs (issue 30): added in place to an older index
        return json.dumps(fields, sort_keys=True)


#: Signature fields that do not change the index: every KNN query passes its own
#: ``EF_RUNTIME`` (ADR 0067), so a new ``hnsw_ef_runtime`` takes effect without
#: dropping and re-indexing the collection; the exact field is added in place
#: (``FT.ALTER``) and never dropped (ADR 0069).
QUERY_TIME_FIELDS = frozenset({"efr", "x", "sc"})
#: The scope TAG fields (``user_id``/``agent_id``/``session_id`` hashed, like tags):
#: an index from before them gets them by ``FT.ALTER`` (no drop, no re-index of vectors).
SCOPE_TAG_FIELDS: tuple[str, ...] = ("uidk", "aidk", "sidk")


def has_exact(signature: str | None) -> bool:
    """True when the index behind *signature* has the FLAT field :data:`EXACT_FIELD`."""
    try:
        return bool(json.loads(signature or "{}").get("x"))
    except (ValueError, AttributeError):
        return False


def same_layout(stored: str | None, wanted: str) -> bool:
    """True when the index behind signature *stored* is the one *wanted* describes,
    ignoring :data:`QUERY_TIME_FIELDS`."""
    if not stored:
        return False
    try:
        old = json.loads(stored)
    except ValueError:
        return False
    if not isinstance(old, dict):
        return False
    new = json.loads(wanted)
    for name in QUERY_TIME_FIELDS:
        old.pop(name, None)
        new.pop(name, None)
    return bool(old == new)


def _schema_args(keys: Keys, params: IndexParams) -> list[str | int]:
    return [
        "FT.CREATE",
        keys.index,
        "ON",
        "HASH",
        "PREFIX",
        1,
        keys.memory_prefix,
        "SCHEMA",
        "lex",
        "TEXT",
        "type",
        "TAG",
        "tagk",
        "TAG",
        "SEPARATOR",
        ",",
        "srck",
        "TAG",
        "coll",
        "TAG",
        "state",
        "TAG",
        "sup",
        "TAG",
        "chash",
        "TAG",
        *[arg for name in SCOPE_TAG_FIELDS for arg in (name, "TAG")],
        "importance",
        "NUMERIC",
        "SORTABLE",
        "created_at",
        "NUMERIC",
        "SORTABLE",
        "last_accessed",
        "NUMERIC",
        "SORTABLE",
        "expires_at",
        "NUMERIC",
        "polarity",
        "NUMERIC",
        VECTOR_FIELD,
        "VECTOR",
        "HNSW",
        12,
        "TYPE",
        params.vector_type,
        "DIM",
        params.dim,
        "DISTANCE_METRIC",
        "COSINE",
        "M",
        params.m,
        "EF_CONSTRUCTION",
        params.ef_construction,
        "EF_RUNTIME",
        params.ef_runtime,
        *(_exact_field(params) if params.exact else ()),
    ]


def _exact_field(params: IndexParams) -> list[str | int]:
    """The FLAT field over the same hash field as the HNSW one: exact KNN by SIMD
    brute force (ADR 0069: 4 ms at 100k, against 22 ms for ``ADHOC_BF`` on HNSW)."""
    return [
        VECTOR_FIELD, "AS", EXACT_FIELD, "VECTOR", "FLAT", 6,
        "TYPE", params.vector_type, "DIM", params.dim, "DISTANCE_METRIC", "COSINE",
    ]  # fmt: skip


def info_fields(info: list | dict) -> dict[str, Any]:
    """An ``FT.INFO`` reply as a mapping by field name (RESP2's name, value, … list or
    RESP3's map): the one parser every reader of index facts goes through."""
    if isinstance(info, dict):
        return {as_text(k): v for k, v in info.items()}
    return {as_text(k): v for k, v in zip(info[::2], info[1::2], strict=False)}


def index_info(client: redis.Redis, index: str) -> dict[str, Any]:
    """``FT.INFO`` of *index* by field name (raises ``ResponseError`` for no index)."""
    return info_fields(client.execute_command("FT.INFO", index))


def num_docs(info: list | dict) -> int:
    return int(as_float(info_fields(info).get("num_docs")))


def still_indexing(fields: dict[str, Any]) -> bool:
    """A background scan (creation, ``FT.ALTER``) has not reached every document yet."""
    return (
        bool(as_float(fields.get("indexing"), 1.0)) or as_float(fields.get("percent_indexed")) < 1
    )


#: How long a rebuilt index is waited for before the store opens anyway (seconds): a small
#: collection is whole again at once; a large one answers from what is indexed so far.
REBUILD_WAIT = 5.0


def await_scan(
    client: redis.Redis, index: str, timeout: float, *, expected: int = 0, interval: float = 0.05
) -> bool:
    """Wait up to *timeout* seconds for *index*'s background scan to be over (and for it to
    hold *expected* documents); True when it is. A missing index raises ``ResponseError``."""
    deadline = time.monotonic() + timeout
    while True:
        info = index_info(client, index)
        if num_docs(info) >= expected and not still_indexing(info):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def read_meta(client: redis.Redis, keys: Keys) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in client.hgetall(keys.meta).items()}


def stored_vector_type(meta: dict[str, str]) -> str | None:
    """The collection's vector type: recorded, FLOAT32 for a collection from before
    vector types were recorded, or None for a collection that does not exist yet."""
    if meta.get("vector_type"):
        return meta["vector_type"]
    return LEGACY_VECTOR_TYPE if meta.get("dim") else None


def ensure_index(
    client: redis.Redis, keys: Keys, params: IndexParams, model: str, *, exact_upto: int = 0
) -> IndexParams:
    """Create the collection's index if missing; migrate it when the schema changed.

    Returns *params* with the collection's own vector type: ``params.vector_type``
    applies to a NEW collection only; an existing one keeps the type its vectors
    were written in (``houkai collections migrate`` changes it).

    ``params.exact`` asks for the FLAT field of exact KNN: a new collection gets it,
    an existing one without it gets it in place (``FT.ALTER``, which indexes the
    stored vectors in the background) while it holds at most *exact_upto* memories;
    a larger one stays HNSW-only. The returned ``exact`` says what the index has.

    Idempotent and safe under concurrency (a racing creator's "Index already
    exists" is success). A schema change drops only the index, never the
    documents, and re-creates it; RediSearch then re-indexes the existing hashes
    in the background. A changed vector dimension is refused: the stored vectors
    would not fit, so the memories must be re-embedded (export, then import with
    ``regenerate_vectors=True``).
    """
    meta = read_meta(client, keys)
    if not meta:
        check_not_legacy(client, keys)  # old-layout data: `houkai redis migrate-layout` (ADR 0079)
    if meta.get("migrating_to"):
        raise CollectionMigrating(
            f"collection {keys.collection!r} is being migrated to {meta['migrating_to']} "
            f"vectors: run `houkai collections migrate {keys.collection} "
            f"--vector-type {meta['migrating_to']}` to finish"
        )
    if meta.get("dim") and int(meta["dim"]) != params.dim:
        raise ValidationError(
            f"collection {keys.collection!r} holds {meta['dim']}-dimensional vectors from "
            f"{meta.get('model', 'another model')!r}, but the embedder gives {params.dim}: "
            "export it and import with regenerate_vectors=True"
        )
    vtype = stored_vector_type(meta)
    if vtype is not None and vtype != params.vector_type:
        params = replace(params, vector_type=vtype)
    signature = params.signature()
    exists = True
    try:
        info = client.execute_command("FT.INFO", keys.index)
    except redis.exceptions.ResponseError:
        exists = False
    if exists and same_layout(meta.get("signature"), signature):
        _add_scope(client, keys, meta.get("signature") or "{}")
        stored = has_exact(meta.get("signature"))
        if params.exact and not stored and num_docs(info) <= exact_upto:
            return _add_exact(client, keys, params)
        return replace(params, exact=stored)
    if exists:
        if params.exact and num_docs(info) > exact_upto:
            params = replace(params, exact=False)
            signature = params.signature()
        log.info("migrating index %s to %s", keys.index, signature)
        client.execute_command("FT.DROPINDEX", keys.index)
    try:
        client.execute_command(*_schema_args(keys, params))
    except redis.exceptions.ResponseError as exc:
        if "already exists" not in str(exc).lower():
            raise
    if exists and not await_scan(client, keys.index, REBUILD_WAIT):
        log.warning(
            "index %s still re-indexing after %.0f s; opening anyway", keys.index, REBUILD_WAIT
        )
    client.hset(
        keys.meta,
        mapping={
            "signature": signature,
            "schema_version": META_SCHEMA_VERSION,
            "dim": params.dim,
            "vector_type": params.vector_type,
            "model": meta.get("model") or model,
            "created_at": meta.get("created_at") or time.time(),
        },
    )
    client.sadd(Keys.registry(keys.prefix), keys.collection)
    return params


def _add_scope(client: redis.Redis, keys: Keys, stored: str) -> None:
    """Give an index from before the scope fields its TAGs in place (``FT.ALTER``)."""
    try:
        old = json.loads(stored)
    except ValueError:
        return
    if not isinstance(old, dict) or old.get("sc"):
        return
    args: list[str] = [arg for name in SCOPE_TAG_FIELDS for arg in (name, "TAG")]
    try:
        client.execute_command("FT.ALTER", keys.index, "SCHEMA", "ADD", *args)
    except redis.exceptions.ResponseError as exc:
        if "duplicate" not in str(exc).lower():  # a racing process added them first
            raise
    client.hset(keys.meta, "signature", json.dumps({**old, "sc": 1}, sort_keys=True))
    log.info("index %s: scope fields added", keys.index)


def _add_exact(client: redis.Redis, keys: Keys, params: IndexParams) -> IndexParams:
    """Add the FLAT field to an existing index in place; RediSearch indexes the
    stored vectors into it in the background (KNN on it is exact for what it holds)."""
    try:
        client.execute_command("FT.ALTER", keys.index, "SCHEMA", "ADD", *_exact_field(params))
    except redis.exceptions.ResponseError as exc:
        if "duplicate" not in str(exc).lower():  # a racing process added it first
            raise
    client.hset(keys.meta, mapping={"signature": params.signature(), EXACT_PENDING: 1})
    log.info(
        "index %s: exact KNN field %s added; filling it in the background", keys.index, EXACT_FIELD
    )
    return params


def exact_filled(client: redis.Redis, keys: Keys) -> bool:
    """True once the background scan that fills an added exact field is over (one
    ``FT.INFO``, asked only while :data:`EXACT_PENDING` is set; clears it)."""
    try:
        fields = index_info(client, keys.index)
    except redis.exceptions.ResponseError:
        return False
    if still_indexing(fields):
        return False
    client.hdel(keys.meta, EXACT_PENDING)
    return True


def create_index(client: redis.Redis, keys: Keys, params: IndexParams) -> None:
    """``FT.CREATE`` the collection's index with *params* (migration; no metadata change)."""
    client.execute_command(*_schema_args(keys, params))


def drop_index(client: redis.Redis, keys: Keys) -> None:
    try:
        client.execute_command("FT.DROPINDEX", keys.index)
    except redis.exceptions.ResponseError:
        pass
