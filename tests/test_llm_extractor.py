"""The LLM extractors through the real ``openai`` and ``anthropic`` clients, against a
fake provider on loopback (tests/fake_llm_server.py): structured replies, provenance,
reconciliation decisions, retries, dead letters and malformed replies. The shared
limits (rate, concurrency) are in tests/test_llm_limits.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from fake_llm_server import FakeLLM, Step

from houkai.domain.model import ValidationError
from houkai.extraction.base import Candidate, ChatMessage, Neighbour
from houkai.extraction.llm import (
    DeadLetter,
    RetryLater,
    disposition,
    extractor_from_settings,
    make_llm_extractor,
    settings_options,
)
from houkai.extraction.registry import extractor_for

PROVIDERS = ("openai", "anthropic")

MESSAGES = [
    ChatMessage(
        "msg-1", "user", "I moved to Lisbon last spring, and I drink my coffee black.", ts=1.78e9
    ),
    ChatMessage("msg-2", "assistant", "Lisbon is lovely! Any plans for the weekend?"),
    ChatMessage("msg-3", "user", "We decided to use Postgres for the billing service."),
]


def memory(text: str, kind: str, ids: list[str], **extra: Any) -> dict[str, Any]:
    row = {
        "text": text,
        "kind": kind,
        "message_ids": ids,
        "importance": None,
        "tags": [],
        "event_date": None,
        "polarity": 0,
    }
    row.update(extra)
    return row


GOOD = {
    "memories": [
        memory("The user lives in Lisbon.", "fact", ["msg-1"], importance=0.8, tags=["home"]),
        memory("The user drinks coffee black.", "preference", ["msg-1"]),
        memory("Billing uses Postgres.", "decision", ["msg-3"], event_date="2026-03-01"),
    ]
}


@pytest.fixture()
def fake() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture()
def rclient(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


def extractor(fake: FakeLLM, provider: str, **options: Any):
    url = fake.anthropic_url if provider == "anthropic" else fake.openai_url
    options.setdefault("api_key", "test-key")
    options.setdefault("timeout", 5.0)
    return make_llm_extractor(provider, "test-model", base_url=url, **options)


# ---------------------------------------------------------------- extraction
@pytest.mark.parametrize("provider", PROVIDERS)
def test_candidates_come_back_with_message_id_provenance(fake: FakeLLM, provider: str) -> None:
    fake.push({"reply": GOOD, "usage": (321, 45)})
    result = extractor(fake, provider).extract(MESSAGES, summary="Earlier: talked about moving.")
    assert [c.text for c in result.candidates] == [m["text"] for m in GOOD["memories"]]
    assert [c.message_ids for c in result.candidates] == [("msg-1",), ("msg-1",), ("msg-3",)]
    assert [c.kind for c in result.candidates] == ["fact", "preference", "decision"]
    assert result.candidates[0].importance == 0.8 and result.candidates[0].tags == ("home",)
    assert result.candidates[2].event_ts is not None
    assert (result.usage.provider, result.usage.input_tokens, result.usage.output_tokens) == (
        provider,
        321,
        45,
    )
    assert result.usage.calls == 1
    # what went over the wire: the message ids and the summary, and a structured-output ask
    [seen] = fake.seen
    text = str(seen.body["messages"])
    assert "msg-1" in text and "msg-3" in text and "Earlier: talked about moving." in text
    assert "2026-05-28T20:26:40Z" in text  # the message's time, for relative dates
    if provider == "anthropic":
        assert seen.path == "/v1/messages"
        assert seen.body["tool_choice"] == {"type": "tool", "name": "record_memories"}
        assert seen.body["tools"][0]["input_schema"]["required"] == ["memories"]
    else:
        assert seen.path == "/v1/chat/completions"
        assert seen.body["response_format"]["type"] == "json_schema"
        assert seen.body["response_format"]["json_schema"]["strict"] is True


def test_tools_mode_forces_a_function_call(fake: FakeLLM) -> None:
    fake.push({"reply": GOOD})
    result = extractor(fake, "openai", mode="tools").extract(MESSAGES)
    assert len(result.candidates) == 3
    body = fake.seen[0].body
    assert body["tool_choice"]["function"]["name"] == "record_memories"
    assert "response_format" not in body


def test_ollama_uses_its_openai_endpoint_without_a_key(fake: FakeLLM) -> None:
    default = make_llm_extractor("ollama", "llama3.2")
    assert str(default.transport.client.base_url).rstrip("/") == "http://localhost:11434/v1"
    fake.push({"reply": GOOD})
    result = make_llm_extractor("ollama", "llama3.2", base_url=fake.openai_url).extract(MESSAGES)
    assert len(result.candidates) == 3
    assert result.usage.provider == "ollama" and result.usage.cost_usd == 0.0


def test_a_cloud_provider_without_a_key_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValidationError, match="OPENAI_API_KEY"):
        make_llm_extractor("openai", "gpt-4o-mini")
    monkeypatch.setenv("MY_KEY", "sk-from-env")
    made = make_llm_extractor("openai", "gpt-4o-mini", api_key_env="MY_KEY")
    assert made.transport.client.api_key == "sk-from-env"


def test_no_user_message_means_no_call(fake: FakeLLM) -> None:
    only_assistant = [ChatMessage("a1", "assistant", "How can I help?")]
    result = extractor(fake, "openai").extract(only_assistant)
    assert result.candidates == [] and result.usage.calls == 0
    assert fake.seen == []


def test_registry_builds_llm_extractors_from_settings(
    fake: FakeLLM, settings, rclient: redis.Redis
) -> None:
    configured = settings.replace(llm_base_url=fake.openai_url, llm_retries=1, llm_rate=0.0)
    made = extractor_for("llm:openai:gpt-4o-mini", **settings_options(configured))
    assert made.spec == "llm:openai:gpt-4o-mini" and made.policy.retries == 1
    limited = configured.replace(extractor="llm:ollama:qwen2.5", llm_rate=3.0, llm_concurrency=2)
    local = extractor_from_settings(limited, rclient)
    assert local.spec == "llm:ollama:qwen2.5"
    assert local.limiter.rate == 3.0 and local.semaphore.cap == 2
    assert local.limiter.key == f"{settings.key_prefix}:llm:rate:ollama"
    fake.push({"reply": GOOD})
    assert len(made.extract(MESSAGES).candidates) == 3


# ---------------------------------------------------------------- reconciliation
NEIGHBOURS = [
    Neighbour("01HZX-lisbon", "The user lives in Porto.", similarity=0.83, created_at=1.0),
    Neighbour("01HZX-coffee", "The user drinks coffee black.", similarity=0.97, created_at=2.0),
]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_decide_follows_scripted_add_update_noop(fake: FakeLLM, provider: str) -> None:
    made = extractor(fake, provider)
    moved = Candidate("The user lives in Lisbon.", message_ids=("msg-1",))
    same = Candidate("The user takes coffee black.", kind="preference")
    new = Candidate("Billing uses Postgres.", kind="decision")
    fake.push(
        # a contradiction: the stored "Porto" is superseded (alias m1 → its real id)
        {"reply": {"action": "UPDATE", "target_id": "m1", "reason": "moved"}},
        # a restatement: nothing to store
        {"reply": {"action": "NOOP", "target_id": "m2", "reason": "same"}},
        {"reply": {"action": "ADD", "target_id": None, "reason": "new"}},
    )
    update, usage = made.decide(moved, NEIGHBOURS)
    assert update is not None
    assert (update.action, update.target_id, update.reason) == ("UPDATE", "01HZX-lisbon", "moved")
    assert update.candidate is moved and usage.calls == 1
    noop, _ = made.decide(same, NEIGHBOURS)
    assert noop is not None and (noop.action, noop.target_id) == ("NOOP", "01HZX-coffee")
    add, _ = made.decide(new, NEIGHBOURS)
    assert add is not None and (add.action, add.target_id) == ("ADD", None)
    prompt = str(fake.seen[0].body)
    assert "m1: The user lives in Porto." in prompt and "The user lives in Lisbon." in prompt


def test_decide_with_no_neighbours_adds_without_a_call(fake: FakeLLM) -> None:
    decision, usage = extractor(fake, "openai").decide(Candidate("A new fact."), [])
    assert decision is not None and decision.action == "ADD"
    assert usage.calls == 0 and fake.seen == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_unknown_target_is_asked_again_then_dead_lettered(fake: FakeLLM, provider: str) -> None:
    fake.responder = lambda _req: {"reply": {"action": "UPDATE", "target_id": "m7", "reason": ""}}
    with pytest.raises(DeadLetter, match="not a stored memory offered") as caught:
        extractor(fake, provider, max_retries=2).decide(Candidate("x"), NEIGHBOURS)
    assert len(fake.seen) == 3 and caught.value.attempts == 3
    assert caught.value.usage.calls == 3 and caught.value.usage.input_tokens == 300


def test_a_real_stored_id_is_accepted_as_target(fake: FakeLLM) -> None:
    fake.push({"reply": {"action": "UPDATE", "target_id": "01HZX-coffee", "reason": "r"}})
    decision, _ = extractor(fake, "openai").decide(Candidate("x"), NEIGHBOURS)
    assert decision is not None and decision.target_id == "01HZX-coffee"


# ---------------------------------------------------------------- malformed replies
BAD_REPLIES = [
    {"content": "Sure! The user lives in Lisbon."},  # prose, not JSON
    {"content": '{"memories": [{"text": "The user lives in Lis'},  # cut off
    {"reply": {"facts": []}},  # wrong shape
    {"reply": {"memories": [memory("Invented.", "fact", ["msg-99"])]}},  # unknown message id
    {"reply": {"memories": [memory("", "fact", ["msg-1"])]}},  # empty text
    {"reply": {"memories": [memory("x", "rumour", ["msg-1"])]}},  # unknown kind
    {"reply": {"memories": [memory("x", "fact", ["msg-1"], importance=7)]}},
    {"reply": {"memories": [memory("x", "event", ["msg-1"], event_date="last spring")]}},
    {"body": "{not an API envelope"},  # a broken HTTP body
]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("bad", BAD_REPLIES, ids=range(len(BAD_REPLIES)))
def test_malformed_replies_never_become_memories(
    fake: FakeLLM, provider: str, bad: dict[str, Any]
) -> None:
    fake.responder = lambda _req: bad
    with pytest.raises(DeadLetter) as caught:
        extractor(fake, provider, max_retries=1).extract(MESSAGES)
    assert len(fake.seen) == 2 and caught.value.attempts == 2
    assert disposition(caught.value, 0, 5)[0] == "dead"


def test_a_malformed_reply_is_asked_again_and_recovers(fake: FakeLLM) -> None:
    fake.push({"content": "not json"}, {"reply": GOOD})
    result = extractor(fake, "openai").extract(MESSAGES)
    assert len(result.candidates) == 3
    assert result.usage.calls == 2 and result.usage.input_tokens == 200  # both were paid for


def test_a_fenced_json_reply_is_still_json(fake: FakeLLM) -> None:
    import json

    fake.push({"content": "```json\n" + json.dumps(GOOD) + "\n```"})
    assert len(extractor(fake, "openai").extract(MESSAGES).candidates) == 3


# ---------------------------------------------------------------- retries
@pytest.mark.parametrize("provider", PROVIDERS)
def test_retries_recover_from_429_500_and_a_timeout(fake: FakeLLM, provider: str) -> None:
    fake.push(
        {"status": 429, "retry_after": "0.3"},
        {"status": 500},
        {"delay": 6.0, "reply": GOOD},  # beyond the 1 s timeout: the client gives up
    )
    fake.responder = lambda _req: {"reply": GOOD}
    result = extractor(fake, provider, timeout=1.0).extract(MESSAGES)
    assert len(result.candidates) == 3
    assert [s.status for s in fake.seen[:2]] == [429, 500]
    assert len(fake.seen) == 4
    assert fake.seen[2].left == 0.0  # the slow one was given up on: it has not even answered
    # Retry-After is a floor on the wait before the next attempt
    assert fake.seen[1].arrived - fake.seen[0].left >= 0.25
    assert result.usage.calls == 1  # only the answered request cost tokens


@pytest.mark.parametrize("provider", PROVIDERS)
def test_transient_failures_give_up_into_retry_later_then_dead_letter(
    fake: FakeLLM, provider: str
) -> None:
    fake.responder = lambda _req: {"status": 503, "retry_after": "0"}
    with pytest.raises(RetryLater) as caught:
        extractor(fake, provider, max_retries=2).extract(MESSAGES)
    assert len(fake.seen) == 3 and caught.value.attempts == 3
    assert caught.value.retry_after is not None
    # the task maps it: retry while its own budget lasts, then the dead letter
    assert disposition(caught.value, 0, 3)[0] == "retry"
    assert disposition(caught.value, 3, 3) == ("dead", 0.0)


def test_a_long_retry_after_is_not_slept_through(fake: FakeLLM) -> None:
    fake.push({"status": 429, "retry_after": "3600"})
    with pytest.raises(RetryLater) as caught:
        extractor(fake, "openai").extract(MESSAGES)
    assert len(fake.seen) == 1 and caught.value.retry_after >= 3600


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_permanent_errors_dead_letter_at_once(fake: FakeLLM, status: int) -> None:
    fake.push({"status": status})
    with pytest.raises(DeadLetter):
        extractor(fake, "anthropic").extract(MESSAGES)
    assert len(fake.seen) == 1


# ---------------------------------------------------------------- redelivery
def test_a_redelivered_batch_reuses_the_validated_reply(
    fake: FakeLLM, rclient: redis.Redis
) -> None:
    prefix = f"t{uuid.uuid4().hex[:8]}"
    made = extractor(fake, "openai", client=rclient, prefix=prefix, max_retries=1)
    fake.push({"reply": GOOD})
    first = made.extract(MESSAGES)
    again = extractor(fake, "openai", client=rclient, prefix=prefix).extract(MESSAGES)
    assert again.candidates == first.candidates
    assert len(fake.seen) == 1 and again.usage.calls == 0  # not paid for twice
    # a malformed reply is never cached: the next delivery asks again
    fake.push({"content": "nope"}, {"content": "nope"})
    other = [ChatMessage("x1", "user", "I play the cello.")]
    with pytest.raises(DeadLetter):
        made.extract(other)
    fake.push({"reply": {"memories": [memory("The user plays the cello.", "fact", ["x1"])]}})
    assert [c.text for c in made.extract(other).candidates] == ["The user plays the cello."]
    for key in rclient.scan_iter(match=f"{prefix}:*"):
        rclient.delete(key)


def test_llm_settings_read_from_the_environment() -> None:
    from houkai.domain.config import load_settings

    env = {
        "HOUKAI_EXTRACTOR": "llm:ollama:llama3.2",
        "HOUKAI_LLM_RATE": "2.5",
        "HOUKAI_LLM_CONCURRENCY": "2",
        "HOUKAI_LLM_PRICES": "my-model=1/2",
    }
    loaded = load_settings(env=env)
    assert loaded.extractor == "llm:ollama:llama3.2"
    options = settings_options(loaded)
    assert options["rate"] == 2.5 and options["concurrency"] == 2
    assert options["prices"] == "my-model=1/2" and options["base_url"] is None
    with pytest.raises(ValidationError, match="HOUKAI_LLM_RATE"):
        load_settings(env={"HOUKAI_LLM_RATE": "fast"})


def test_a_long_session_goes_in_parts_and_a_retry_pays_only_for_the_rest(
    fake: FakeLLM, rclient: redis.Redis
) -> None:
    prefix = f"t{uuid.uuid4().hex[:8]}"
    long = [ChatMessage(f"p{i}", "user", f"Fact number {i}. " + "x" * 90) for i in range(6)]
    made = extractor(fake, "openai", client=rclient, prefix=prefix, batch_chars=250, max_retries=0)

    def answer(request: dict[str, Any]) -> Step:
        text = request["messages"][1]["content"]
        ids = [m.id for m in long if f'"id": "{m.id}"' in text]
        return {"reply": {"memories": [memory(f"Fact {i}.", "fact", [i]) for i in ids]}}

    fake.push({"reply": {"memories": []}}, {"status": 401})  # part 2 fails for good
    fake.responder = answer
    with pytest.raises(DeadLetter) as caught:
        made.extract(long)
    assert caught.value.usage.calls == 1  # part 1 was paid for: counted with the failure
    fake.steps.clear()
    fake.seen.clear()
    result = made.extract(long)  # the redelivery
    # three parts of two messages; part 1 came from the cache (and found nothing then)
    assert len(fake.seen) == 2 and result.usage.calls == 2
    assert [c.message_ids for c in result.candidates] == [("p2",), ("p3",), ("p4",), ("p5",)]
    for key in rclient.scan_iter(match=f"{prefix}:*"):
        rclient.delete(key)
