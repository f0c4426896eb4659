"""Portable .ahkai archives: round trip, policies, dry run, model guard, seed compatibility."""

from __future__ import annotations

import gzip
import json
import time

import numpy as np
import pytest

from houkai import ImportConflictError
from houkai.store.archive import ArchiveError, read_archive_header


def _lines(path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _write_seed_archive(path, rows, *, model="all-MiniLM-L6-v2", dim=384, vectors=True):
    """An archive laid out exactly like the seed's exporter writes it."""
    header = {
        "format": "ai-houkai/export",
        "version": 1,
        "exported_at": 1748284800.5,
        "source": {
            "collection": "ai_houkai",
            "embedding_model": model,
            "embedding_dim": dim if vectors else 0,
            "count": len(rows),
        },
        "options": {
            "include_vectors": vectors,
            "include_superseded": False,
            "types": None,
            "tags": None,
            "since": None,
        },
    }
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(header, separators=(",", ":")) + "\n")
        for row in rows:
            handle.write(json.dumps(row, separators=(",", ":")) + "\n")
    return path


def _seed_row(mid, text, *, vector=None, created_at=1748000000.0, **meta):
    base = {
        "id": mid,
        "text": text,
        "type": "semantic",
        "tags": [],
        "importance": 0.5,
        "created_at": created_at,
        "last_accessed": created_at,
        "access_count": 0,
        "source": None,
        "links": [],
        "superseded_by": "",
        "superseded_at": 0.0,
        "polarity": 0,
        "expires_at": 0.0,
        "pinned": False,
        "trust": "trusted",
        "content_hash": "",
        "valid_from": 0.0,
        "valid_until": 0.0,
    }
    base.update(meta)
    row = {"id": mid, "text": text, "meta": base}
    if vector is not None:
        row["vector"] = [float(x) for x in vector]
    return row


@pytest.fixture()
def populated(store):
    a = store.remember(
        "Deploys go out on Tuesdays",
        tags=["ops", "deploy"],
        source="wiki",
        importance=0.8,
        type="procedural",
    )
    b = store.remember("The staging cluster lives in eu-west-1", tags=["ops"], polarity=1)
    c = store.remember("Staging moved to us-east-2", tags=["ops"])
    d = store.remember("Temporary note", ttl_seconds=3600)
    store.link(a.id, b.id, "related")
    store.supersede(b.id, c.id)
    store.recall("deploy day", k=1)  # access counts move
    return store, [a, b, c, d]


def test_round_trip_preserves_everything(populated, make_store, tmp_path):
    src, mems = populated
    path = tmp_path / "dump.ahkai"
    summary = src.export(path, include_superseded=True)
    assert summary.count == 4 and summary.vectors_included and summary.bytes > 0
    dst = make_store()
    result = dst.import_(path)
    assert (result.imported, result.skipped, result.errors) == (4, 0, [])
    assert not result.vectors_regenerated
    ids = [m.id for m in mems]
    before, after = src.get_many(ids, with_vector=True), dst.get_many(ids, with_vector=True)
    for mid in ids:
        x, y = before[mid], after[mid]
        assert x.to_dict() | {"collection": ""} == y.to_dict() | {"collection": ""}
        assert np.array_equal(
            np.asarray(x.embedding, np.float32), np.asarray(y.embedding, np.float32)
        )
    a, b, c = mems[:3]
    assert after[b.id].superseded_by == c.id
    assert {(m.id, rel) for m, rel in dst.neighbors(b.id, direction="in")} == {
        (a.id, "related"),
        (c.id, "supersedes"),
    }
    assert dst.recall("which day do deploys happen", k=1)[0][0].id == a.id
    imports = dst.journal_tail(10, op="import")
    assert len(imports) == 4 and {e.actor for e in imports} == {"import"}
    assert dst.metrics()["calls"]["import"] == 1
    assert src.metrics()["calls"]["export"] == 1


