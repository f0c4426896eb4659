"""Whom a memory is about, read from its text when the collection is not tagged by person
(:mod:`houkai.recall.subjects`): the ``query`` stage's share of the names boost and the
opt-in ``subjects`` stage."""

from __future__ import annotations

import time

import pytest
from _dated import DAY, ranking, write_dated

from houkai import MemoryStore
from houkai.bench.locomo import backdate
from houkai.domain.model import Memory
from houkai.recall.candidates import Candidate
from houkai.recall.stages import default_names
from houkai.recall.stages.params import BASE
from houkai.recall.stages.subjects import STAGE
from houkai.recall.subjects import about

CONTACT = [
    ("Tom prefers email now, not Signal.", 5),
    ("Best way to reach Sam: Telegram.", 40),
    ("Best way to reach Maya: WhatsApp.", 30),
    ("Picked a birthday card design for Tom; not sent yet.", 20),
    ("The team lunch moved to the Thai place on Fridays.", 60),
    ("Parking passes renew every January.", 70),
    ("Standup notes are posted in the team channel.", 80),
]


def _cands(*texts: str, tags: tuple[str, ...] = ()) -> list[Candidate]:
    return [
        Candidate(Memory(id=f"m{i}", text=t, tags=list(tags)), score=1.0 - i / 10)
        for i, t in enumerate(texts)
    ]


def test_a_memory_is_about_whom_its_opening_names_not_whom_it_mentions() -> None:
    cands = _cands(
        "Tom prefers email now, not Signal.",
        "Best way to reach Sam: Telegram.",
        "Picked a birthday card design for Tom; not sent yet.",
        "Tom's travel insurance policy number: 2DWWYJ.",  # his, as a tag would say
    )
    assert about(cands, {"tom"}) == [1.0, 0.0, 0.0, 1.0]
    half = _cands("Jon Reyes (no relation to Joan) is our designer.", "Joan Reyes runs finance.")
    assert about(half, {"joan", "reyes"}) == [0.5, 1.0]
    # a name counts capitalised; a dated import's stamp is no part of the opening
    go = _cands("Deploys go out on Tuesdays.", "[8 May 2023] Go 1.22 is the minimum now.")
    assert about(go, {"go"}) == [0.0, 1.0]


def test_the_second_hop_counts_unless_it_mentions_the_one_asked_about() -> None:
    """Alma is whom Zoe's best friend note names; the note that opens with Alma and never
    names Zoe is the second hop. One that names Zoe further in is about Alma, not Zoe."""
    cands = _cands(
        "Zoe's best friend at school is Alma.",
        "Alma's mum is Teresa; she drives the Wednesday school run.",
        "Alma's mum is Teresa; she once drove Zoe to the pool on a Friday.",
        "Teresa runs the bakery on Elm Street.",
    )
    assert about(cands, {"zoe"}) == [1.0, 1.0, 0.0, 0.0]


def test_a_weekday_is_no_second_hop() -> None:
    cands = _cands("Tom flies to Lisbon on Friday.", "Friday standup moves to 10:00.")
    assert about(cands, {"tom"}) == [1.0, 0.0]


def test_a_note_that_opens_with_another_name_is_no_second_hop() -> None:
    """ "Atlas uses Postgres 16" names Postgres; "Beacon uses Postgres 16" is about Beacon."""
    cands = _cands("Atlas uses Postgres 16.", "Beacon uses Postgres 16.", "Postgres 16 is LTS.")
    assert about(cands, {"atlas"}) == [1.0, 0.0, 1.0]


