"""A memory comes back first by the identifier only it holds, in hybrid recall with the
default stages, at any k (ADR 0115): an IP among an infrastructure's notes, an order
number among orders written in one template. Before, the ``aspect`` stage lifted notes
unlike the others over the IP's (a bare identifier is near no memory's meaning), and the
``current`` stage gave an order's slot to another order for the same customer."""

from __future__ import annotations

import random

import pytest

from houkai import MemoryStore
from houkai.recall.asking import named_things

SERVICES = ["billing-api", "checkout-web", "notify-service", "search-indexer", "ledger-worker"]


def _infra(rng: random.Random) -> list[str]:
    def note() -> str:
        s = rng.choice(SERVICES)
        return rng.choice(
            [
                f"{s} config lives at /etc/{rng.choice(['nginx', 'app'])}/conf.d/{s}.conf",
                f"{s} is pinned to v{rng.randint(1, 4)}.{rng.randint(0, 9)} until the migration",
                f"Last good deploy of {s} was commit {rng.randrange(16**7):07x}",
                f"To restart {s}: `kubectl rollout restart deploy/{s} -n prod`",
            ]
        )

    return [note() for _ in range(300)]


@pytest.fixture
def infra(store: MemoryStore) -> dict[str, str]:
    rng = random.Random(5)
    ips = list(dict.fromkeys(f"10.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(2, 250)}"
                             for _ in range(80)))[:60]  # fmt: skip
    notes = [f"{rng.choice(SERVICES)} Redis lives at {ip}:6379" for ip in ips]
    written = store.remember_many(_infra(rng) + notes)
    return {ip: m.id for ip, m in zip(ips, written[-len(ips) :], strict=True)}


@pytest.mark.parametrize("k", [5, 20])
def test_an_ip_brings_back_the_note_holding_it(
    store: MemoryStore, infra: dict[str, str], k: int
) -> None:
    for ip in list(infra)[:12]:
        hits = store.recall(ip, k=k, mode="hybrid", touch=False)
        assert hits[0][0].id == infra[ip], (ip, [m.text for m, _ in hits[:3]])


def test_an_order_number_brings_back_its_order_not_the_customers_newer_one(
    store: MemoryStore,
) -> None:
    rng = random.Random(23)
    people = ["Priya", "Marcus", "Chen", "Dana", "Elena", "Grace", "Hiro", "Ines"]
    numbers = [str(n) for n in rng.sample(range(100000, 999999), 200)]
    written = store.remember_many(
        [
            f"Order {n} for {rng.choice(people)}: {rng.choice(['shipped', 'pending'])},"
            f" carrier {rng.choice(['DHL', 'UPS', 'FedEx'])}."
            for n in numbers
        ]
    )
    for n, memory in list(zip(numbers, written, strict=True))[::10]:
        hits = store.recall(n, k=5, mode="hybrid", touch=False)
        assert hits[0][0].id == memory.id, (n, [m.text for m, _ in hits[:3]])


def test_an_ip_is_a_named_thing_and_a_version_is_not() -> None:
    assert named_things("Which Redis lives at 10.4.0.226?")[0] == "10.4.0.226"
    assert named_things("what listens on 10.5.8.9:6379") == ["10.5.8.9:6379"]
    assert named_things("release 1.2.3.4-beta") == []
    assert named_things("version 1.2.3.4.5") == []