def test_export_filters_and_header(populated, tmp_path):
    store, (a, b, c, d) = populated
    header = read_archive_header(store.export(tmp_path / "all.ahkai").path)
    assert header["format"] == "ai-houkai/export" and header["version"] == 1
    assert header["source"]["embedding_model"] == store.embedder.name
    assert header["source"]["count"] == 3  # superseded b left out by default

    def ids(**kw):
        return {r["id"] for r in _lines(store.export(tmp_path / "f.ahkai", **kw).path)[1:]}

    assert ids() == {a.id, c.id, d.id}
    assert ids(include_superseded=True) == {a.id, b.id, c.id, d.id}
    assert ids(types=["procedural"]) == {a.id}
    assert ids(tags=["deploy"]) == {a.id}
    assert ids(since=c.created_at) == {c.id, d.id}
    rows = _lines(store.export(tmp_path / "nv.ahkai", include_vectors=False).path)
    assert rows[0]["options"]["include_vectors"] is False
    assert all("vector" not in r for r in rows[1:])
    with pytest.raises(ValueError):
        store.export(tmp_path / "x.ahkai", types=["nonsense"])


def test_export_is_byte_stable_and_orders_ties_by_id(store, tmp_path):
    rows = [
        _seed_row(mid, f"tied memory {mid}", created_at=1748000000.0)
        for mid in ("c-3", "a-1", "b-2")
    ]
    rows.append(_seed_row("z-0", "an older memory", created_at=1747000000.0))
    store.import_(_write_seed_archive(tmp_path / "in.ahkai", rows, vectors=False))
    first = _lines(store.export(tmp_path / "one.ahkai").path)
    second = _lines(store.export(tmp_path / "two.ahkai").path)
    assert first[1:] == second[1:]
    assert [r["id"] for r in first[1:]] == ["z-0", "a-1", "b-2", "c-3"]
    raw_one = gzip.decompress((tmp_path / "one.ahkai").read_bytes()).split(b"\n", 1)[1]
    raw_two = gzip.decompress((tmp_path / "two.ahkai").read_bytes()).split(b"\n", 1)[1]
    assert raw_one == raw_two


def test_import_policies(populated, make_store, tmp_path):
    src, (a, b, c, d) = populated
    path = src.export(tmp_path / "dump.ahkai", include_superseded=True).path
    dst = make_store()
    dst.import_(path)
    assert dst.import_(path).skipped == 4  # skip is the default
    dst.edit(a.id, text="changed locally")
    over = dst.import_(path, on_conflict="overwrite")
    assert over.overwritten == 4 and dst.get(a.id).text == a.text
    renamed = dst.import_(path, on_conflict="rename")
    assert renamed.renamed == 4 and dst.count() == 8
    copies = [
        m
        for m in dst.list_recent(20, include_superseded=True, include_expired=True)
        if m.id not in {a.id, b.id, c.id, d.id}
    ]
    by_text = {m.text: m for m in copies}
    copy_a, copy_b, copy_c = (by_text[m.text] for m in (a, b, c))
    # links and supersede state inside the archive follow the renamed ids
    assert [(x.to, x.rel) for x in copy_a.links] == [(copy_b.id, "related")]
    assert copy_b.superseded_by == copy_c.id
    fresh = make_store()
    fresh.remember("unrelated memory")
    before = fresh.count()
    fresh.import_(path)  # now every id collides with "error"
    with pytest.raises(ImportConflictError) as info:
        fresh.import_(path, on_conflict="error")
    assert len(info.value.collisions) == 4
    with pytest.raises(ValueError):
        fresh.import_(path, on_conflict="merge")
    assert fresh.count() == before + 4


def test_error_policy_writes_nothing_on_partial_collision(populated, make_store, tmp_path):
    src, mems = populated
    path = src.export(tmp_path / "dump.ahkai", include_superseded=True).path
    dst = make_store()
    dst.import_(
        _write_seed_archive(
            tmp_path / "one.ahkai", [_seed_row(mems[0].id, "one colliding id")], vectors=False
        )
    )
    with pytest.raises(ImportConflictError):
        dst.import_(path, on_conflict="error")
    assert dst.count() == 1


def test_dry_run_counts_without_writing(populated, make_store, tmp_path):
    src, _ = populated
    path = src.export(tmp_path / "dump.ahkai", include_superseded=True).path
    dst = make_store()
    preview = dst.import_(path, dry_run=True)
    assert (preview.imported, preview.dry_run) == (4, True)
    assert dst.count() == 0 and dst.journal_tail(5) == []
    dst.import_(path)
    assert src.import_(path, dry_run=True, on_conflict="rename").renamed == 4
    assert src.count() == 4


