"""The pipeline's shared limits for LLM calls, on the embedded Redis: the token bucket
(one rate across processes), the concurrency cap (with leases a killed worker cannot
leak), and usage accounting per provider and per job."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from _childenv import child_env
from fake_llm_server import FakeLLM, max_in_window

from houkai.extraction.base import ChatMessage, Usage
from houkai.extraction.llm import RetryLater, make_llm_extractor
from houkai.extraction.llm.concurrency import Semaphore
from houkai.extraction.llm.ratelimit import TokenBucket
from houkai.extraction.usage import record_usage, usage_summary

EMPTY = {"reply": {"memories": []}}


@pytest.fixture()
def rclient(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture()
def prefix(rclient: redis.Redis) -> Iterator[str]:
    name = f"llmtest{uuid.uuid4().hex[:8]}"
    yield name
    for key in rclient.scan_iter(match=f"{name}:*"):
        rclient.delete(key)


# ---------------------------------------------------------------- token bucket
def test_token_bucket_grants_a_burst_then_the_rate(rclient: redis.Redis, prefix: str) -> None:
    bucket = TokenBucket(rclient, f"{prefix}:bucket", rate=2.0, burst=3)
    t0 = 1_000_000.0
    assert [bucket.try_acquire(now=t0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.try_acquire(now=t0) == pytest.approx(0.5)  # one token per 0.5 s
    assert bucket.try_acquire(now=t0 + 0.25) == pytest.approx(0.25)
    assert bucket.try_acquire(now=t0 + 0.5) == 0.0
    assert bucket.try_acquire(now=t0 + 0.5) == pytest.approx(0.5)
    # idle time refills only up to the burst
    assert [bucket.try_acquire(now=t0 + 100) for _ in range(4)][-1] > 0
    # a clock that steps back grants nothing extra
    assert bucket.try_acquire(now=t0 + 50) > 0


def test_token_bucket_deadline_is_retry_later(rclient: redis.Redis, prefix: str) -> None:
    bucket = TokenBucket(rclient, f"{prefix}:bucket", rate=0.01, burst=1)
    bucket.acquire(timeout=0)
    with pytest.raises(RetryLater) as caught:
        bucket.acquire(timeout=0.1)
    assert caught.value.retry_after == pytest.approx(100, rel=0.05)


CHILD = """
import json, sys, redis
from houkai.extraction.base import ChatMessage
from houkai.extraction.llm import make_llm_extractor
url, redis_url, prefix, tag, calls, limits = sys.argv[1:7]
made = make_llm_extractor(
    "openai", "m", base_url=url, api_key="k", client=redis.Redis.from_url(redis_url),
    prefix=prefix, wait=60, cache_ttl=0, **json.loads(limits),
)
for i in range(int(calls)):
    made.extract([ChatMessage(f"{tag}-{i}", "user", f"worker {tag} message {i}")])
