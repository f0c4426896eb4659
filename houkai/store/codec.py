"""Memory ↔ Redis HASH fields. The one place that knows the stored layout."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

import numpy as np

from ..db.decode import as_float, as_text
from ..db.keys import Keys, value_key
from ..domain.model import MAX_VECTOR_DIM, Link, Memory, ValidationError, check_memory
from ..domain.text import lexical_form


class F:
    """The memory hash's field names: spell a field as ``F.STATE``, never ``"state"``.

    The hash mirrors :class:`~houkai.domain.model.Memory` plus derived, indexed fields
    (hashed TAG values, the lexical form, the supersede flag) and the vector.
    """

    ID = "id"
    TEXT = "text"
    LEX = "lex"  # the text as the full-text index reads it
    TYPE = "type"
    TAGS = "tags"
    TAGK = "tagk"  # hashed tags (TAG field)
    IMPORTANCE = "importance"
    CREATED_AT = "created_at"
    CREATED = "created"  # created_at as written: a search returns SORTABLE numbers rounded
    LAST_ACCESSED = "last_accessed"
    ACCESS_COUNT = "access_count"
    SOURCE = "source"
    SRCK = "srck"  # hashed source (TAG field)
    LINKS = "links"
    SUPERSEDED_BY = "superseded_by"
    SUP = "sup"  # '1' when superseded (TAG field)
    SUPERSEDED_AT = "superseded_at"
    POLARITY = "polarity"
    EXPIRES_AT = "expires_at"
    COLL = "coll"  # the collection's name
    STATE = "state"
    ERROR = "error"
    CHASH = "chash"  # content hash of the text
    USER_ID = "user_id"
    AGENT_ID = "agent_id"
    SESSION_ID = "session_id"
    UIDK = "uidk"  # hashed user_id (TAG field)
    AIDK = "aidk"  # hashed agent_id
    SIDK = "sidk"  # hashed session_id
    MSGIDS = "msgids"  # JSON list of source message ids
    VEC = "vec"  # the embedding blob (the collection's vector type)


def vector_bytes(vector: np.ndarray | list[float], vector_type: str = "FLOAT32") -> bytes:
    """The blob RediSearch expects for a vector field of *vector_type*."""
    f32 = np.asarray(vector, dtype=np.float32)
    if vector_type == "FLOAT16":
        half = f32.astype(np.float16)
        if not np.isfinite(half).all():  # |x| > 65504 would store inf and poison KNN
            raise ValidationError("vector holds a value outside the FLOAT16 range (|x| > 65504)")
        check_norms(half.astype(np.float32))  # tiny values round to 0 in half precision
        return half.tobytes()
    if vector_type == "BFLOAT16":
        # numpy has no bfloat16: keep the top 16 bits, rounded to nearest even.
        bits = np.ascontiguousarray(f32).view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        check_norms((rounded.astype(np.uint32) << 16).view(np.float32))
        return rounded.astype(np.uint16).tobytes()
    return f32.tobytes()


def check_norms(matrix: np.ndarray) -> None:
    """Refuse a row whose length is 0 or overflows, computed in float32 as the index does.

    RediSearch divides by the norm for COSINE: an all-zero row (or one whose squares
    under- or overflow float32) gives every query that meets it a NaN distance, which
    used to turn those recalls into 500s."""
    rows = np.atleast_2d(matrix).astype(np.float32, copy=False)
    with np.errstate(over="ignore", under="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows, dtype=np.float32))
    bad = np.flatnonzero(~(np.isfinite(norms) & (norms > 0)))
    if bad.size:
        where = f" (row {int(bad[0]) + 1})" if len(rows) > 1 else ""
        raise ValidationError(
            f"vector{where} has zero length (or its length overflows float32): "
            "a memory's vector must have a non-zero, finite norm"
        )


def check_vectors(vectors: object, dim: int) -> np.ndarray:
    """*vectors* as a float32 ``(n, dim)`` matrix; ``ValueError`` when a row has the
    wrong dimension or a non-finite value (a NaN vector poisons every KNN query)."""
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"vector must be a list of numbers ({exc})") from None
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    if matrix.ndim != 2 or matrix.shape[1] != dim or not 0 < dim <= MAX_VECTOR_DIM:
        got = matrix.shape[-1] if matrix.ndim else 0
        raise ValidationError(f"vector has {got} dimensions; this store uses {dim}")
    if not np.isfinite(matrix).all():
        raise ValidationError("vector holds a NaN or infinite value")
    check_norms(matrix)
    return matrix


def vector_from_bytes(
    raw: bytes | None, vector_type: str = "FLOAT32", dim: int | None = None
) -> np.ndarray | None:
    """A float32 vector from a stored blob of *vector_type*.

    With *dim*, a FLOAT32-sized blob reads as FLOAT32 whatever the type: during
    ``houkai collections migrate`` a collection holds both until the rewrite ends.
    """
    if not raw:
        return None
    if vector_type == "FLOAT32" or (dim is not None and len(raw) == 4 * dim):
        return np.frombuffer(raw, dtype=np.float32).copy()
    if vector_type == "FLOAT16":
        return np.frombuffer(raw, dtype=np.float16).astype(np.float32)
    if vector_type == "BFLOAT16":
        bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).copy()
    raise ValidationError(f"unknown vector type {vector_type!r}")


def to_hash(
    memory: Memory, vector: np.ndarray | list[float] | None = None, vector_type: str = "FLOAT32"
) -> dict[str, bytes | str]:
    """Every field of *memory* as a HASH mapping; the vector only when given.

    Every write goes through here, so the bounds check (:func:`check_memory`)
    sits here too: a poisoned number raises ``ValueError`` before anything is sent.
    """
    check_memory(memory)
    created = repr(float(memory.created_at))
    fields: dict[str, bytes | str] = {
        F.ID: memory.id,
        F.TEXT: memory.text,
        F.LEX: lexical_form(memory.text),
        F.TYPE: memory.type,
        F.TAGS: json.dumps(memory.tags, ensure_ascii=False),
        F.TAGK: ",".join(value_key(t) for t in memory.tags),
        F.IMPORTANCE: repr(float(memory.importance)),
        F.CREATED_AT: created,
        F.CREATED: created,
        F.LAST_ACCESSED: repr(float(memory.last_accessed)),
        F.ACCESS_COUNT: str(int(memory.access_count)),
        F.SOURCE: memory.source or "",
        F.SRCK: value_key(memory.source) if memory.source else "",
        F.LINKS: json.dumps([{"to": x.to, "rel": x.rel} for x in memory.links]),
        F.SUPERSEDED_BY: memory.superseded_by,
        F.SUP: "1" if memory.superseded_by else "0",
        F.SUPERSEDED_AT: repr(float(memory.superseded_at)),
        F.POLARITY: str(int(memory.polarity)),
        F.EXPIRES_AT: repr(float(memory.expires_at)),
        F.COLL: memory.collection,
        F.STATE: memory.state,
        F.ERROR: memory.error,
        F.CHASH: memory.content_hash,
        **scope_hash(memory),
    }
    if vector is not None:
        fields[F.VEC] = vector_bytes(vector, vector_type)
    return fields


#: scope attribute → its indexed TAG field (a hash of the value, like tags and sources)
SCOPE_TAGS: dict[str, str] = {F.USER_ID: F.UIDK, F.AGENT_ID: F.AIDK, F.SESSION_ID: F.SIDK}


def scope_hash(memory: Memory) -> dict[str, str]:
    """The provenance and scope fields: raw values, their hashed TAGs, the message ids."""
    fields: dict[str, str] = {}
    for name, tag in SCOPE_TAGS.items():
        value = getattr(memory, name)
        fields[name] = value
        fields[tag] = value_key(value) if value else ""
    fields[F.MSGIDS] = json.dumps(list(memory.message_ids)) if memory.message_ids else ""
    return fields


# Fields not stored while they hold their default: from_hash reads an absent
# field as exactly this value. A memory without tags, links, source or error
# then costs nothing for them (about 260 bytes per memory; ADR 0001). The
# zero-valued numbers are left out too: an absent NUMERIC field is simply not
# in the range tree (``-@expires_at:[…]`` still keeps the memory), which saves
# the field and its index entry on nearly every memory. ``access_count`` stays:
# aggregations LOAD and APPLY it.
SPARSE_DEFAULTS: dict[str, str] = {
    F.TAGS: "[]",
    F.TAGK: "",
    F.LINKS: "[]",
    F.SOURCE: "",
    F.SRCK: "",
    F.SUPERSEDED_BY: "",
    F.ERROR: "",
    F.SUPERSEDED_AT: "0.0",
    F.EXPIRES_AT: "0.0",
    F.POLARITY: "0",
    **{name: "" for name in (*SCOPE_TAGS, *SCOPE_TAGS.values(), F.MSGIDS)},
}


def sparse_hash(
    memory: Memory, vector: np.ndarray | list[float] | None = None, vector_type: str = "FLOAT32"
) -> tuple[dict[str, bytes | str], list[str]]:
    """:func:`to_hash` without default-valued fields, plus the names left out
    (a rewrite of an existing memory must clear them)."""
    fields = to_hash(memory, vector, vector_type)
    omitted = [name for name, default in SPARSE_DEFAULTS.items() if fields[name] == default]
    for name in omitted:
        del fields[name]
    return fields, omitted


# Memory attribute → the HASH fields that carry it (derived fields included).
_FIELD_MAP: dict[str, tuple[str, ...]] = {
    "text": (F.TEXT, F.LEX, F.CHASH),
    "content_hash": (F.CHASH,),
    "created_at": (F.CREATED_AT, F.CREATED),
    "tags": (F.TAGS, F.TAGK),
    "source": (F.SOURCE, F.SRCK),
    "superseded_by": (F.SUPERSEDED_BY, F.SUP),
    "collection": (F.COLL,),
    **{name: (name, tag) for name, tag in SCOPE_TAGS.items()},
    "message_ids": (F.MSGIDS,),
}


def hash_fields(attributes: Iterable[str]) -> set[str]:
    """The HASH field names to write when *attributes* of a Memory changed."""
    out: set[str] = set()
    for name in attributes:
        out.update(_FIELD_MAP.get(name, (name,)))
    return out


def created_at(fields: dict[str, bytes]) -> float:
    """A memory's exact creation time: the hash's copy (``created``) when it agrees with
    ``created_at`` to the 12 digits a search returns that with, else ``created_at``. A
    hash written before the copy has none, and an older houkai that rewrote ``created_at``
    left the copy behind: the indexed value is then the true one (ADR 0093)."""
    indexed = as_float(fields.get(F.CREATED_AT))
    raw = fields.get(F.CREATED)
    if not raw:
        return indexed
    exact = as_float(raw)
    return exact if abs(exact - indexed) <= 1e-11 * max(abs(indexed), 1.0) else indexed


def from_hash(
    fields: dict[str, bytes],
    *,
    with_vector: bool = False,
    vector_type: str = "FLOAT32",
    dim: int | None = None,
) -> Memory:
    """Rebuild a Memory; absent fields read as neutral defaults (old rows load unchanged)."""
    try:
        links = [
            Link(to=x["to"], rel=x["rel"]) for x in json.loads(as_text(fields.get(F.LINKS), "[]"))
        ]
    except (ValueError, KeyError, TypeError):
        links = []
    try:
        tags = list(json.loads(as_text(fields.get(F.TAGS), "[]")))
    except ValueError:
        tags = []
    try:
        message_ids = [str(x) for x in json.loads(as_text(fields.get(F.MSGIDS)) or "[]")]
    except (ValueError, TypeError):
        message_ids = []
    memory = Memory(
        id=as_text(fields.get(F.ID)),
        text=as_text(fields.get(F.TEXT)),
        type=as_text(fields.get(F.TYPE), "semantic"),
        tags=tags,
        importance=as_float(fields.get(F.IMPORTANCE), 0.5),
        created_at=created_at(fields),
        last_accessed=as_float(fields.get(F.LAST_ACCESSED)),
        access_count=int(as_float(fields.get(F.ACCESS_COUNT))),
        source=as_text(fields.get(F.SOURCE)) or None,
        links=links,
        superseded_by=as_text(fields.get(F.SUPERSEDED_BY)),
        superseded_at=as_float(fields.get(F.SUPERSEDED_AT)),
        polarity=int(as_float(fields.get(F.POLARITY))),
        expires_at=as_float(fields.get(F.EXPIRES_AT)),
        collection=as_text(fields.get(F.COLL)),
        state=as_text(fields.get(F.STATE), "ready"),
        error=as_text(fields.get(F.ERROR)),
        content_hash=as_text(fields.get(F.CHASH)),
        user_id=as_text(fields.get(F.USER_ID)),
        agent_id=as_text(fields.get(F.AGENT_ID)),
        session_id=as_text(fields.get(F.SESSION_ID)),
        message_ids=message_ids,
    )
    if with_vector:
        vec = vector_from_bytes(fields.get(F.VEC), vector_type, dim)
        memory.embedding = None if vec is None else vec.tolist()
    return memory


def memory_id_from_key(keys: Keys, key: str) -> str:
    return key[len(keys.memory_prefix) :] if key.startswith(keys.memory_prefix) else key


def finite_cosine(value: float) -> float:
    """*value*, or 0.0 when it is not a number: a vector stored with zero norm (written
    before such vectors were refused) has no direction, and its NaN must not reach a
    ranking or a JSON answer."""
    return value if math.isfinite(value) else 0.0