def test_model_mismatch_guard_and_regenerate(store, embedder, tmp_path):
    text = "vectors from some other embedding model"
    fake = np.ones(384, dtype=np.float32) / np.sqrt(384)
    path = _write_seed_archive(
        tmp_path / "other.ahkai",
        [_seed_row("m-1", text, vector=fake)],
        model="text-embedding-3-small",
    )
    with pytest.raises(ValueError, match="regenerate_vectors"):
        store.import_(path)
    with pytest.raises(ImportError):  # the seed's exception type, too
        store.import_(path)
    assert store.count() == 0
    result = store.import_(path, regenerate_vectors=True)
    assert result.imported == 1 and result.vectors_regenerated
    # stored as FLOAT16 (the default vector type): about 3 significant digits
    assert np.allclose(store.vectors(["m-1"])["m-1"], embedder.encode([text])[0], atol=1e-3)


def test_imports_an_archive_in_the_seeds_exact_format(store, embedder, tmp_path):
    texts = ["Use ruff for linting", "The office moved to Lisbon in March"]
    vectors = embedder.encode(texts)
    rows = [
        _seed_row(
            "72be7903-0000-4000-8000-000000000001",
            texts[0],
            vector=vectors[0],
            type="procedural",
            tags=["python", "tooling"],
            importance=0.9,
            access_count=7,
            last_accessed=1748100000.0,
            source="cli",
            links=[{"to": "72be7903-0000-4000-8000-000000000002", "rel": "related"}],
            pinned=True,
            trust="reported",
        ),
        _seed_row(
            "72be7903-0000-4000-8000-000000000002",
            texts[1],
            vector=vectors[1],
            polarity=-1,
            created_at=1748000001.0,
        ),
    ]
    path = _write_seed_archive(tmp_path / "seed.ahkai", rows)
    assert read_archive_header(path)["source"]["count"] == 2
    result = store.import_(path)
    assert (result.imported, result.errors, result.vectors_regenerated) == (2, [], False)
    first = store.get(rows[0]["id"])
    assert first.type == "procedural" and first.tags == ["python", "tooling"]
    assert (first.importance, first.access_count, first.source) == (0.9, 7, "cli")
    assert first.created_at == 1748000000.0 and first.last_accessed == 1748100000.0
    assert [(x.to, x.rel) for x in first.links] == [(rows[1]["id"], "related")]
    assert store.get(rows[1]["id"]).polarity == -1
    # exact up to the store's vector type (FLOAT16 by default): half-precision rounding only
    assert np.array_equal(
        store.vectors([rows[0]["id"]])[rows[0]["id"]],
        np.asarray(vectors[0], dtype=np.float32).astype(np.float16).astype(np.float32),
    )
    assert store.recall("linting tool", k=1)[0][0].id == rows[0]["id"]


def test_bad_archives_are_clear_errors(store, tmp_path):
    with pytest.raises(FileNotFoundError):
        store.import_(tmp_path / "missing.ahkai")
    plain = tmp_path / "plain.json"
    plain.write_text('{"format": "ai-houkai/export"}')
    with pytest.raises(ArchiveError, match="gzipped"):
        store.import_(plain)
    wrong = tmp_path / "wrong.ahkai"
    with gzip.open(wrong, "wt") as handle:
        handle.write('{"format": "something-else"}\n')
    with pytest.raises(ArchiveError, match="format"):
        read_archive_header(wrong)
    newer = tmp_path / "newer.ahkai"
    with gzip.open(newer, "wt") as handle:
        handle.write('{"format": "ai-houkai/export", "version": 99}\n')
    with pytest.raises(ArchiveError, match="version"):
        store.import_(newer)
    rows = [
        _seed_row("ok-1", "a good row"),
        _seed_row("bad-1", "   "),
        _seed_row("bad-2", "bad type", type="nonsense"),
    ]
    path = _write_seed_archive(tmp_path / "mixed.ahkai", rows, vectors=False)
    with gzip.open(path, "at") as handle:
        handle.write("this is not json\n")
    result = store.import_(path)
    assert result.imported == 1 and result.vectors_regenerated
    assert sorted(e[0] for e in result.errors) == ["bad-1", "bad-2", "line:5"]


