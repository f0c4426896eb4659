"""Two siblings the ``current`` stage no longer takes for an update (ADR 0101): a note whose
word of change speaks of someone else ("… Joanna Wells **moved** over to Support Ops"
beside the solutions engineer's note), and, for a question that asks when, a newest note
that states no time beside notes that do. Then (ADR 0108) what such a note leaves: the rest
of the group, whose newest date is the update; and a question whether a state holds on
("still", "any more", "yet"), whose newest note may word the new state without one of the
question's words. Shapes of the blind ``support`` and ``assistant`` sets, in words of
their own; each collection is larger than the stage's ten top candidates."""

from __future__ import annotations

from _dated import ranked_by_stage, ranking, write_dated
from test_recall_stages_update_words import OFFICE

from houkai import MemoryStore
from houkai.recall.asking import read
from houkai.recall.statements import change_speaks_of, content_words


def _words(*texts: str) -> frozenset[str]:
    return frozenset().union(*(content_words(t) for t in texts))


def test_a_word_of_change_speaks_of_its_own_sentence() -> None:
    se = "Ravi Menon is the solutions engineer for Ana's accounts. Lena Park went to the APAC pod."
    moved = (
        "Escalations for Ana's accounts go to Omar Haddad. Joanna Wells moved over to Support Ops."
    )
    assert not change_speaks_of(moved, _words(se))  # Joanna's move, not the engineer's
    # a sentence that names no subject of its own goes on about the note's
    go_live = "Wrenfield go-live night: cut-over 21:00, no incidents."
    assert change_speaks_of("Wrenfield launched 3 Nov, early! Now in maintenance.", _words(go_live))
    # one that shares a word with the notes it would update speaks of them
    old = "Database for the mobile app: Aurora Postgres."
    assert change_speaks_of(
        "Migrated the mobile app from Aurora Postgres to DynamoDB.", _words(old)
    )
    assert change_speaks_of(
        "Joanna Wells moved to Support Ops.", _words("Joanna Wells leads support.")
    )
    assert not change_speaks_of("Escalations go to Omar Haddad.", _words(se))  # no word of change
    # the subject is what a sentence names before its word of change, in any script; a
    # capitalised new value, or a pronoun, names none
    assert change_speaks_of("Moved to Express.", frozenset())
    assert change_speaks_of("Now on Linear.", frozenset())
    assert change_speaks_of("She moved to Ops.", frozenset())
    assert not change_speaks_of("Tomás moved to Billing.", _words(se))
    assert not change_speaks_of("Élodie Brun moved to Billing.", _words(se))


