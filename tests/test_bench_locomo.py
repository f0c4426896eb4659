"""The LoCoMo harness: parsing the released format and scoring evidence turns."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from houkai.bench import locomo

SAMPLE = {
    "qa": [
        {
            "question": "What instrument does Mel play?",
            "answer": "violin",
            "evidence": ["D1:2"],
            "category": 4,
        },
        {
            "question": "Where did Caroline adopt her guinea pig Oscar?",
            "answer": "shelter",
            "evidence": ["D2:1; D2:2"],
            "category": 1,
        },
        {"question": "Adversarial question", "answer": "n/a", "evidence": ["D1:1"], "category": 5},
    ],
    "conversation": {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! How have you been?"},
            {
                "speaker": "Melanie",
                "dia_id": "D1:2",
                "text": "I have been practising the violin every evening after work.",
            },
            {
                "speaker": "Caroline",
                "dia_id": "D1:3",
                "text": "The weather is lovely today.",
                "blip_caption": "a photo of a sunny park",
            },
        ],
        "session_2_date_time": "7:55 pm on 9 June, 2023",
        "session_2": [
            {
                "speaker": "Caroline",
                "dia_id": "D2:1",
                "text": "I adopted a guinea pig and named him Oscar.",
            },
            {
                "speaker": "Caroline",
                "dia_id": "D2:2",
                "text": "I found Oscar at the animal shelter.",
            },
            {"speaker": "Melanie", "dia_id": "D2:3", "text": "We are going camping next week."},
        ],
    },
}


@pytest.fixture()
def archive(tmp_path: Path) -> Path:
    path = tmp_path / "locomo_small.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data/locomo/1.json", json.dumps(SAMPLE))
    return path


def test_load_parses_turns_dates_and_questions(archive: Path) -> None:
    (conv,) = list(locomo.load(archive))
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]
    assert conv.turns[2].text == "The weather is lovely today."  # the caption kept apart
    assert conv.turns[2].caption == "a photo of a sunny park"
    assert (
        locomo.memory_text(conv.turns[2]) == "[8 May 2023] Caroline: The weather is lovely today."
    )
    assert locomo.memory_text(conv.turns[2], captions=True) == (
        "[8 May 2023] Caroline: The weather is lovely today. [shares a photo of a sunny park]"
    )
    assert locomo.memory_text(conv.turns[1], captions=True) == locomo.memory_text(conv.turns[1])
    assert locomo.memory_text(conv.turns[1]) == (
        "[8 May 2023] Melanie: I have been practising the violin every evening after work."
    )
    assert conv.turns[0].when < conv.turns[3].when
    assert [q.category for q in conv.questions] == [4, 1]  # category 5 left out
    assert conv.questions[1].evidence == ["D2:1", "D2:2"]  # "D2:1; D2:2" split


def test_scoring_counts_evidence_turns() -> None:
    assert locomo.score_ranks(["D1:2", "x"], ["D1:2"])[:3] == (1.0, 1.0, 1.0)
    r5, r10, rr = locomo.score_ranks(["a", "b", "D2:1", "c", "d", "e", "D2:2"], ["D2:1", "D2:2"])[
        :3
    ]
    assert (r5, r10, rr) == (0.5, 1.0, pytest.approx(1 / 3))
    assert locomo.score_ranks(["a"], ["b"])[:3] == (0.0, 0.0, 0.0)


def test_peer_metrics_count_any_hit_and_sessions() -> None:
    """Any-hit: one evidence turn in the top k is enough; session-level: the evidence
    sessions among the first k distinct sessions of the ranking."""
    ranked = ["D1:1", "D1:2", "D3:4", "D1:3", "D4:1", "D2:2", "D5:1", "D6:1"]
    *_, any5, any10, s5, s10 = locomo.score_ranks(ranked, ["D2:2", "D7:1"])
    assert (any5, any10) == (0.0, 1.0)  # D2:2 is sixth
    assert (s5, s10) == (0.5, 0.5)  # D2 is the fourth distinct session, D7 never comes
    assert locomo.score_ranks([], []) == (0.0,) * 7  # a question without evidence is a miss


def test_run_reports_every_mode(archive: Path, settings) -> None:
    result = locomo.run(archive, settings=settings)
    assert result["conversations"] == 1 and result["turns"] == 6
    modes = {m["mode"]: m for m in result["modes"]}
    assert set(modes) == set(locomo.MODES)  # each stage in turn, the defaults, RRF
    for m in modes.values():
        assert m["questions"] == 2
        assert 0.0 <= m["recall@5"] <= m["recall@10"] <= 1.0
        assert 0.0 <= m["mrr"] <= 1.0
    assert modes["hybrid"]["recall@5"] == 1.0  # six turns: every evidence turn is in the top 5


def test_reuse_keeps_the_sequenced_dated_collection(archive: Path, settings) -> None:
    from houkai import MemoryStore

    locomo.run(archive, settings=settings, modes=["plain"], reuse=True)
    store = MemoryStore(collection="bench-locomo-1", settings=settings)
    try:
        first = {m.source: m for m in store.list_recent(limit=10)}
        assert first["D1:2"].links[0].rel == "follows"  # one sequence per session
        assert first["D2:1"].links == []
        assert first["D1:1"].created_at == locomo._parse_date("1:56 pm on 8 May, 2023")
        again = locomo.run(archive, settings=settings, modes=["plain"], reuse=True)
        assert {m.source: m.id for m in store.list_recent(limit=10)} == {
            s: m.id for s, m in first.items()
        }  # not re-ingested
        assert again["modes"][0]["questions"] == 2
    finally:
        store.drop()


def test_reuse_writes_again_when_the_texts_differ(archive: Path, settings) -> None:
    from houkai import MemoryStore

    locomo.run(archive, settings=settings, modes=["plain"], reuse=True)
    store = MemoryStore(collection="bench-locomo-1", settings=settings)
    try:
        before = {m.source: m for m in store.list_recent(limit=10)}
        assert "[shares" not in before["D1:3"].text
        result = locomo.run(archive, settings=settings, modes=["plain"], reuse=True, captions=True)
        after = {m.source: m for m in store.list_recent(limit=10)}
        assert after["D1:3"].text.endswith("[shares a photo of a sunny park]")
        assert after["D1:2"].id != before["D1:2"].id  # the whole conversation written again
        assert result["captions"] is True and result["modes"][0]["questions"] == 2
        again = locomo.run(archive, settings=settings, modes=["plain"], reuse=True, captions=True)
        assert {m.source: m.id for m in store.list_recent(limit=10)} == {
            s: m.id for s, m in after.items()
        }  # the same texts: reused
        assert again["modes"][0]["questions"] == 2
    finally:
        store.drop()


def test_run_scores_the_requested_vector_type_and_backend(archive: Path, settings) -> None:
    from houkai import MemoryStore

    other = "FLOAT32" if settings.vector_type.upper() != "FLOAT32" else "FLOAT16"
    locomo.run(archive, settings=settings, modes=["plain"], keep=True)  # left in the default type
    result = locomo.run(
        archive, settings=settings.replace(vector_type=other), modes=["plain"], keep=True
    )
    store = MemoryStore(collection="bench-locomo-1", settings=settings)
    try:
        assert store.vector_type == other  # re-created, not reused in the old type
        assert result["vector_type"] == other and result["embedder"].startswith("all-MiniLM")
        assert result["modes"][0]["questions"] == 2
    finally:
        store.drop()


def test_a_run_whose_memories_are_pruned_meanwhile_is_refused(
    archive: Path, settings, monkeypatch
) -> None:
    """A running stack's decay job prunes the backdated turns mid-run: no figures then."""
    from houkai import DecayEngine, MemoryStore
    from houkai.domain.model import StateConflict

    original = MemoryStore.recall
    pruned: list[int] = []

    def recall_beside_a_decay_job(self, *args, **kwargs):
        if not pruned:
            pruned.append(len(DecayEngine(self).prune()))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MemoryStore, "recall", recall_beside_a_decay_job)
    try:
        with pytest.raises(StateConflict, match=r"6 of its 6 memories were removed"):
            locomo.run(archive, settings=settings, modes=["plain"])
    finally:
        MemoryStore(collection="bench-locomo-1", settings=settings).drop()
    assert pruned == [6]


def test_the_held_out_run_is_refused_too_when_memories_are_pruned_meanwhile(
    tmp_path: Path, settings, monkeypatch
) -> None:
    from houkai import DecayEngine, MemoryStore
    from houkai.bench import heldout
    from houkai.domain.model import StateConflict

    data = {
        "as_of": "2024-06-01T12:00:00",
        "memories": [
            {"id": f"m{i}", "text": f"note {i} about the staging cluster", "tags": [],
             "days_ago": 400}
            for i in range(3)
        ],
        "queries": [{"text": "staging cluster", "kind": "keyword", "relevant": ["m0"]}],
    }  # fmt: skip
    path = tmp_path / "heldout.json"
    path.write_text(json.dumps(data))
    original = MemoryStore.recall

    def recall_beside_a_decay_job(self, *args, **kwargs):
        DecayEngine(self).prune()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MemoryStore, "recall", recall_beside_a_decay_job)
    with pytest.raises(StateConflict, match=r"the held-out set: 3 of its 3 memories"):
        heldout.run(modes=["plain"], settings=settings, path=path)
    monkeypatch.setattr(MemoryStore, "recall", original)
    assert heldout.run(modes=["plain"], settings=settings, path=path)["queries"] == 1