def test_import_is_streamed_in_batches(store, tmp_path, monkeypatch):
    rows = [
        _seed_row(f"id-{i:03d}", f"batched memory {i}", created_at=time.time() + i)
        for i in range(25)
    ]
    path = _write_seed_archive(tmp_path / "many.ahkai", rows, vectors=False)
    calls = []
    real = store.core.encode
    monkeypatch.setattr(store.core, "encode", lambda texts: calls.append(len(texts)) or real(texts))
    assert store.import_(path, batch_size=10).imported == 25
    assert calls == [10, 10, 5]


# --------------------------------------------------------------- hostile archives (issue 10)
def _raw_archive(path, lines, header=None):
    """An archive from raw text lines (NaN/Infinity spelled as Python's json writes them)."""
    header = header or {"format": "ai-houkai/export", "version": 1, "source": {}}
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(header if isinstance(header, str) else json.dumps(header))
        handle.write("\n")
        for line in lines:
            handle.write(line if isinstance(line, str) else json.dumps(line))
            handle.write("\n")
    return path


def test_overwrite_validates_every_row_before_writing(store, tmp_path):
    """Item 4 reproducer: the bad second row used to delete keep-1 and raise a 500."""
    keep = store.remember("keep this memory", tags=["x"])
    path = _raw_archive(
        tmp_path / "repro.ahkai",
        [{"id": keep.id, "text": "new"}, {"id": "b", "text": "x", "meta": {"source": {"a": 1}}}],
    )
    result = store.import_(path, on_conflict="overwrite")
    assert result.overwritten == 1 and result.errors_total == 1
    assert result.errors[0][0] == "b" and result.errors[0][1].startswith("line 3: source")
    assert store.get(keep.id).text == "new" and store.get("b") is None
    assert store.get(keep.id).tags == []  # replaced whole, not merged


def test_overwrite_keeps_the_old_memory_when_the_write_fails(store, tmp_path, monkeypatch):
    old = store.remember("the version that must survive")
    path = _raw_archive(tmp_path / "o.ahkai", [{"id": old.id, "text": "replacement"}])

    def broken(*args, **kwargs):
        raise RuntimeError("redis went away mid-import")

    monkeypatch.setattr(store.graph, "reindex_links", broken)
    with pytest.raises(RuntimeError):
        store.import_(path, on_conflict="overwrite")
    assert store.get(old.id).text == "the version that must survive"


def test_a_corrupt_archive_writes_nothing(store, tmp_path):
    rows = [_seed_row(f"c-{i}", f"row {i}") for i in range(20)]
    path = _write_seed_archive(tmp_path / "cut.ahkai", rows, vectors=False)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 12])  # truncated gzip: the tail is gone
    with pytest.raises(ArchiveError, match="truncated or corrupt"):
        store.import_(path)
    assert store.count() == 0


def test_poisoned_values_are_refused_and_the_collection_stays_usable(store, embedder, tmp_path):
    """Item 5: each of these used to import, then list/recall/pack gave 400 and stats 500."""
    good = embedder.encode(["a healthy memory about deploys"])[0].tolist()
    nan = [float("nan")] * len(good)
    header = {
        "format": "ai-houkai/export",
        "version": 1,
        "source": {"embedding_model": store.embedder.name, "embedding_dim": len(good)},
        "options": {"include_vectors": True},
    }
    lines = [
        {"id": "ok", "text": "a healthy memory about deploys", "vector": good},
        '{"id":"p1","text":"t1","meta":{"created_at":Infinity}}',
        {"id": "p2", "text": "t2", "vector": nan},
        {"id": "p3", "text": "t3", "vector": good[:10]},
        {"id": "p4", "text": "t4", "meta": {"access_count": 1e30}},
        {"id": "p5", "text": "t5", "meta": {"created_at": 1e300}},
        {"id": "p6", "text": "t6", "meta": {"importance": "NaN"}},
        '{"id":"p7","text":"t7","meta":{"last_accessed":1e400}}',
        {"id": "p8", "text": "t8", "meta": {"expires_at": -5}},
        {"id": "p9", "text": "t9", "meta": {"polarity": 7}},
        {"id": "p10", "text": "t10", "meta": {"links": [{"to": "ok", "rel": "owns"}]}},
    ]
    result = store.import_(_raw_archive(tmp_path / "poison.ahkai", lines, header))
    assert result.imported == 1 and result.errors_total == 10
    assert [e[1].split(":")[0] for e in result.errors] == [f"line {n}" for n in range(3, 13)]
    assert store.count() == 1
    assert [m.id for m in store.list_recent(10)] == ["ok"]
    assert store.recall("deploys", k=3)[0][0].id == "ok"
    assert store.recall_pack("deploys", token_budget=200).ids() == ["ok"]
    assert store.stats()["total"] == 1


