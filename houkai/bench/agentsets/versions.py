"""The ``versions`` set: facts an agent set six times over a year, among look-alikes.

A coding agent's notes on twenty services with the same eight settings each (port,
Postgres version, timeout, replicas, on-call channel, Node version, deploy target, cache
TTL). Forty of the service-setting pairs were changed five times, each change written
its own way ("cart-api deploy target is GKE", "Updated the deploy target for cart-api:
Cloud Run", "Bumped cart-api deploy target to Heroku."), half of them with a
``supersedes`` link; the other pairs hold one value, so every setting has look-alikes
about other services. Questions ask the newest value (with and without "now", and as
bare keywords), the first value of an unlinked chain, and an unchanged setting among its
look-alikes. See :mod:`houkai.bench.agentsets` for the never-tune-on-test rule; the
templates were written before the ``current`` stage's slot rule (ADR 0114).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from .common import Builder

SEED = 3307
AS_OF = "2026-12-01T12:00:00+00:00"
VERSIONS = 6  # the first value and five changes
CHANGED = 40  # service-setting pairs that changed

SERVICES = [
    "sync-cron", "billing-api", "ledger-worker", "auth-gateway", "search-indexer",
    "notify-service", "checkout-web", "media-proxy", "report-builder", "quota-keeper",
    "invoice-mailer", "geo-lookup", "cart-api", "feed-ranker", "pdf-renderer",
    "session-store", "audit-trail", "price-engine", "tax-calc", "user-profile",
]  # fmt: skip


def _settings(rng: random.Random) -> dict[str, Callable[[], str]]:
    """Each setting's name and a draw of one of its values."""
    return {
        "production port": lambda: str(rng.randint(3000, 9999)),
        "Postgres version": lambda: f"{rng.randint(11, 17)}.{rng.randint(1, 9)}",
        "request timeout": lambda: f"{rng.choice([5, 10, 15, 20, 30, 45, 60, 90])}s",
        "replica count": lambda: str(rng.randint(2, 24)),
        "on-call channel": lambda: (
            "#"
            + rng.choice(["ops", "oncall", "pager", "infra", "alerts", "sre"])
            + "-"
            + rng.choice(["east", "west", "core", "edge", "blue", "green", "red"])
        ),
        "Node version": lambda: (
            f"{rng.choice([16, 18, 20, 22])}.{rng.randint(0, 19)}.{rng.randint(0, 9)}"
        ),
        "deploy target": lambda: rng.choice(
            ["EKS", "GKE", "ECS", "Fly.io", "Nomad", "bare metal", "Cloud Run", "Heroku", "AKS"]
        ),
        "cache TTL": lambda: f"{rng.choice([30, 60, 120, 300, 600, 900, 1800, 3600])} seconds",
    }


FIRST = ["{s} {a} is {v}.", "The {a} of {s} is {v}.", "{s}: {a} = {v}", "Set up {s} with {a} {v}."]
LATER = [
    "Changed {s} {a} from {o} to {v}.", "{s} {a} is now {v}.", "Bumped {s} {a} to {v}.",
    "{s}: {a} moved to {v} (was {o}).", "Updated the {a} for {s}: {v}.",
    "{s} {a} switched to {v} today.", "{s} {a} = {v}", "The {a} of {s} is {v}.",
    "We run {s} with {a} {v} from now on.", "Note: {s} {a} {v}.",
]  # fmt: skip
NOW = [
    "What is the {a} of {s}?", "What's {s}'s {a}?", "What is {s}'s {a} now?",
    "What's the current {a} for {s}?", "Which {a} does {s} use these days?",
    "whats the {a} on {s}", "{s} {a} now",
]  # fmt: skip
FIRST_ASKED = ["What was {s}'s {a} originally?", "What {a} did {s} start with?"]
ONE_VALUE = ["What is the {a} of {s}?", "What's {s}'s {a}?", "{s} {a}"]


def build() -> Builder:
    b = Builder(name="versions", seed=SEED, as_of=AS_OF, prefix="v")
    rng = b.rng
    draw = _settings(rng)
    pairs = [(s, a) for s in SERVICES for a in draw]
    rng.shuffle(pairs)
    for i, (s, a) in enumerate(pairs):
        topic = f"{s}:{a}"
        if i >= CHANGED:  # one value: a look-alike of the changed settings
            mid = b.memory(
                b.fill(rng.choice(FIRST), s=s, a=a, v=draw[a]()),
                rng.uniform(5, 400),
                [s],
                topic=topic,
            )
            if rng.random() < 0.2:
                b.question(b.fill(rng.choice(ONE_VALUE), s=s, a=a), "distractor", [mid], topic)
            continue
        values: list[str] = []
        while len(values) < VERSIONS:
            if (v := draw[a]()) not in values:
                values.append(v)
        linked = i % 2 == 1
        days = sorted(rng.sample(range(3, 400), VERSIONS), reverse=True)
        ids: list[str] = []
        for k, (day, value) in enumerate(zip(days, values, strict=True)):
            template = rng.choice(LATER if k else FIRST)
            text = b.fill(template, s=s, a=a, v=value, o=values[k - 1] if k else "")
            ids.append(b.memory(text, day, [s], ids[-1] if k and linked else None, topic))
        b.question(b.fill(rng.choice(NOW), s=s, a=a), "current", [ids[-1]], topic)
        b.question(f"{s} {a}", "keyword", [ids[-1]], topic)
        if not linked:
            b.question(b.fill(rng.choice(FIRST_ASKED), s=s, a=a), "past", [ids[0]], topic)
    return b


def write() -> Path:
    return build().write()
