"""A past question's reference point (ADR 0095): "before X" names the memory that replaced
the answer, and the ``current`` stage ranks the state written just before it first, even
when the two share no word of the question ("Where did Maya live before Toronto?" beside
"Maya is based in Toronto." and "My sister Maya is based in Denver."). Candidate pools
with the model's real vectors, and one recall through a real-Redis collection."""

from __future__ import annotations

from dataclasses import replace

from _dated import DAY, ranking, scored_candidates, write_dated
from test_recall_state import FILLER

from houkai import MemoryStore
from houkai.domain.model import HybridWeights
from houkai.recall import asking, state
from houkai.recall.reference import naming
from houkai.recall.slots import deal
from houkai.recall.stages import resolve_stages

MAYA = [
    ("Maya (sister) is based in Toronto.", 40, 0.95),
    ("My sister Maya prefers email.", 200, 0.90),
    ("My sister Maya is based in Denver.", 300, 0.85),
    ("Birthday: Maya, 3 March.", 250, 0.80),
    ("Tim next door is based in Denver.", 100, 0.75),
]

ERRANDS = [
    "The car is due for its MOT in May.",
    "Recycling goes out on Tuesday evenings.",
    "The boiler was serviced last autumn.",
    "Library books are due back on the 12th.",
]


def _first(embedder, dated, question: str, names: list[str]) -> tuple[str, dict]:
    """The best candidate's text and explain after the stage, the question naming *names*."""
    cands = scored_candidates(embedder, dated)
    read = asking.read(question, None)
    words = [{w: 1.0 for w in n.lower().split()} for n in names]
    state.newest_first(cands, replace(read, entities=names, words=words), 0.65, 10, {}, 0.45)
    best = max(cands, key=lambda c: c.score)
    return best.memory.text, best.explain.get("stages", {})


def test_before_x_ranks_the_state_just_before_the_memory_naming_x(embedder):
    text, stages = _first(embedder, MAYA, "Where did Maya live before Toronto?", ["Maya"])
    assert text == "My sister Maya is based in Denver."
    assert stages["current_point"] == "m0"  # the memory naming Toronto
    assert stages["current_group"] == 2
    # without a reference point, the blend's order stands
    text, stages = _first(embedder, MAYA, "Where did Maya live originally?", ["Maya"])
    assert text == "Maya (sister) is based in Toronto."
    assert "current_point" not in stages


def test_of_a_chain_the_one_just_before_is_asked_for_not_the_oldest(embedder):
    cities = [
        ("Zoe (daughter)'s home is in Austin.", 20, 0.95),
        ("Zoe (daughter)'s home is in Montreal.", 400, 0.92),
        ("Zoe (daughter) is based in Toronto.", 150, 0.90),
        ("Zoe is employed by a climbing gym.", 90, 0.70),
    ]
    question = "Which city was Zoe in before Austin?"
    assert _first(embedder, cities, question, ["Zoe"])[0] == "Zoe (daughter) is based in Toronto."
    question = "Which city was Zoe in before Toronto?"
    assert _first(embedder, cities, question, ["Zoe"])[0] == "Zoe (daughter)'s home is in Montreal."


def test_a_point_without_names_is_read_by_the_words_memories_hold(embedder):
    diet = [
        ("Food note for Tom: low-sodium.", 30, 0.95),
        ("Tom eats vegetarian — plan meals around it.", 200, 0.90),
        ("Tom (brother-in-law) collects watercolour sets.", 150, 0.85),
    ]
    question = "What diet was Tom on before going low-sodium?"  # no memory holds "going"
    text, stages = _first(embedder, diet, question, ["Tom"])
    assert text == "Tom eats vegetarian — plan meals around it."
    assert stages["current_point"] == "m0"
    texts = [t for t, _, _ in diet]
    assert naming(question, texts) == [0]
    assert naming("Where does Tom live?", texts) is None
    assert naming("What was it before going abroad?", texts) is None
    # a generic word left alone of the point tells nothing: "new" is no "new editor"
    notes = ["Switched the team to a new keyboard layout.", "The editor theme is dark."]
    assert naming("What did we use before the new vim setup?", notes) is None
    assert naming("What did we use before the new editor?", notes) == []  # none holds both
    # "I" is no name: "before I quit" is read by its words
    coffee = ["I drink black filter coffee.", "Quit coffee in March; herbal tea now."]
    assert naming("What did I drink before I quit coffee?", coffee) == [1]