def test_archive_headers_with_overflowing_numbers_are_archive_errors(store, tmp_path):
    """Item 9: these used to raise OverflowError (a 500)."""
    for header in (
        '{"format":"ai-houkai/export","version":1e400}',
        '{"format":"ai-houkai/export","version":1,"source":{"embedding_dim":1e400}}',
        '{"format":"ai-houkai/export","version":NaN}',
        '{"format":"ai-houkai/export","version":1,"source":{"embedding_dim":-3}}',
        '{"format":"ai-houkai/export","version":1,"source":[]}',
    ):
        path = _raw_archive(tmp_path / "h.ahkai", [], header)
        with pytest.raises(ArchiveError) as info:
            store.import_(path)
        assert info.value.status == 400


def test_hostile_archives_cost_bounded_memory_and_output(store, tmp_path):
    """Item 8: a huge line is skipped in chunks; errors are capped but all counted."""
    import tracemalloc

    from houkai.store.archive import ArchiveLimits

    path = tmp_path / "long.ahkai"
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(b'{"format":"ai-houkai/export","version":1}\n{"id":"x","text":"')
        block = b" " * (1 << 20)
        for _ in range(48):  # one 48 MiB line
            handle.write(block)
        handle.write(b'"}\n')
        handle.write(b'{"id":"fine","text":"after the long line"}\n')
    limits = ArchiveLimits(max_line_bytes=1 << 20)
    tracemalloc.start()
    try:
        result = store.import_(path, limits=limits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.imported == 1 and result.errors == [
        ("line:2", "line 2: line longer than 1048576 bytes")
    ]
    assert peak < 16 * 1024 * 1024  # the 48 MiB line was never held
    with pytest.raises(ArchiveError, match="import_max_bytes"):
        store.import_(path, limits=ArchiveLimits(max_bytes=8 << 20))
    assert store.count() == 1

    bad = _raw_archive(tmp_path / "bad.ahkai", ["x"] * 50_000)
    assert bad.stat().st_size < 4096
    summary = store.import_(bad)
    assert summary.errors_total == 50_000 and len(summary.errors) == 100
    assert len(json.dumps(summary.to_dict())) < 10_000


def test_every_write_path_refuses_non_finite_numbers_and_vectors(make_store, store):
    from houkai.domain.model import Memory
    from houkai.engines.embeddings import HashEmbedder
    from houkai.pipeline.write import Pipeline

    with pytest.raises(ValueError, match="expires_at"):
        store.remember("far future", expires_at=1e300)
    with pytest.raises(ValueError, match="ttl"):
        store.remember("far future", ttl_seconds=1e300)
    m = store.remember("an ordinary memory")
    with pytest.raises(ValueError, match="expires_at"):
        store.edit(m.id, expires_at=float("inf"))
    with pytest.raises(ValueError, match="created_at"):
        store.write([Memory(id="raw", text="raw", created_at=float("inf"))])
    with pytest.raises(ValueError, match="dimensions"):
        store.write([Memory(id="raw", text="raw")], np.zeros((1, 3), np.float32))
    assert store.get("raw") is None

    class NanEmbedder(HashEmbedder):
        def encode(self, texts):
            out = super().encode(texts)
            out[[i for i, t in enumerate(texts) if "NAN" in t]] = np.nan
            return out

    nan_store = make_store(embedder=NanEmbedder())
    with pytest.raises(ValueError, match="NaN"):
        nan_store.remember("this one embeds to NAN")
    job = Pipeline(nan_store, mode="inline").submit(["fine one", "NAN here", "fine two"])
    status = Pipeline(nan_store, mode="inline").job(job.id)
    assert (status.done, status.failed) == (2, 1) and "NaN" in status.errors[0]["error"]
    assert nan_store.recall("fine", k=5)


def test_supersede_cycles_in_an_archive_are_refused_rows(store, tmp_path):
    """A row superseded by itself, or rows superseding each other in a loop, would hide
    each other for good: each is a reported error, and the rest of the archive imports."""
    rows = [
        _seed_row("a", "Alpha note", superseded_by="b", superseded_at=1748000001.0),
        _seed_row("b", "Beta note", superseded_by="c", superseded_at=1748000001.0),
        _seed_row("c", "Gamma note", superseded_by="a", superseded_at=1748000001.0),
        _seed_row("d", "Delta note", superseded_by="d", superseded_at=1748000001.0),
        _seed_row("e", "Epsilon note, superseded", superseded_by="f", superseded_at=1748000001.0),
        _seed_row("f", "Zeta note, the newer one"),
    ]
    path = _write_seed_archive(tmp_path / "cycles.ahkai", rows, vectors=False)
    summary = store.import_(str(path))
    assert summary.imported == 2
    refused = {e[0]: e[1] for e in summary.errors}
    assert set(refused) == {"a", "b", "c", "d"}
    assert refused["b"] == "line 3: superseded_by forms a cycle (b → c → a → b)"
    assert refused["d"] == "line 5: superseded_by forms a cycle (d → d)"
    assert store.get("e").superseded_by == "f" and store.get("a") is None
    assert [m.id for m in store.list_recent(10)] == ["f"]


def test_import_refuses_a_cycle_closed_through_stored_memories(store, tmp_path):
    """Overwriting B, superseded by A, into a collection where A is superseded by B would
    hide both for good: the row is refused, A stays as it was, the rest imports."""
    a = store.remember("Alpha, stored").id
    b = store.remember("Beta, stored").id
    store.supersede(a, b)  # a is superseded by b
    rows = [
        _seed_row(b, "Beta, archived", superseded_by=a, superseded_at=1748000001.0),
        _seed_row("c", "Gamma, archived"),
    ]
    path = _write_seed_archive(tmp_path / "through.ahkai", rows, vectors=False)
    summary = store.import_(str(path), on_conflict="overwrite")
    assert summary.errors == [
        (b, f"line 2: superseded_by forms a cycle ({b} → {a} (stored) → {b})")
    ]
    assert summary.imported == 1
    assert store.get(b).text == "Beta, stored" and not store.get(b).superseded_by
    assert store.get(a).superseded_by == b
    assert store.get("c").text == "Gamma, archived"
    # skip leaves the stored b in place, so the same archive closes no loop
    skipped = store.import_(str(path), on_conflict="skip")
    assert not skipped.errors


def test_import_cycles_follow_what_each_policy_writes():
    """The loops an import would close, by where each pointer lands after it (the archive's
    row or the memory already stored), read from a store in few calls."""
    from houkai.store.chains import ARCHIVE, STORED, import_cycles

    calls: list[list[str]] = []

    def reader(stored: dict[str, str]):
        def read(ids: list[str]) -> dict[str, str]:
            calls.append(ids)
            return {i: stored[i] for i in ids if i in stored}

        return read

    # a stored memory points at an id only the archive holds, which points back
    cycles = import_cycles({"y": "x"}, {"y"}, "skip", reader({"x": "y"}))
    assert cycles == [[("y", ARCHIVE), ("x", STORED)]]
    # a loop within the archive, through a row skip leaves stored (and unsuperseded): none
    assert import_cycles({"a": "b", "b": "a"}, {"a", "b"}, "skip", reader({"b": ""})) == []
    # rename writes that row under a fresh id, which the archive's pointer follows
    renamed = import_cycles({"a": "b", "b": "a"}, {"a", "b"}, "rename", reader({"b": ""}))
    assert renamed == [[("a", ARCHIVE), ("b", ARCHIVE)]]
    # a long chain within the archive: one read for the rows and their targets
    calls.clear()
    chain = {f"m{i}": f"m{i + 1}" for i in range(5000)}
    assert import_cycles(chain, set(chain) | {"m5000"}, "overwrite", reader({})) == []
    assert len(calls) == 1
