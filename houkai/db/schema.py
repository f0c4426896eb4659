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

import redis

from ..domain.errors import CollectionMigrating
from ..domain.model import ValidationError
from .keys import Keys

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
# Schema version recorded in a collection's metadata: 2 adds ``vector_type``
# (collections without it are version 1 and hold FLOAT32 vectors).
META_SCHEMA_VERSION = 2
# Vector element types the HNSW index accepts here (RediSearch 2.10); bytes per dimension.
VECTOR_TYPES: dict[str, int] = {"FLOAT32": 4, "FLOAT16": 2, "BFLOAT16": 2}
LEGACY_VECTOR_TYPE = "FLOAT32"

# Fields returned by searches that build Memory objects (everything but the vector).
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
)


def validate_vector_type(value: object) -> str:
    name = str(value).strip().upper() if isinstance(value, str) else ""
    if name not in VECTOR_TYPES:
        raise ValidationError(
            f"vector_type must be one of {', '.join(VECTOR_TYPES)} — got {value!r}"
        )
    return name


@dataclass(frozen=True)
class IndexParams:
    dim: int
    m: int = 16
    ef_construction: int = 200
    ef_runtime: int = 64
    vector_type: str = LEGACY_VECTOR_TYPE

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
        return json.dumps(fields, sort_keys=True)


#: Signature fields that do not change the index: every KNN query passes its own
#: ``EF_RUNTIME`` (ADR 0067), so a new ``hnsw_ef_runtime`` takes effect without
#: dropping and re-indexing the collection.
QUERY_TIME_FIELDS = frozenset({"efr"})


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
        "vec",
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
    ]


def read_meta(client: redis.Redis, keys: Keys) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in client.hgetall(keys.meta).items()}


def stored_vector_type(meta: dict[str, str]) -> str | None:
    """The collection's vector type: recorded, FLOAT32 for a collection from before
    vector types were recorded, or None for a collection that does not exist yet."""
    if meta.get("vector_type"):
        return meta["vector_type"]
    return LEGACY_VECTOR_TYPE if meta.get("dim") else None


def ensure_index(client: redis.Redis, keys: Keys, params: IndexParams, model: str) -> IndexParams:
    """Create the collection's index if missing; migrate it when the schema changed.

    Returns *params* with the collection's own vector type: ``params.vector_type``
    applies to a NEW collection only; an existing one keeps the type its vectors
    were written in (``houkai collections migrate`` changes it).

    Idempotent and safe under concurrency (a racing creator's "Index already
    exists" is success). A schema change drops only the index, never the
    documents, and re-creates it; RediSearch then re-indexes the existing hashes
    in the background. A changed vector dimension is refused: the stored vectors
    would not fit, so the memories must be re-embedded (export, then import with
    ``regenerate_vectors=True``).
    """
    meta = read_meta(client, keys)
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
        client.execute_command("FT.INFO", keys.index)
    except redis.exceptions.ResponseError:
        exists = False
    if exists and same_layout(meta.get("signature"), signature):
        return params
    if exists:
        log.info("migrating index %s to %s", keys.index, signature)
        client.execute_command("FT.DROPINDEX", keys.index)
    try:
        client.execute_command(*_schema_args(keys, params))
    except redis.exceptions.ResponseError as exc:
        if "already exists" not in str(exc).lower():
            raise
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


def create_index(client: redis.Redis, keys: Keys, params: IndexParams) -> None:
    """``FT.CREATE`` the collection's index with *params* (migration; no metadata change)."""
    client.execute_command(*_schema_args(keys, params))


def drop_index(client: redis.Redis, keys: Keys) -> None:
    try:
        client.execute_command("FT.DROPINDEX", keys.index)
    except redis.exceptions.ResponseError:
        pass