def test_what_is_not_the_subjects_older_state_is_left_alone(embedder):
    question = "Where did Maya live before Toronto?"
    # another person's older note, however close, is not Maya's state
    others = [MAYA[0], ("Tim next door is based in Denver.", 300, 0.90), MAYA[3]]
    assert _first(embedder, others, question, ["Maya"])[0] == MAYA[0][0]
    # a note newer than the point is no state before it
    newer = [MAYA[0], ("My sister Maya is based in Denver.", 10, 0.85)]
    assert _first(embedder, newer, question, ["Maya"])[0] == MAYA[0][0]
    # a lone older note of hers below current_similarity: nothing to stand out from
    lone = [MAYA[0], ("Birthday: Maya, 3 March.", 250, 0.85)]
    assert _first(embedder, lone, question, ["Maya"])[0] == MAYA[0][0]
    # a question that names nobody: whose state it asks is not known
    assert _first(embedder, MAYA, "Where did I live before Toronto?", [])[0] == MAYA[0][0]
    # a question about the present is no question about the state before
    question = "Where does Maya live now, instead of Toronto?"
    assert asking.intent(question) == "present"
    assert "current_point" not in _first(embedder, MAYA, question, ["Maya"])[1]


def test_no_note_standing_out_or_a_point_many_notes_name_moves_nothing(embedder):
    # three notes on Tim, about equally close to the dairy-free one: none is its topic
    tim = [
        ("Food note for Tim next door: dairy-free.", 30, 0.95),
        ("Neighbour Tim collects single-origin coffee.", 200, 0.90),
        ("Tim is pescatarian.", 250, 0.85),
        ("Tim next door is employed by the city hospital.", 150, 0.80),
    ]
    question = "What diet was Tim on before going dairy-free?"
    text, stages = _first(embedder, tim, question, ["Tim"])
    assert text == tim[0][0]
    assert "current_point" not in stages
    # "launch" is an event several notes tell of, not the value of a state
    launch = [
        ("Birchway goes to a monthly call after launch.", 20, 0.95),
        ("Birchway go-live night: cut-over at 21:00, no incidents.", 40, 0.92),
        ("Birchway has to launch by 31 October.", 150, 0.90),
        ("Birchway sync every second Monday, 11:00.", 200, 0.85),
    ]
    question = "How often did we have the Birchway call before launch?"
    cands = scored_candidates(embedder, launch)
    read = replace(asking.read(question, None), entities=["Birchway"], words=[{"birchway": 1}])
    state.newest_first(cands, read, 0.65, 10, {}, 0.45)
    assert all("current_point" not in c.explain.get("stages", {}) for c in cands)


def test_recall_ranks_the_state_before_the_point_first(store: MemoryStore):
    # with notes on other things: a name most memories use tells nothing
    other = [*FILLER, *ERRANDS]
    ids = write_dated(store, [(t, days) for t, days, _ in MAYA] + [(t, 500) for t in other])
    toronto, denver = ids[0], ids[2]
    question = "Where did Maya live before Toronto?"
    ranked = ranking(store, question)
    assert ranked[0][0] == denver
    assert ranked[0][1]["stages"]["current_point"] == toronto
    assert ranked[0][1]["stages"]["question"]["intent"] == "past"
    # without the stage, the memory naming the point ranks first
    without = ranking(store, question, stages=("query", "entity"))
    assert without[0][0] == toronto


def test_written_seconds_apart_the_order_holds_read_seconds_apart_it_does_not(
    store: MemoryStore,
):
    # an import replaying a history: the question says the point replaced a state, so
    # seconds are enough; ranked by last access, the ages are reads and tell no order
    other = [*FILLER, *ERRANDS]
    dated = [(t, seconds / DAY) for t, seconds, _ in MAYA] + [(t, 1.0) for t in other]
    ids = write_dated(store, dated)
    toronto, denver = ids[0], ids[2]
    question = "Where did Maya live before Toronto?"
    assert ranking(store, question)[0][0] == denver
    accessed = HybridWeights(recency_basis="accessed")
    by_reads = ranking(store, question, weights=accessed)
    assert all("current_point" not in e["stages"] for _, e in by_reads)
    # the stage leaves the order as the others made it: as if it were off
    off = tuple(s for s in resolve_stages(None) if s != "current")
    assert [i for i, _ in by_reads] == [
        i for i, _ in ranking(store, question, weights=accessed, stages=off)
    ]
    assert toronto in [i for i, _ in by_reads[:2]]


def test_a_second_deal_adds_to_what_explain_shows_of_the_first(embedder):
    a, b, c = scored_candidates(embedder, [("one", 1, 0.9), ("two", 2, 0.8), ("three", 3, 0.7)])
    deal([b, a])  # a group puts b first
    assert (a.score, b.score) == (0.8, 0.9)
    deal([a, c, b])  # then a topic puts a first and c second
    assert (a.score, c.score, b.score) == (0.9, 0.8, 0.7)
    assert "current" not in a.explain["stages"]  # down 0.1, then up 0.1: where it began
    assert b.explain["stages"]["current"] == -0.1
    assert c.explain["stages"]["current"] == 0.1
    assert c.explain["stages"]["current_group"] == 3
