"""``.ahkai`` version 2: vectors as base64 of their stored bytes (ADR 0053).

The default export stays the seed's version 1; ``vector_format="base64"`` must
carry the same rows with the vector's exact stored bits, and import back to the
same memories and vectors.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import numpy as np
import pytest

from houkai.store.archive import ArchiveError, read_archive_header

TEXTS = (
    "The user prefers dark mode in the editor.",
    "Deploys happen on Tuesday.",
    "The staging database is Postgres 16.",
)


def _lines(path: Any) -> list[dict[str, Any]]:
    return [json.loads(x) for x in gzip.decompress(path.read_bytes()).splitlines() if x.strip()]


@pytest.mark.parametrize("vector_type", ["FLOAT16", "FLOAT32"])
def test_base64_export_round_trips_the_stored_bits(make_store, embedder, tmp_path, vector_type):
    src = make_store(vector_type=vector_type, embedder=embedder)
    dst = make_store(vector_type=vector_type, embedder=embedder)
    ids = [src.remember(t, tags=["x"], importance=0.3).id for t in TEXTS]
    plain, packed = tmp_path / "plain.ahkai", tmp_path / "packed.ahkai"
    assert src.export(plain).count == 3
    assert src.export(packed, vector_format="base64").count == 3
    head_plain, *rows_plain = _lines(plain)
    head, *rows = _lines(packed)
    encoding = "base64-float16" if vector_type == "FLOAT16" else "base64-float32"
    assert head_plain["version"] == 1 and "vector_encoding" not in head_plain["options"]
    assert head["version"] == 2 and head["options"]["vector_encoding"] == encoding
    dtype = "<f2" if vector_type == "FLOAT16" else "<f4"
    stored = src.vectors(ids)
    for row, ref in zip(rows, rows_plain, strict=True):
        vec = np.frombuffer(base64.b64decode(row.pop("vector")), dtype=dtype)
        assert np.array_equal(vec, np.asarray(ref.pop("vector"), dtype=dtype))
        assert np.array_equal(vec, stored[row["id"]].astype(dtype))
        assert row == ref  # everything but the vector's spelling is the same
    summary = dst.import_(packed)
    assert summary.imported == 3 and not summary.errors
    back = dst.vectors(ids)
    for mid in ids:
        assert np.array_equal(back[mid].astype(dtype), stored[mid].astype(dtype))
        assert dst.get(mid).text == src.get(mid).text


def test_base64_rows_with_bad_vectors_are_refused_one_by_one(store, tmp_path):
    good = store.remember("A memory to carry over.")
    path = tmp_path / "a.ahkai"
    store.export(path, vector_format="base64")
    head, row = _lines(path)
    bad_rows = [
        dict(row, id="short", vector=base64.b64encode(b"\0" * 10).decode()),
        dict(row, id="notb64", vector="***"),
        dict(row, id="list", vector=[0.1] * 384),
        dict(row, id="nan", vector=base64.b64encode(np.full(384, np.nan, "<f2")).decode()),
    ]
    lines = [head, *bad_rows, row]
    path.write_bytes(gzip.compress(b"".join(json.dumps(x).encode() + b"\n" for x in lines)))
    store.forget(good.id)
    summary = store.import_(path)
    assert summary.imported == 1
    assert {label for label, _ in summary.errors} == {"short", "notb64", "list", "nan"}
    assert store.vectors([good.id])[good.id] is not None


def test_an_unknown_vector_encoding_is_refused(tmp_path):
    header = {
        "format": "ai-houkai/export",
        "version": 2,
        "source": {"embedding_dim": 384},
        "options": {"vector_encoding": "base85-int4"},
    }
    path = tmp_path / "u.ahkai"
    path.write_bytes(gzip.compress(json.dumps(header).encode() + b"\n"))
    with pytest.raises(ArchiveError, match="vector_encoding"):
        read_archive_header(path)


def test_the_vector_format_is_validated(store, tmp_path):
    with pytest.raises(ValueError, match="vector_format"):
        store.export(tmp_path / "x.ahkai", vector_format="yaml")
