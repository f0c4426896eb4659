"""The no-LLM rules extractor (issue 30): what real chat turns keep, and what they drop."""

from __future__ import annotations

import datetime as dt

import pytest

from houkai.domain.model import ValidationError
from houkai.extraction.base import ChatMessage
from houkai.extraction.registry import extractor_for
from houkai.extraction.rules import RulesExtractor, event_time, rewrite, sentences

NOW = dt.datetime(2026, 12, 3, 9, 30, tzinfo=dt.UTC).timestamp()  # a Thursday


def extract(*turns: str, role: str = "user", name: str | None = None):
    messages = [
        ChatMessage(id=f"m{i}", role=role, content=t, ts=NOW, name=name)
        for i, t in enumerate(turns)
    ]
    return RulesExtractor().extract(messages).candidates


def texts(*turns: str, **kw) -> list[str]:
    return [c.text for c in extract(*turns, **kw)]


@pytest.mark.parametrize(
    "turn",
    [
        "hi!",
        "Thanks so much, that was really helpful!",
        "ok",
        "lol 😂",
        "Can you help me write a cover letter?",
        "What's the weather like in Berlin?",
        "Write a haiku about autumn.",
        "I think it might rain tomorrow.",
        "I'm not sure what to do.",
        "Could you summarize this article for me? It's about the climate.",
        "Sounds good 👍",
        "How do I reset my password",
    ],
)
def test_chit_chat_questions_requests_and_hedges_keep_nothing(turn):
    assert extract(turn) == []


def test_assistant_filler_keeps_nothing():
    assert (
        extract("Great question! I live to help. I prefer concise answers.", role="assistant") == []
    )


def test_facts_become_statements_about_the_user_with_their_message():
    found = extract("Hey! My name is Alice and I work at Acme as a data engineer.")
    assert [c.text for c in found] == [
        "User's name is Alice.",
        "User works at Acme as a data engineer.",
    ]
    assert all(c.message_ids == ("m0",) and c.kind == "fact" for c in found)
    assert "slot:name" in found[0].tags and "slot:employer" in found[1].tags


def test_preferences_carry_polarity_and_a_slot():
    love, hate, stopped = extract(
        "I love sushi.", "I really hate cilantro.", "I don't like sushi anymore."
    )
    assert (love.kind, love.polarity, love.text) == ("preference", 1, "User loves sushi.")
    assert (hate.polarity, hate.text) == (-1, "User really hates cilantro.")
    assert stopped.polarity == -1 and "slot:pref:sushi" in stopped.tags
    assert "slot:pref:sushi" in love.tags
    fav = extract("My favourite colour is green.")[0]
    assert fav.kind == "preference" and "slot:favourite:colour" in fav.tags
    assert texts("btw I'm allergic to peanuts") == ["User is allergic to peanuts."]


def test_decisions_keep_the_team_voice():
    found = extract(
        "We decided to use Postgres for the billing service.", "Let's go with FastAPI for the API."
    )
    assert [c.kind for c in found] == ["decision", "decision"]
    assert found[0].text == "We decided to use Postgres for the billing service."
    assert found[0].importance > 0.6


def test_dated_events_are_dated_from_the_message():
    (dentist,) = extract("I went to the dentist yesterday.")
    assert dentist.kind == "event" and dentist.type == "episodic"
    assert dentist.text == "User went to the dentist yesterday (on 2026-12-02)."
    assert dt.datetime.fromtimestamp(dentist.event_ts, dt.UTC).date() == dt.date(2026, 12, 2)
    (promo,) = extract("I got promoted to senior engineer on 2024-05-03.")
    assert promo.text == "User got promoted to senior engineer on 2024-05-03."
    (moved,) = extract("Actually, I moved to Berlin last month.")
    assert "slot:home" in moved.tags  # a dated move still replaces where the user lives


def test_remember_that_keeps_what_follows_whatever_it_is():
    (told,) = extract("Please remember that my daughter's birthday is on March 3rd.")
    assert told.text == "User's daughter's birthday is on March 3rd." and told.importance == 0.8


def test_the_speakers_name_is_used_and_duplicates_fold():
    assert texts("I live in Rome. I live in Rome.", name="Marco") == ["Marco lives in Rome."]


def test_event_time_reads_common_expressions():
    day = dt.timedelta(days=1)
    base = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)
    assert event_time("last Friday I met Ana", NOW) == (base - 6 * day).timestamp()
    assert event_time("three weeks ago", NOW) == (base - 21 * day).timestamp()
    assert event_time("on 14 February we married", NOW) == base.replace(month=2, day=14).timestamp()
    assert event_time("in 2019 I moved", NOW) == dt.datetime(2019, 7, 1, tzinfo=dt.UTC).timestamp()
    assert event_time("I like tea", NOW) is None


def test_sentences_and_rewrite():
    assert sentences("I use e.g. vim. It costs 3.50 a month!\nNew line") == [
        "I use e.g. vim.",
        "It costs 3.50 a month!",
        "New line",
    ]
    assert rewrite("i've been vegan since 2019") == "User has been vegan since 2019."
    assert rewrite("I watch films with my wife") == "User watches films with the user's wife."


def test_the_registry_builds_it_and_it_never_decides():
    extractor = extractor_for("rules")
    assert extractor.spec == "rules"
    decision, usage = extractor.decide(extract("I live in Oslo.")[0], [])
    assert decision is None and usage.calls == 0
    with pytest.raises(ValidationError):
        extractor_for("rules", bogus=1)


@pytest.mark.parametrize(
    "turn",
    [
        "My code throws a KeyError when I run the tests",
        "no, I meant the other function",
        "I don't think that's right",
        "I'd like a summary of the article below",
        "This function fails on empty input.",
    ],
)
def test_talk_about_the_task_at_hand_keeps_nothing(turn):
    assert extract(turn) == []


def test_job_and_employer_are_different_slots():
    (job,) = extract("I work remotely as a UX designer.")
    (firm,) = extract("I now work for Globex.")
    assert "slot:job" in job.tags and "slot:employer" in firm.tags
    assert texts("i live in toronto btw") == ["User lives in toronto."]
    assert texts("I'm a big fan of Studio Ghibli movies")[0].startswith("User is a big fan")
    assert extract("I'm a big fan of Studio Ghibli movies")[0].kind == "preference"
    assert texts("I need to finish the report by Friday") == [
        "User needs to finish the report by Friday."
    ]
