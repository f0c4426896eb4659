"""The export's row writer (ADR 0058): archive lines straight from the hash values.

``encode_row`` must write exactly the bytes the Memory path wrote
(``codec.from_hash`` → ``Memory.to_dict`` → ``dump_line``): awkward values
(unicode, quotes, newlines, controls, empty and absent fields, odd number
spellings, bad JSON in tags/links) are checked byte for byte without Redis, then
whole archives of FLOAT16 and FLOAT32 collections in both vector formats are
compared with the Memory path and round-tripped through an import.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import numpy as np
import pytest

from houkai.db.cluster_client import pool_for
from houkai.db.schema import MEMORY_FIELDS
from houkai.domain.model import Link, Memory, content_hash
from houkai.store import codec
from houkai.store.archive import dump_line
from houkai.store.export_rows import ROW_FIELDS, encode_row, f16_arrays, f16_decimal, fetch_rows

AWKWARD_TEXTS = (
    'She said "hi" and left \\ a backslash',
    "line one\nline two\ttabbed\r\nend",
    "unicode: café, 東京, emoji 🧠, nbsp\u00a0and\u2028separator",
    "controls \x00\x01\x1f and DEL \x7f",
    "plain ascii text",
)


def _old_line(values: list[Any], n: Any, t: Any) -> bytes:
    """The row as the export wrote it before ADR 0058: through a Memory."""
    memory = codec.from_hash(dict(zip(MEMORY_FIELDS, values, strict=False)))
    if n:
        memory.access_count += int(n)
    if t:
        memory.last_accessed = max(memory.last_accessed, float(t))
    return dump_line({"id": memory.id, "text": memory.text, "meta": memory.to_dict()})


def _hash_values(memory: Memory, *, sparse: bool = True) -> list[Any]:
    fields = codec.sparse_hash(memory)[0] if sparse else codec.to_hash(memory)
    return [None if fields.get(f) is None else str(fields[f]).encode() for f in MEMORY_FIELDS]


def _awkward_memories() -> list[Memory]:
    now = 1_764_000_000.123456
    out = []
    for i, text in enumerate(AWKWARD_TEXTS):
        out.append(
            Memory(
                id=f"m-{i}",
                text=text,
                type=("semantic", "episodic", "procedural")[i % 3],
                tags=[["é", 'q"uote', "new\nline"], [], ["ops"], ["東京", "a b"], []][i],
                importance=[0.0, 1.0, 0.123456789, 0.5, 1e-9][i],
                created_at=now + i / 7,
                last_accessed=now + i,
                access_count=i * 3,
                source=[None, "chat", 'src "q"', "", "wiki/é"][i],
                links=[Link(to="m-1", rel="related")] if i == 0 else [],
                superseded_by="m-4" if i == 2 else "",
                superseded_at=now + 9 if i == 2 else 0.0,
                polarity=[-1, 0, 1, 0, 0][i],
                expires_at=now - 5 if i == 3 else 0.0,  # expired
                collection="coll-ü",
                state=["ready", "pending", "failed", "ready", "ready"][i],
                error='boom "x"\n' if i == 2 else "",
                content_hash=content_hash(text),
            )
        )
    return out


def test_the_row_fields_are_the_memory_fields():
    assert ROW_FIELDS == MEMORY_FIELDS


@pytest.mark.parametrize("sparse", [True, False])
def test_rows_match_the_memory_path_byte_for_byte(sparse):
    for i, memory in enumerate(_awkward_memories()):
        values = _hash_values(memory, sparse=sparse)
        for n, t in ((None, None), (b"4", None), (b"2", b"1764000999.5"), (None, b"1.0")):
            created_at, mid, line = encode_row(values, n, t)
            want = _old_line(values, n, t)
            assert line + b"}\n" == want, (i, n, t)
            assert (created_at, mid) == (memory.created_at, memory.id)
            assert json.loads(line + b"}") == json.loads(want)


def test_rows_from_odd_stored_values_match_the_memory_path():
    """Absent or empty fields, other number spellings, bad JSON in tags and links."""
    base = _hash_values(_awkward_memories()[0])
    index = {name: i for i, name in enumerate(MEMORY_FIELDS)}
    cases: list[dict[str, Any]] = [
        {name: None for name in MEMORY_FIELDS if name not in ("id", "text")},
        {name: b"" for name in MEMORY_FIELDS if name not in ("id",)},
        {"id": None},
        {"importance": b"1", "created_at": b" 2.50 ", "polarity": b"-1.0", "expires_at": b"1e3"},
        {"importance": b"not a number", "access_count": b"7.9", "superseded_at": b"1_000"},
        {"importance": b"nan", "created_at": b"1e400", "last_accessed": b"-inf"},
        {"tags": b"not json", "links": b"{broken"},
        {"tags": b'["\xc3\xa9", 3, null, {"k": "v"}]', "links": b'[{"to": "x"}]'},
        {"tags": b'"abc"', "links": b'[{"to": "x", "rel": "related", "extra": 1}]'},
        {"links": b"[]", "tags": b"[]", "source": b"", "type": None, "state": None},
        {"text": "déjà vu, 'quoted'".encode(), "coll": b"x\\y"},
    ]
    for case in cases:
        values = list(base)
        for name, value in case.items():
            values[index[name]] = value
        line = encode_row(values, b"1", b"5.5")[2]
        assert line + b"}\n" == _old_line(values, b"1", b"5.5"), case


def test_float16_arrays_spell_every_pattern_as_the_table_says():
    bits = np.arange(65536, dtype=np.uint16)
    blobs = [bits[i : i + 1024].tobytes() for i in range(0, 65536, 1024)]
    got = f16_arrays(blobs, 1024)
    for k, line in enumerate(got):
        chunk = bits[k * 1024 : (k + 1) * 1024].tolist()
        assert line == ("[" + ",".join(f16_decimal(b) for b in chunk) + "]").encode()


def _archive_lines(path: Any) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).splitlines(keepends=True)[1:]


@pytest.mark.parametrize("vector_type", ["FLOAT16", "FLOAT32"])
def test_archives_match_the_memory_path_and_round_trip(make_store, embedder, tmp_path, vector_type):
    src = make_store(vector_type=vector_type, embedder=embedder)
    dst = {f: make_store(vector_type=vector_type, embedder=embedder) for f in ("json", "base64")}
    memories = _awkward_memories()
    for m in memories:
        m.collection = src.collection_name
        m.state = "ready"
        m.error = ""
    vectors = np.asarray(embedder.encode([m.text for m in memories]), dtype=np.float32)
    src.write(memories, vectors)
    src.reindex_links(memories)
    src.recall("unicode café", k=2)  # pending access counts: folded into the rows
    keys = [src.keys.memory(m.id) for m in memories]
    stored = fetch_rows(src.client, keys, MEMORY_FIELDS)
    ids = [m.id for m in memories]
    access = src.client.hmget(src.keys.access, [f"{p}:{i}" for i in ids for p in "nt"])
    want = {
        m.id: _old_line(values, access[2 * i], access[2 * i + 1])
        for i, (m, values) in enumerate(zip(memories, stored, strict=True))
    }
    for fmt, target in dst.items():
        path = tmp_path / f"{fmt}.ahkai"
        assert src.export(path, include_superseded=True, vector_format=fmt).count == 5
        lines = _archive_lines(path)
        assert [json.loads(x)["id"] for x in lines] == ids  # created_at order
        for line in lines:
            row = json.loads(line)
            head = line[: line.index(b',"vector":')] + b"}\n"
            assert head == want[row["id"]]  # byte for byte, without the vector
        summary = target.import_(path)
        assert (summary.imported, summary.errors) == (5, [])
        before = src.get_many(ids, with_vector=True)
        after = target.get_many(ids, with_vector=True)
        for mid in ids:
            x, y = before[mid], after[mid]
            assert x.to_dict() | {"collection": "", "state": "", "error": ""} == (
                y.to_dict() | {"collection": "", "state": "", "error": ""}
            )
            # within float16 precision; exact when the stored bits travel
            a = np.asarray(x.embedding, np.float32)
            b = np.asarray(y.embedding, np.float32)
            assert np.allclose(a, b, rtol=1e-3, atol=1e-4)
            if vector_type == "FLOAT16" or fmt == "base64":
                assert np.array_equal(a, b)
        assert {(m.id, rel) for m, rel in target.neighbors("m-1", direction="in")} == {
            ("m-0", "related")
        }


def test_windows_keep_created_at_then_id_order(store, tmp_path, monkeypatch):
    """Windows of a few keys each, ties of created_at larger than a window: the
    archive is still in (created_at, id) order, every memory once."""
    from houkai.store import portability

    monkeypatch.setattr(portability, "_EXPORT_BATCH", 2)
    memories = [
        Memory(id=f"tie-{c}", text=f"tie {c}", created_at=1_700_000_000.5) for c in "edcbaf"
    ] + [Memory(id=f"at-{i}", text=f"at {i}", created_at=1_700_000_000.0 + i) for i in range(5)]
    for m in memories:
        m.collection = store.collection_name
        m.last_accessed = m.created_at
        m.content_hash = content_hash(m.text)
    store.write(memories, np.asarray(store.encode([m.text for m in memories]), np.float32))
    path = tmp_path / "ties.ahkai"
    assert store.export(path).count == len(memories)
    got = [json.loads(x)["id"] for x in _archive_lines(path)]
    assert got == [m.id for m in sorted(memories, key=lambda m: (m.created_at, m.id))]


def test_batched_base64_equals_one_blob_at_a_time():
    from base64 import b64encode

    from houkai.store.export_rows import base64_strings

    rng = np.random.default_rng(3)
    for sizes in ([768] * 5, [1536, 1536], [10, 10, 10], [768, 1536, 768], [12, 12, 9], [768]):
        blobs = [rng.bytes(n) for n in sizes]
        assert base64_strings(blobs) == [b'"' + b64encode(b) + b'"' for b in blobs], sizes
        wrapped = base64_strings(blobs, b',"vector":', b"}\n")
        assert wrapped == [b',"vector":"' + b64encode(b) + b'"}\n' for b in blobs]
    assert base64_strings([]) == []
    f16 = [rng.bytes(8) for _ in range(3)]
    assert f16_arrays(f16, 4, b"<", b">") == [b"<" + a + b">" for a in f16_arrays(f16, 4)]


def test_packed_hmget_reads_what_hmget_reads(store):
    keys = [f"{store.keys.tag}:test-packed:{i}:é" for i in range(5)]
    for i, key in enumerate(keys[:4]):
        store.client.hset(key, mapping={"a": f"v{i}", "b": "x" * (i * 300), "c": "ü"})
    fields = ("a", "missing", "b", "c")
    want = [store.client.hmget(key, list(fields)) for key in keys]
    assert fetch_rows(store.client, keys, fields) == want
    assert want[4] == [None] * 4 and fetch_rows(store.client, [], fields) == []
    store.client.delete(*keys)


def test_packed_hmget_leaves_no_reply_behind_after_an_error(store):
    """A failed exchange drops its connection: a later read never gets a stale reply."""
    import redis

    good = f"{store.keys.tag}:test-packed:good"
    wrong = f"{store.keys.tag}:test-packed:string"
    store.client.hset(good, mapping={"a": "1"})
    store.client.set(wrong, "not a hash")
    with pytest.raises(redis.ResponseError):
        fetch_rows(store.client, [wrong, good, good], ("a",))
    for _ in range(3):  # whichever pooled connection comes next
        assert fetch_rows(store.client, [good], ("a",)) == [[b"1"]]
    store.client.delete(good, wrong)


def test_packed_hmget_reconnects_a_dropped_connection(store):
    import socket

    key = f"{store.keys.tag}:test-packed:reconnect"
    store.client.hset(key, mapping={"a": "1"})
    pool = pool_for(store.client, key)  # on a cluster: the slot owner's pool
    conn = pool.get_connection()
    conn.connect()
    conn._sock.shutdown(socket.SHUT_RDWR)  # the server side is gone, the pool does not know
    pool.release(conn)
    assert pool.get_connection() is conn  # the dropped one is handed out next...
    pool.release(conn)
    assert fetch_rows(store.client, [key], ("a",)) == [[b"1"]]  # ...and retried on a new socket
    store.client.delete(key)
