"""Sessions and extraction through the library (issue 30): idempotent messages, the
window and summary, reconciliation decisions, provenance, re-delivery."""

from __future__ import annotations

import time

import pytest

from houkai.domain.model import StateConflict, ValidationError
from houkai.extraction.base import Candidate, Decision, ExtractResult, Usage
from houkai.pipeline import outbox
from houkai.store.sessions import SessionNotFound


@pytest.fixture()
def sstore(make_store, settings):
    return make_store(settings=settings.replace(pipeline_mode="inline", session_window=4))


def user(mid: str, text: str) -> dict:
    return {"id": mid, "role": "user", "content": text}


def bot(mid: str, text: str) -> dict:
    return {"id": mid, "role": "assistant", "content": text}


def test_messages_are_idempotent_on_id_and_nothing_runs_inline(sstore):
    out = sstore.add_messages("s1", [user("m1", "I live in Paris."), bot("m2", "Nice!")])
    assert out["added"] == 2 and out["pending"] == 2
    again = sstore.add_messages("s1", [user("m1", "I live in Paris."), user("m3", "ok")])
    assert again["added"] == 1 and again["pending"] == 3
    assert sstore.count() == 0  # the extractor did not run inside the request
    ctx = sstore.session("s1")
    assert [m["id"] for m in ctx.window] == ["m1", "m2", "m3"]
    assert all(not m["extracted"] for m in ctx.window)
    generated = sstore.add_messages("s1", [{"role": "user", "content": "hello there friend"}])
    assert generated["added"] == 1 and len(generated["ids"][0]) == 36


def test_extraction_adds_memories_with_provenance_and_scope(sstore):
    sstore.add_messages(
        "chat-1",
        [
            user("u1", "Hi! I live in Paris and I work at Acme."),
            bot("a1", "Great, how can I help you today?"),
            user("u2", "Can you recommend a restaurant?"),
            user("u3", "I really hate cilantro."),
        ],
        user_id="alice",
        agent_id="concierge",
    )
    report = sstore.extract_session("chat-1")
    assert report["status"] == "done" and report["messages"] == 4
    texts = {d["text"]: d for d in report["decisions"]}
    assert set(texts) == {
        "User lives in Paris.",
        "User works at Acme.",
        "User really hates cilantro.",
    }
    assert all(d["action"] == "ADD" for d in report["decisions"])
    memories = sstore.list_recent(user_id="alice")
    assert len(memories) == 3
    paris = next(m for m in memories if "Paris" in m.text)
    assert (paris.user_id, paris.agent_id, paris.session_id) == ("alice", "concierge", "chat-1")
    assert paris.message_ids == ["u1"] and "slot:home" in paris.tags
    hate = next(m for m in memories if "cilantro" in m.text)
    assert hate.polarity == -1
    window = {m["id"]: m for m in sstore.session("chat-1").window}
    assert all(m["extracted"] for m in window.values())
    assert {e["id"] for e in window["u1"]["became"]} >= {paris.id}
    assert window["a1"]["became"] == [] and window["u2"]["became"] == []
    assert sstore.session("chat-1").pending == 0


def test_update_supersedes_and_duplicate_is_noop(sstore):
    sstore.add_messages("s", [user("1", "I live in Paris.")], user_id="bob")
    sstore.extract_session("s")
    sstore.add_messages("s", [user("2", "I moved to Berlin last month.")], user_id="bob")
    second = sstore.extract_session("s")
    assert [d["action"] for d in second["decisions"]] == ["UPDATE"]
    live = sstore.list_recent(user_id="bob")
    assert [m.text.split(" (on")[0] for m in live] == ["User moved to Berlin last month"]
    old = sstore.list_recent(user_id="bob", include_superseded=True)[-1]
    assert old.text == "User lives in Paris." and old.superseded_by == live[0].id
    assert any(link.rel == "supersedes" and link.to == old.id for link in live[0].links)
    history = sstore.history(old.id)
    assert [e.op for e in history][-1] == "supersede"

    sstore.add_messages("s", [user("3", "I moved to Berlin last month.")], user_id="bob")
    third = sstore.extract_session("s")
    assert [d["action"] for d in third["decisions"]] == ["NOOP"]
    assert len(sstore.list_recent(user_id="bob")) == 1


def test_contradicting_preference_replaces_the_old_one(sstore):
    sstore.add_messages("p", [user("1", "I love sushi.")])
    sstore.extract_session("p")
    sstore.add_messages("p", [user("2", "I don't like sushi anymore.")])
    report = sstore.extract_session("p")
    assert [d["action"] for d in report["decisions"]] == ["UPDATE"]
    assert [m.text for m in sstore.list_recent()] == ["User doesn't like sushi anymore."]


