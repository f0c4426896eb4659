"""Re-write a collection's vectors in another element type, in place and resumably.

RediSearch cannot change a vector field's type, so the migration drops the
index (never the documents), converts every ``vec`` blob, re-creates the index
with the new type and lets RediSearch re-index in the background. While it
runs, the collection's metadata carries ``migrating_to``: stores refuse to open
it (``CollectionMigrating``) rather than write vectors of the old type. Blobs
are recognised by their length, so re-running an interrupted migration skips
what is done; that is why the two 16-bit types do not convert into each other
directly (same length): go through FLOAT32.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import redis

from ..db.keys import Keys
from ..db.schema import (
    META_SCHEMA_VERSION,
    VECTOR_TYPES,
    IndexParams,
    create_index,
    drop_index,
    read_meta,
    stored_vector_type,
    validate_vector_type,
)
from ..domain.model import ValidationError
from . import codec
from .scripts import CONVERT_VECTOR_LUA

log = logging.getLogger(__name__)


@dataclass
class MigrationResult:
    collection: str
    source: str
    target: str
    scanned: int = 0
    converted: int = 0
    seconds: float = 0.0
    changed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _params(meta: dict[str, str], vector_type: str) -> IndexParams:
    sig = json.loads(meta.get("signature") or "{}")
    return IndexParams(
        dim=int(meta["dim"]),
        m=int(sig.get("m", 16)),
        ef_construction=int(sig.get("efc", 200)),
        ef_runtime=int(sig.get("efr", 64)),
        vector_type=vector_type,
        exact=bool(sig.get("x")),
    )


def migrate_vectors(
    client: redis.Redis,
    keys: Keys,
    target: str,
    *,
    batch_size: int = 1000,
    progress: Callable[[int, int], None] | None = None,
) -> MigrationResult:
    """Convert every vector of the collection at *keys* to *target* (see module docstring)."""
    target = validate_vector_type(target)
    meta = read_meta(client, keys)
    source = stored_vector_type(meta)
    if source is None:
        raise ValidationError(f"no collection named {keys.collection!r}")
    pending = meta.get("migrating_to")
    if pending and pending != target:
        raise ValidationError(
            f"collection {keys.collection!r} is being migrated to {pending}: finish that first "
            f"(--vector-type {pending})"
        )
    result = MigrationResult(keys.collection, source, target)
    if source == target and not pending:
        result.changed = False
        return result
    if VECTOR_TYPES[source] == VECTOR_TYPES[target] and source != target:
        raise ValidationError(
            f"{source} and {target} have the same width and cannot be told apart while a "
            "migration is resumed: migrate to FLOAT32 first"
        )
    started = time.perf_counter()
    dim = int(meta["dim"])
    old_len, new_len = dim * VECTOR_TYPES[source], dim * VECTOR_TYPES[target]
    client.hset(keys.meta, "migrating_to", target)
    drop_index(client, keys)  # documents stay; no re-index per rewritten vector
    convert = client.register_script(CONVERT_VECTOR_LUA)
    cursor = 0
    while source != target:  # equal only when resuming after the metadata was updated
        cursor, found = client.scan(cursor, match=keys.memory_prefix + "*", count=batch_size)
        if found:
            pipe = client.pipeline(transaction=False)
            for key in found:
                pipe.hget(key, codec.F.VEC)
            blobs = pipe.execute()
            pipe = client.pipeline(transaction=False)
            todo = 0
            for key, raw in zip(found, blobs, strict=True):
                if raw is None or len(raw) != old_len:
                    continue  # no vector yet, or already converted
                vec = codec.vector_from_bytes(raw, source, dim)
                if vec is None:
                    continue
                convert(keys=[key], args=[codec.vector_bytes(vec, target), old_len], client=pipe)
                todo += 1
            if todo:
                result.converted += sum(int(x) for x in pipe.execute())
            result.scanned += len(found)
            if progress:
                progress(result.scanned, result.converted)
        if cursor == 0:
            break
    params = _params(meta, target)
    create_index(client, keys, params)
    client.hset(
        keys.meta,
        mapping={
            "vector_type": target,
            "signature": params.signature(),
            "schema_version": META_SCHEMA_VERSION,
        },
    )
    client.hdel(keys.meta, "migrating_to")
    result.seconds = round(time.perf_counter() - started, 2)
    log.info(
        "migrated %s from %s to %s: %d vectors re-written (%d -> %d bytes each)",
        keys.collection,
        source,
        target,
        result.converted,
        old_len,
        new_len,
    )
    return result