def test_the_stage_keeps_out_of_a_collection_tagged_by_person() -> None:
    """The ``query`` stage's tag boost holds wherever a candidate carries the name as a tag."""
    from types import SimpleNamespace

    from houkai.recall.query import parse_query

    parse = parse_query("How do I reach Tom?", 0.0)
    ctx = SimpleNamespace(query=SimpleNamespace(parse=parse), params=BASE, active=("subjects",))
    tagged = _cands("Best way to reach Sam: Telegram.", tags=("Tom",))
    assert STAGE.signals(ctx, tagged + _cands("Tom prefers email now.")) == {}
    untagged = _cands("Tom prefers email now.", "Sam likes tea.")
    weight, values = STAGE.signals(ctx, untagged)["subjects"]
    assert weight == BASE.names and values == [1.0, 0.0]
    # beside the query stage, which gives such notes a share of the boost, it adds the rest
    ctx.active = ("query", "subjects")
    weight, values = STAGE.signals(ctx, untagged)["subjects"]
    assert weight == pytest.approx(BASE.names * (1 - BASE.names_text)) and values == [1.0, 0.0]


def test_in_an_untagged_collection_the_note_about_the_one_asked_about_comes_first(
    store: MemoryStore,
) -> None:
    """Without tags and without the query stage, another's contact note ranks first on the
    word "reach"; the query stage gives Tom's own note half the boost a tag would give it
    (what its text says it is about), and the opt-in stage the rest."""
    tom, sam, *_ = write_dated(store, CONTACT)
    no_query = tuple(s for s in default_names() if s != "query")
    assert ranking(store, "How do I reach Tom?", k=5, stages=no_query)[0][0] != tom
    ranked = ranking(store, "How do I reach Tom?", k=5)  # the default stages
    assert ranked[0][0] == tom
    explain = dict(ranked)
    assert explain[tom]["stages"]["names"] == pytest.approx(BASE.names * BASE.names_text)
    assert explain[sam]["stages"]["names"] == 0
    ranked = ranking(store, "How do I reach Tom?", k=5, stages=(*default_names(), "subjects"))
    assert ranked[0][0] == tom
    explain = dict(ranked)
    assert explain[tom]["stages"]["subjects"] > 0
    assert explain[sam]["stages"]["subjects"] == 0


WALKS = [
    ("Dog walker: Ellie Navarro, Mon/Wed/Fri at noon, $22 a walk.", 120, ["biscuit"]),
    ("Biscuit dug up the neighbours' tulips. Again.", 10, ["biscuit"]),
    ("Biscuit's vet is VCA Alameda East.", 90, ["biscuit"]),
    ("Trent Olsen walks Biscuit Tuesday to Thursday at 12:30, $25 a walk.", 30, []),
    ("Mochi the cat gets half a can of wet food at night.", 60, ["mochi"]),
]


def test_a_note_its_writer_did_not_tag_gets_a_share_of_the_boost(store: MemoryStore) -> None:
    """Agents tag unevenly: the untagged note on Biscuit's new walker gets half the boost
    the tagged notes get for the tag, for what its text says; it ranks first."""
    now = time.time()
    written = [store.remember(text, tags=tags) for text, _, tags in WALKS]
    backdate(
        store, {m.id: now - days * DAY for m, (_, days, _) in zip(written, WALKS, strict=True)}
    )
    trent, mochi = written[3].id, written[4].id
    ranked = ranking(store, "Who walks Biscuit?", k=5)
    names = {mid: e["stages"]["names"] for mid, e in ranked}
    assert names[trent] == pytest.approx(BASE.names * BASE.names_text)
    assert names[written[0].id] == names[written[1].id] == BASE.names
    assert names.get(mochi, 0.0) == 0.0
    assert ranked[0][0] == trent


def test_turns_of_a_recorded_exchange_get_no_share_for_their_text(store: MemoryStore) -> None:
    """In a conversation the tags say who speaks: a turn that names Tom is not about him."""
    store.remember_many(["Filler note on parking passes.", "Lunch moved to Fridays."])
    turns = store.remember_many(
        ["Sam: did you hear from Tom?", "Maya: Tom prefers email now."], sequence=True
    )
    ranked = ranking(store, "How do I reach Tom?", k=5)
    names = {mid: e["stages"].get("names", 0.0) for mid, e in ranked}
    assert all(names.get(t.id, 0.0) == 0.0 for t in turns)