def test_scopes_do_not_reconcile_across_users(sstore):
    sstore.add_messages("a", [user("1", "I live in Paris.")], user_id="ann")
    sstore.add_messages("b", [user("1", "I live in Rome.")], user_id="ben")
    sstore.extract_session("a")
    sstore.extract_session("b")
    assert [m.text for m in sstore.list_recent(user_id="ann")] == ["User lives in Paris."]
    assert [m.text for m in sstore.list_recent(user_id="ben")] == ["User lives in Rome."]


def test_re_delivery_makes_no_new_memory(sstore):
    sstore.add_messages("r", [user("1", "We decided to use Postgres for billing.")])
    first = sstore.extract_session("r")
    assert first["added"] == 1
    # a re-delivered job, and a crash before the commit (messages still pending)
    again = sstore.extract_session("r")
    assert again["status"] == "idle" and sstore.count() == 1
    sstore.client.delete(sstore.keys.session_results("r"))
    sstore.client.hset(sstore.keys.session("r"), "pending", 1)
    redo = sstore.extract_session("r")
    assert redo["messages"] == 1 and sstore.count() == 1
    # the message itself sent again is not new either
    assert sstore.add_messages("r", [user("1", "We decided to use Postgres.")])["added"] == 0


def test_an_update_interrupted_before_its_supersede_is_finished(sstore):
    from houkai.sessions import extract

    sstore.add_messages("x", [user("1", "My name is Sam.")])
    sstore.extract_session("x")
    sstore.add_messages("x", [user("2", "Call me Samantha from now on, please.")])
    calls = []
    real = type(sstore).supersede

    def crash(self, old, new):
        calls.append((old, new))
        raise RuntimeError("worker killed")

    type(sstore).supersede = crash
    try:
        with pytest.raises(RuntimeError):
            sstore.extract_session("x")
    finally:
        type(sstore).supersede = real
    assert sstore.session("x").pending == 1  # not committed: nothing lost
    report = sstore.extract_session("x")
    assert [d["action"] for d in report["decisions"]] == ["UPDATE"]
    assert report["decisions"][0]["id"] == calls[0][1]  # the same memory, not a second one
    assert len(sstore.list_recent()) == 1
    assert extract.memory_id_for  # the deterministic id is what made this work


def test_window_overflow_folds_into_the_summary_after_extraction(sstore):
    turns = [
        user("1", "I live in Lisbon."),
        bot("2", "Lisbon is lovely."),
        user("3", "Thanks!"),
        user("4", "I prefer window seats on flights."),
        bot("5", "Noted."),
        user("6", "We decided to fly with TAP."),
    ]
    sstore.add_messages("w", turns)
    before = sstore.session("w", memories=False)
    assert before.summary == "" and len(before.window) == 4
    assert sstore.session_state.messages("w")[0]["id"] == "1"  # pending: kept past the window
    sstore.extract_session("w")
    after = sstore.session("w", memories=False)
    assert [m["id"] for m in after.window] == ["3", "4", "5", "6"]
    assert after.summary == "User: I live in Lisbon.\nAssistant: Lisbon is lovely."
    assert sstore.session_state.messages("w")[0]["id"] == "3"


def test_session_context_packs_relevant_memories_within_budget(sstore):
    sstore.remember("The user's dog is called Rex", user_id="kim")
    sstore.remember("Someone else's dog is called Fido", user_id="lee")
    sstore.add_messages("k", [user("1", "What is my dog called again?")], user_id="kim")
    ctx = sstore.session("k", budget=300)
    assert ctx.query == "What is my dog called again?"
    assert [p.memory.text for p in ctx.memories.items] == ["The user's dog is called Rex"]
    assert "Rex" in ctx.text and "Fido" not in ctx.text and "user: What is my dog" in ctx.text
    assert ctx.used_tokens <= 300


def test_sessions_list_get_delete_and_errors(sstore):
    sstore.add_messages("one", [user("1", "hello there my friend")])
    sstore.add_messages("two", [user("1", "hello again my friend")], agent_id="bot")
    listed = sstore.sessions()
    assert [s["session_id"] for s in listed] == ["two", "one"]
    assert listed[0]["agent_id"] == "bot" and listed[0]["pending"] == 1
    assert sstore.delete_session("one") is True
    assert sstore.delete_session("one") is False
    with pytest.raises(SessionNotFound):
        sstore.session("one")
    with pytest.raises(ValidationError):
        sstore.add_messages("two", [{"role": "wizard", "content": "x"}])
    with pytest.raises(ValidationError):
        sstore.add_messages("two", [{"role": "user", "content": "  "}])
    with pytest.raises(ValidationError):
        sstore.add_messages("two", [])
    with pytest.raises(ValidationError):
        sstore.add_messages(" ", [user("1", "hi")])
    with pytest.raises(StateConflict):
        sstore.add_messages("two", [user("2", "x y z")], agent_id="another")


