"""Ingest reads and chunks every source once (issue #28): files, streams, previews."""

from __future__ import annotations

import json
import uuid

import pytest

from houkai.app.errors import classify
from houkai.app.service import MemoryService
from houkai.domain.model import NothingToIngest, ValidationError


@pytest.fixture()
def svc(settings, embedder, make_store):
    name = f"once-{uuid.uuid4().hex[:8]}"
    make_store(name, actor="lib")  # dropped after the test
    return MemoryService(settings.replace(collection=name, pipeline_mode="inline"), actor="lib")


@pytest.fixture()
def chunked(monkeypatch) -> list[str]:
    """Every text the chunker is given (the size check's probe left out)."""
    from houkai.pipeline import chunking

    calls: list[str] = []
    real = chunking.chunk_text

    def counting(text: str, **options):
        if text != "size check":
            calls.append(text)
        return real(text, **options)

    monkeypatch.setattr(chunking, "chunk_text", counting)
    return calls


def test_each_file_is_read_and_chunked_once(svc, chunked, tmp_path) -> None:
    (tmp_path / "a.md").write_text(
        "Alpha: the first paragraph of the notes, long enough to be kept whole.\n\n"
        "Beta: the second paragraph of the notes, also long enough to be kept.\n"
    )
    records = [{"text": "The wifi password rotates monthly."}, "Invoices are paid on the 5th."]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    reply = svc.ingest(path=str(tmp_path), wait=True)
    assert reply["total"] == 4 and reply["job"]["done"] == 4
    assert len(chunked) == 3  # one text file and two records, each chunked once


def test_a_stream_is_consumed_once_line_by_line(svc) -> None:
    first = json.dumps({"text": "Deploys happen on Tuesdays.", "tags": ["ops"]})
    # an iterator: a second read would find it empty
    lines = iter([first + "\n", "\n", '"Backups run nightly at 2am."\n'])
    reply = svc.ingest_stream(lines, tags=["notes"], wait=True)
    assert reply["total"] == 2 and reply["job"]["done"] == 2
    stored = {svc.get(i)["text"]: svc.get(i) for i in reply["ids"]}
    assert set(stored) == {"Deploys happen on Tuesdays.", "Backups run nightly at 2am."}
    assert stored["Deploys happen on Tuesdays."]["tags"] == ["ops"]  # a record's own wins
    assert stored["Backups run nightly at 2am."]["source"] == "ingest:stdin"


def test_a_bad_stream_line_is_bad_input_and_nothing_is_stored(svc) -> None:
    lines = iter(['{"text": "A fine first line."}\n', "{not json\n"])
    with pytest.raises(ValidationError, match="stdin:2") as raised:
        svc.ingest_stream(lines, wait=True)
    assert classify(raised.value)[0] == 400
    assert svc.stats()["count"] == 0


def test_a_preview_is_what_gets_stored_without_a_second_read(svc, chunked, tmp_path) -> None:
    notes = tmp_path / "notes.md"
    first_text = "First: the opening paragraph of the notes, long enough to be kept."
    second_text = "Second: the closing paragraph of the notes, long enough to be kept."
    notes.write_text(f"{first_text}\n\n{second_text}\n")
    (chunks,) = svc.ingest_preview([{"path": str(notes)}], type="semantic")
    assert [c["text"] for c in chunks] == [first_text, second_text]
    reply = svc.ingest_chunks(chunks, type="semantic", wait=True)
    assert len(chunked) == 1 and reply["job"]["done"] == 2
    first, second = (svc.get(i) for i in reply["ids"])
    assert second["links"] == [{"to": first["id"], "rel": "follows"}]
    assert first["type"] == "semantic" and first["source"] == "ingest:notes.md"


def test_a_path_naming_nothing_is_a_typed_404(svc, tmp_path) -> None:
    with pytest.raises(NothingToIngest) as raised:
        svc.ingest(path=str(tmp_path / "missing"))
    assert classify(raised.value) == (404, f"{tmp_path / 'missing'}: no such file or folder")