"""


def two_workers(fake: FakeLLM, redis_url: str, prefix: str, calls: int, **limits: float) -> None:
    """Two worker processes, each making *calls* extractions under *limits*."""
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD,
                fake.openai_url,
                redis_url,
                prefix,
                tag,
                str(calls),
                json.dumps(limits),
            ],
            env=child_env(),
            cwd=str(Path(__file__).parent),
        )
        for tag in ("a", "b")
    ]
    for child in children:
        assert child.wait(timeout=120) == 0


def test_the_rate_holds_across_two_processes(redis_url: str, prefix: str) -> None:
    """Two worker processes share one bucket (4 requests/s, burst 2): however the OS
    schedules them, no window at the server holds more than the bucket allows."""
    calls = 6
    with FakeLLM() as fake:
        fake.responder = lambda _req: EMPTY
        two_workers(fake, redis_url, prefix, calls, rate=4.0, burst=2)
        seen = fake.requests("/chat/completions")
    assert len(seen) == 2 * calls
    tags = {str(s.body["messages"][1]["content"]).split("worker ")[1][0] for s in seen}
    assert tags == {"a", "b"}
    arrivals = [s.arrived for s in seen]
    # a 1 s window may hold the burst plus 1 s of refill, plus 0.5 s of slack for the
    # hop from the grant in Redis to the arrival here (12 requests without the limit)
    assert max_in_window(arrivals, 1.0) <= 2 + 4 * 1.5
    assert max_in_window(arrivals, 0.25) <= 2 + 4 * 0.75


# ---------------------------------------------------------------- concurrency
def test_the_concurrency_cap_holds_across_two_processes(redis_url: str, prefix: str) -> None:
    with FakeLLM() as fake:
        fake.responder = lambda _req: {"delay": 0.2, **EMPTY}
        two_workers(fake, redis_url, prefix, 4, concurrency=1)
        assert len(fake.seen) == 8
        assert fake.max_inflight == 1  # back-to-back 0.2 s calls from two processes: never two


def test_the_concurrency_cap_holds(rclient: redis.Redis, prefix: str) -> None:
    with FakeLLM() as fake:
        fake.responder = lambda _req: {"delay": 0.3, **EMPTY}
        made = make_llm_extractor(
            "anthropic",
            "m",
            base_url=fake.anthropic_url,
            api_key="k",
            client=rclient,
            prefix=prefix,
            concurrency=2,
            cache_ttl=0,
        )
        errors: list[BaseException] = []

        def work(i: int) -> None:
            try:
                made.extract([ChatMessage(f"c{i}", "user", f"message {i}")])
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert errors == []
        assert len(fake.seen) == 6
        assert fake.max_inflight <= 2
    assert rclient.zcard(f"{prefix}:llm:slots:anthropic") == 0  # every slot released


def test_a_killed_workers_slot_frees_when_its_lease_ends(rclient: redis.Redis, prefix: str) -> None:
    slots = Semaphore(rclient, f"{prefix}:slots", cap=2, lease=30)
    t0 = 2_000_000.0
    assert slots.try_take("dead-worker", now=t0)  # taken, never released
    assert slots.try_take("w1", now=t0 + 1)
    assert not slots.try_take("w2", now=t0 + 2)  # full
    assert slots.try_take("w1", now=t0 + 3)  # a holder may renew its lease
    assert slots.try_take("w2", now=t0 + 31)  # the dead worker's lease ran out
    assert not slots.try_take("w3", now=t0 + 31)


def test_no_slot_within_the_wait_is_retry_later(rclient: redis.Redis, prefix: str) -> None:
    slots = Semaphore(rclient, f"{prefix}:slots", cap=1, lease=30)
    assert slots.try_take("holder")
    with pytest.raises(RetryLater, match="concurrency cap 1"), slots.slot(timeout=0.2):
        pass


# ---------------------------------------------------------------- usage
def test_usage_is_recorded_per_provider_model_and_job(rclient: redis.Redis, prefix: str) -> None:
    base = f"{prefix}:llmusage:coll"
    with FakeLLM() as fake:
        fake.responder = lambda _req: {**EMPTY, "usage": (1000, 200)}
        openai_x = make_llm_extractor(
            "openai", "gpt-4o-mini-2024-07-18", base_url=fake.openai_url, api_key="k"
        )
        local = make_llm_extractor("ollama", "llama3.2", base_url=fake.openai_url)
        first = openai_x.extract([ChatMessage("u1", "user", "hello there")]).usage
        second = local.extract([ChatMessage("u2", "user", "hello again")]).usage
    assert first.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)  # gpt-4o-mini
    assert second.cost_usd == 0.0  # an unknown model costs nothing, its tokens count
    assert record_usage(rclient, base, "job-1", first, once="job-1:batch-1")
    assert not record_usage(rclient, base, "job-1", first, once="job-1:batch-1")  # redelivery
    assert record_usage(rclient, base, "job-2", second)
    total = usage_summary(rclient, base)
    assert (total["input_tokens"], total["output_tokens"], total["calls"]) == (2000, 400, 2)
    assert total["cost_usd"] == pytest.approx(first.cost_usd)
    openai_row = total["providers"]["openai"]
    assert openai_row["models"]["gpt-4o-mini-2024-07-18"]["input_tokens"] == 1000
    assert total["providers"]["ollama"]["input_tokens"] == 1000
    job = usage_summary(rclient, base, "job-1")
    assert job["calls"] == 1 and set(job["providers"]) == {"openai"}
    assert 0 < rclient.ttl(f"{base}:job:job-1") <= 7 * 86400
    assert usage_summary(rclient, base, "no-such-job")["calls"] == 0
    assert record_usage(rclient, base, None, Usage())  # nothing spent: nothing written


def test_prices_are_configurable(rclient: redis.Redis) -> None:
    from houkai.domain.model import ValidationError
    from houkai.extraction.llm.pricing import cost, parse_prices, price_table

    table = price_table("my-model=1/2, gpt-4o-mini=0/0")
    assert cost("my-model-v2", 1_000_000, 1_000_000, table) == 3.0
    assert cost("gpt-4o-mini", 10, 10, table) == 0.0
    assert cost("unheard-of", 10, 10, table) == 0.0
    with pytest.raises(ValidationError, match="model=input/output"):
        parse_prices("broken")


def test_redis_out_of_reach_is_retry_later_not_a_dead_letter() -> None:
    """The limits live in Redis; when it is down the job waits, it is not parked."""
    from houkai.db.server import free_port

    gone = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5)
    with FakeLLM() as fake:
        made = make_llm_extractor(
            "openai",
            "m",
            base_url=fake.openai_url,
            api_key="k",
            client=gone,
            rate=5.0,
            cache_ttl=0,
        )
        with pytest.raises(RetryLater, match="Redis"):
            made.extract([ChatMessage("u1", "user", "hello")])
        assert fake.seen == []  # no request went out past a limit it could not check


def test_a_tokens_per_minute_limit_holds_back_the_next_big_prompt(
    rclient: redis.Redis, prefix: str
) -> None:
    with FakeLLM() as fake:
        fake.responder = lambda _req: EMPTY
        made = make_llm_extractor(
            "openai",
            "m",
            base_url=fake.openai_url,
            api_key="k",
            client=rclient,
            prefix=prefix,
            tpm=2000,  # 33 tokens a second, a minute's 2000 at once
            wait=0.5,
            cache_ttl=0,
        )
        big = [ChatMessage("b1", "user", "word " * 1600)]  # ~1,400 tokens (text clipped at 4k)
        made.extract(big)
        with pytest.raises(RetryLater, match="rate limit") as caught:
            made.extract([ChatMessage("b2", "user", "word " * 1600)])
        assert caught.value.retry_after > 10  # ~800 tokens short at 33 a second
        assert len(fake.seen) == 1
        made.extract([ChatMessage("s1", "user", "short")])  # a small prompt still fits
        assert len(fake.seen) == 2