class Scripted:
    """An extractor that decides itself (as an LLM one would)."""

    spec = "llm:openai:scripted"

    def __init__(self, action: str) -> None:
        self.action = action
        self.seen = []

    def extract(self, messages, *, summary=""):
        return ExtractResult(
            [Candidate(text=m.content, message_ids=(m.id,)) for m in messages],
            Usage(provider="openai", model="scripted", input_tokens=10, calls=1),
        )

    def decide(self, candidate, neighbours):
        self.seen.append(list(neighbours))
        if self.action == "NOOP" and neighbours:
            return Decision("NOOP", candidate, neighbours[0].id, "llm"), Usage(calls=1)
        if self.action == "BOGUS":
            return Decision("UPDATE", candidate, "not-a-neighbour", "llm"), Usage(calls=1)
        return None, Usage()


def test_an_extractor_decision_wins_and_a_bad_one_falls_back(sstore):
    from houkai.extraction.usage import usage_summary

    sstore.remember("Tea is served at four")
    sstore.add_messages("l", [user("1", "Tea is served at four o'clock")])
    report = sstore.extract_session("l", extractor=Scripted("NOOP"))
    assert [d["action"] for d in report["decisions"]] == ["NOOP"]
    sstore.add_messages("l", [user("2", "The office closes at six")])
    report = sstore.extract_session("l", extractor=Scripted("BOGUS"))
    assert [d["action"] for d in report["decisions"]] == ["ADD"]  # the rules decided
    totals = usage_summary(sstore.client, sstore.keys)
    assert totals["providers"]["openai"]["models"]["scripted"]["input_tokens"] == 20


def test_a_new_number_is_news_and_a_restatement_is_not(sstore):
    sstore.add_messages("n", [user("1", "I keep a red lamp number 3 in my attic.")])
    sstore.extract_session("n")
    sstore.add_messages("n", [user("2", "I keep a red lamp number 20 in my attic.")])
    assert [d["action"] for d in sstore.extract_session("n")["decisions"]] == ["ADD"]
    sstore.add_messages("n", [user("3", "I prefer green tea.")])
    sstore.extract_session("n")
    sstore.add_messages("n", [user("4", "Honestly, I really prefer green tea.")])
    assert [d["action"] for d in sstore.extract_session("n")["decisions"]] == ["NOOP"]
    assert sstore.count() == 3


def test_an_anonymous_session_never_replaces_a_users_memory(sstore):
    sstore.add_messages("alice-chat", [user("1", "I live in Paris.")], user_id="alice")
    sstore.extract_session("alice-chat")
    sstore.add_messages("anon", [user("1", "I live in Rome.")])
    assert [d["action"] for d in sstore.extract_session("anon")["decisions"]] == ["ADD"]
    assert [m.text for m in sstore.list_recent(user_id="alice")] == ["User lives in Paris."]
    sstore.delete_session("anon")
    from houkai.sessions.extract import run_extraction  # a job for a deleted session

    assert run_extraction(sstore, "anon").status == "missing"
    assert sstore.client.zscore(sstore.keys.sessions_due, "anon") is None


def test_a_resent_message_is_no_activity_and_a_deleted_session_stays_deleted(sstore):
    sstore.add_messages("q", [user("1", "I live in Quito.")])
    before = sstore.session_state.meta("q")["updated_at"]
    sstore.add_messages("q", [user("1", "I live in Quito.")])
    assert sstore.session_state.meta("q")["updated_at"] == before  # the debounce is not pushed
    state = sstore.session_state
    pending = state.pending("q")
    state.delete("q")  # deleted while its extraction ran: the commit must not revive it
    assert state.commit("q", {m.id: [] for m in pending}, 0) == 0
    assert state.meta("q") is None and sstore.sessions() == []


class Sloppy(Scripted):
    """An extractor whose candidates have a wrong type, a bad tag and an empty text."""

    def extract(self, messages, *, summary=""):
        m = messages[0]
        return ExtractResult(
            [
                Candidate(
                    text="Ravi plays the sitar", type="bogus", tags=("a,b",), message_ids=(m.id,)
                ),
                Candidate(text="   ", message_ids=(m.id,)),
            ],
            Usage(),
        )


def test_a_sloppy_extractor_does_not_fail_the_batch(sstore):
    sstore.add_messages("y", [user("1", "whatever was said")])
    report = sstore.extract_session("y", extractor=Sloppy("ADD"))
    assert [d["action"] for d in report["decisions"]] == ["ADD"]
    (memory,) = sstore.list_recent()
    assert memory.type == "semantic" and memory.tags == ["fact"] and memory.message_ids == ["1"]
    assert sstore.session("y").pending == 0