def test_a_change_told_of_someone_else_does_not_take_the_first_slot(store: MemoryStore) -> None:
    lead, engineer, escalations, *_ = write_dated(
        store,
        [
            ("Support lead for Ana's accounts is Joanna Wells; escalations go to her first.", 190),
            ("Ravi Menon is the SE for Ana's accounts. Lena Park went to the APAC pod.", 100),
            ("Escalations for Ana's accounts go to Omar Haddad. Joanna Wells moved over to "
             "Support Ops.", 50),
            ("SE on Ana's pod: Lena Park. Book her for integration work.", 192),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )  # fmt: skip
    ranked = ranking(store, "who's the SE on my accounts currently", k=10)
    ids = [mid for mid, _ in ranked]
    assert ids.index(engineer) < ids.index(escalations)
    # where the change is the one asked about, it still is the update
    ranked = ranking(store, "who handles escalations for my accounts now?", k=10)
    assert ranked[0][0] == escalations and lead in [mid for mid, _ in ranked]


def test_a_when_question_gets_the_newest_date_not_a_newer_note_without_one(
    store: MemoryStore,
) -> None:
    """The support tier was settled with the renewal, hours later: it holds every word of
    the question and echoes the term, but states no date, so it is no new renewal date. The
    group then has no update (the renewal says no word of change), and the renewal ranks
    first on its own score."""
    assert read("When is Corvid & Vane up for renewal?", None).when
    assert read("what date does Corvid & Vane renew?", None).when
    assert not read("Which support tier is Corvid & Vane on?", None).when
    assert not read("And when is it due?", None).when  # only the opening words are read
    first, renewed, tier, *_ = write_dated(
        store,
        [
            ("Corvid & Vane Outfitters renews on March 3, 2026.", 180),
            ("Corvid & Vane renewed! 2-year term on OF-5521, next renewal 3/3/2028.", 70),
            ("Corvid & Vane Outfitters SLA tier: Priority, included in the renewal at no extra "
             "cost to win the 2-year term.", 69.7),
            ("Corvid & Vane Outfitters is on the Growth plan.", 182),
            ("Corvid & Vane renewal call done; their CFO wanted a multi-year price lock.", 70.8),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )  # fmt: skip
    ids = [mid for mid, _ in ranking(store, "When is Corvid & Vane up for renewal?", k=10)]
    assert ids[0] == renewed and ids.index(tier) > ids.index(first)


def test_a_newer_note_without_a_date_does_not_keep_the_new_date_from_first_place(
    embedder,
) -> None:
    """The old renewal date outranks the new one on the blend's score. The newest note on
    the topic, the support tier, states no date, so it is no new renewal date; it used to
    leave the group without an update, and the old date first. The rest of the group stands
    on its own: the new date is its update (ADR 0108)."""
    question = "When is Corvid & Vane up for renewal?"
    dated = [
        ("Corvid & Vane Outfitters renews on March 3, 2026.", 180, 0.95),
        ("Corvid & Vane renewed! 2-year term on OF-5521, next renewal 3/3/2028.", 70, 0.90),
        ("Corvid & Vane Outfitters SLA tier: Priority, included in the renewal at no extra "
         "cost to win the 2-year term.", 69.7, 0.85),
        ("Corvid & Vane Outfitters is on the Growth plan.", 182, 0.80),
        ("Corvid & Vane renewal call done; their CFO wanted a multi-year price lock.", 70.8, 0.75),
    ]  # fmt: skip
    ranked = [c.memory.text for c in ranked_by_stage(embedder, dated, read(question, None))]
    assert ranked[0] == dated[1][0]
    assert ranked.index(dated[2][0]) > ranked.index(dated[0][0])  # the tier is no update
    # only for a question that asks when: otherwise the tier, settled with the renewal, is
    # the topic's newest note, and first
    other = read("What's new with the Corvid & Vane renewal?", None)
    assert ranked_by_stage(embedder, dated, other)[0].memory.text == dated[2][0]


def test_an_update_keeps_its_place_when_its_date_is_one_not_read_as_a_time(
    store: MemoryStore,
) -> None:
    """ "mid-September" is no time `states_time` reads, but the note says it moved: it
    stays the update for a question that asks when."""
    old, moved, *_ = write_dated(
        store,
        [
            ("Corvid & Vane Outfitters renews on March 3, 2026.", 180),
            ("Corvid & Vane renewal moved to mid-September, procurement asked for time.", 20),
            ("Corvid & Vane Outfitters is on the Growth plan.", 182),
            *((text, 90 + i) for i, text in enumerate(OFFICE)),
        ],
    )
    ranked = ranking(store, "When is Corvid & Vane up for renewal?", k=10)
    assert ranked[0][0] == moved and old in [mid for mid, _ in ranked]


def test_a_question_whether_a_state_holds_on_takes_a_newer_note_in_other_words(
    embedder,
) -> None:
    """ "Do I still eat fish?" expects that the answer may have changed: the newer note
    words the new state its own way and lacks "eat", one of the question's words. For such
    a question the newest may lack one (ADR 0108); asked plainly, it may not, and the older
    note, first on the blend's score, stays first."""
    assert read("Do I still eat fish?", None).persists
    assert read("Is Wrenfield live yet?", None).persists
    assert read("does Omar take escalations any more", None).persists
    assert not read("Do I eat fish?", None).persists
    assert not read("Are there any more open invoices?", None).persists  # a count
    assert not read("How is the Still Waters account?", None).persists  # a name
    assert "still" not in read("Do I still eat fish?", None).asked_terms  # no topic word
    assert read("Do I still eat fish?", None).to_dict()["persists"] is True
    dated = [
        ("User is pescatarian — eats fish but no meat.", 180, 0.95),
        ("User is vegetarian, no fish either.", 60, 0.90),
        ("Asked for a timeline for Thanksgiving day cooking.", 8, 0.70),
        ("Mochi gets dry food plus half a can of wet at night.", 170, 0.65),
    ]

    def first(question: str) -> str:
        return ranked_by_stage(embedder, dated, read(question, None))[0].memory.text

    assert first("Do I still eat fish?") == dated[1][0]
    assert first("Do I eat fish any more?") == dated[1][0]
    assert first("Do I eat fish?") == dated[0][0]
    # written in one sitting, twenty minutes apart: within the hour a newer note is an
    # update only when it says so, or when the question expects a change
    dated[0:2] = [(dated[0][0], 30 / (24 * 60), 0.95), (dated[1][0], 10 / (24 * 60), 0.90)]
    assert first("Do I still eat fish?") == dated[1][0]
    assert first("Do I eat fish?") == dated[0][0]
    # a question about the past keeps the sitting's notes apart: nothing moves
    past = ranked_by_stage(embedder, dated, read("Back then, was I still eating fish?", None))
    assert past[0].memory.text == dated[0][0]
    assert past[0].explain["stages"]["current_left"] == "within the hour, no update word"