def test_metrics_count_sessions_and_extraction_usage(sstore):
    assert "sessions" not in sstore.metrics()
    sstore.add_messages("u", [user("1", "I live in Utrecht.")])
    sstore.extract_session("u")
    metrics = sstore.metrics()
    assert metrics["sessions"] == 1


def test_a_broker_that_refuses_loses_no_message(make_store, settings, monkeypatch):
    """Adding messages never touches the broker; a sweep whose send the broker refuses
    leaves the session due, its messages pending and no stale outbox entry."""
    from houkai.sessions.trigger import sweep_due

    store = make_store(settings=settings.replace(pipeline_mode="celery"))

    def refuse(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(
        "houkai.workers.app.get_app", lambda s: type("A", (), {"send_task": refuse})()
    )
    k = store.settings.extract_after_messages
    out = store.add_messages("b", [user(str(i), f"I live in Bergen {i}.") for i in range(k)])
    assert out["added"] == k and out["extraction_queued"] is True  # due now: K reached
    refusing = type("A", (), {"send_task": refuse})()
    assert sweep_due(store.client, store.settings, app=refusing, grace=0.0) == 0
    assert len(store.session_state.pending("b")) == k
    assert store.client.zscore(store.keys.sessions_due, "b") is not None  # still the sweep's
    assert not store.client.exists(store.keys.session_queued("b"))  # the next sweep retries
    tasks = store.client.hvals(outbox.tasks_key(store.keys.prefix))
    assert not [t for t in tasks if store.collection_name.encode() in t]  # no stale entry
    assert store.add_messages("b", [user("x", "I like rain.")])["added"] == 1


def test_the_sweep_sends_overdue_sessions_once(sstore):
    from houkai.sessions.trigger import SWEEP_GRACE, sweep_due

    sent = []

    class App:
        def send_task(self, name, kwargs, queue, task_id, **options):
            sent.append((name, kwargs["session_id"], queue))

    sstore.add_messages("late", [user("1", "I live in Lima.")])
    later = sstore.client.zscore(sstore.keys.sessions_due, "late") + SWEEP_GRACE + 1
    settings = sstore.settings
    assert sweep_due(sstore.client, settings, app=App(), now=later) >= 1
    assert ("houkai.extract_session", "late", "extract") in sent
    sweep_due(sstore.client, settings, app=App(), now=later)  # the queued marker: not twice
    assert [s for s in sent if s[1] == "late"] == [("houkai.extract_session", "late", "extract")]


def test_a_message_below_k_publishes_nothing_and_the_idle_sweep_sends_it(
    make_store, settings, monkeypatch
):
    """The request that adds messages writes to Redis only; an idle session is sent by the
    workers' due-session sweep, not by a delayed task per message."""
    from houkai.sessions.trigger import sweep_due

    store = make_store(settings=settings.replace(pipeline_mode="celery"))
    sent: list[dict] = []

    class App:
        def send_task(self, name, kwargs, **options):
            sent.append({"name": name, **kwargs, **options})

    monkeypatch.setattr("houkai.workers.app.get_app", lambda s: App())
    for i in range(store.settings.extract_after_messages - 1):
        store.add_messages("k", [user(str(i), f"I own a bicycle number {i}.")])
    assert sent == []  # no broker publish below K
    due = store.client.zscore(store.keys.sessions_due, "k")
    assert sweep_due(store.client, store.settings, app=App(), now=due - 1, grace=0.0) == 0
    assert sweep_due(store.client, store.settings, app=App(), now=due + 0.1, grace=0.0) == 1
    assert [s["session_id"] for s in sent] == ["k"] and "countdown" not in sent[0]
    store.client.delete(store.keys.session_queued("k"))
    before = time.time()
    out = store.add_messages("k2", [user(str(i), f"I play song {i}.") for i in range(8)])
    assert out["extraction_queued"] is True and [s["session_id"] for s in sent] == ["k"]
    assert store.client.zscore(store.keys.sessions_due, "k2") <= time.time()  # due now
    assert store.client.zscore(store.keys.sessions_due, "k2") >= before
    assert sweep_due(store.client, store.settings, app=App(), grace=0.0) == 1
    assert [s["session_id"] for s in sent] == ["k", "k2"]  # K reached: the next sweep sends it


def test_adding_messages_is_one_round_trip(sstore):
    """The request's whole Redis work, the call counter included, is one script call."""
    sstore.add_messages("warm", [user("0", "I live in Oslo.")])
    calls = []
    original = sstore.client.execute_command

    def counting(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    sstore.client.execute_command = counting
    try:
        sstore.add_messages("one", [user("1", "I live in Rome."), user("2", "I like figs.")])
    finally:
        del sstore.client.execute_command
    assert calls == ["EVALSHA"]
    assert sstore.metrics()["calls"]["add_messages"] >= 3
