# ruff: noqa: E501  (hand-written data tables)
"""The ``coding`` set: a coding assistant's memories about eight services and their repos.

What an assistant working across repositories writes down: how to build and test each
service, which tools and libraries it uses (and when that changed), who reviews what,
tickets, commits, environment variables and error codes, the user's conventions, and
session notes. The services hold the same kinds of facts in near-identical words, so a
question about one service has look-alike answers about the others. See
:mod:`houkai.bench.agentsets` for the never-tune-on-test rule.
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

from .coding_slots import ENTITIES, SLOTS
from .common import Builder

SEED = 2901
AS_OF = "2026-11-20T12:00:00+00:00"

PREFIX = {
    "billing-api": "BIL",
    "checkout-web": "CHK",
    "ledger-worker": "LED",
    "auth-gateway": "AUTH",
    "search-indexer": "SRCH",
    "notify-service": "NTF",
    "mobile-app": "MOB",
    "data-pipeline": "DATA",
}
# (what the ticket was, how it ended): a ticket id is the only thing telling look-alikes apart.
TICKETS = [
    ("rounding error in totals for JPY amounts", "fixed by switching to Decimal"),
    ("timeouts when the upstream takes over 30s", "added a circuit breaker"),
    ("duplicate events after a consumer restart", "made the handler idempotent on event id"),
    ("memory leak in the long-running worker", "closed the HTTP session per batch"),
    ("login loop when the refresh token expires", "refresh now happens before expiry"),
    ("N+1 queries on the list endpoint", "added select_related / a join"),
    ("crash on emoji in user names", "normalised input to NFC"),
    ("stale cache after a deploy", "cache keys now include the build hash"),
    ("wrong timezone on scheduled jobs", "all cron specs moved to UTC"),
    ("flaky integration test against the sandbox", "mocked the sandbox clock"),
]
ENV = [
    ("BATCH_SIZE", "how many records it processes per batch (default 500)"),
    ("MAX_RETRIES", "how often a failed call is retried before it goes to the dead-letter queue"),
    ("FEATURE_NEW_PRICING", "turns on the new pricing rules"),
    ("LOG_SAMPLE_RATE", "the share of debug logs kept (0.1 in prod)"),
]
ERRORS = [
    ("means the signing key cache is stale; a restart of the pod clears it"),
    ("is raised when the upstream returns a 429; back off and retry"),
    ("means the schema version in the message is newer than the consumer's"),
    ("shows up when the DB pool is exhausted; raise POOL_SIZE or find the leak"),
]
CONVENTIONS = [
    # (topic, [statements oldest first], linked, current question, past question or "", paraphrase question)
    (
        "commits",
        [
            "Commit messages follow Conventional Commits (feat:, fix:, chore:).",
            "User dropped Conventional Commits: plain imperative subject lines, max 60 characters.",
        ],
        False,
        "How should I write commit messages?",
        "What commit message format did we use before?",
        "",
    ),
    (
        "branches",
        [
            "Branch names look like feature/<ticket>-short-description.",
            "New branch naming from the user: <initials>/<ticket>, e.g. pk/BIL-1423.",
        ],
        True,
        "How should I name a new branch?",
        "",
        "",
    ),
    (
        "pydeps",
        [
            "Python dependencies are managed with poetry across all repos.",
            "We use uv for Python deps now; poetry.lock files get deleted when touched.",
        ],
        False,
        "Which tool manages Python dependencies currently?",
        "What did we manage Python deps with before uv?",
        "",
    ),
    (
        "secrets",
        [
            "Secrets come from 1Password: wrap commands in `op run --`.",
            "Secrets moved to Doppler; use `doppler run --` instead of op run.",
        ],
        False,
        "How do I get secrets into a local command now?",
        "How did we inject secrets before Doppler?",
        "",
    ),
    (
        "editor",
        [
            "The user codes in VS Code with the Vim extension.",
            "User switched to Neovim with LazyVim; don't suggest VS Code settings.",
        ],
        True,
        "Which editor does the user work in these days?",
        "",
        "",
    ),
    (
        "answers",
        ["User prefers terse answers: code first, explanation after, no preamble."],
        False,
        "",
        "",
        "How should I format replies for this person?",
    ),
    (
        "pr-size",
        ["User wants one PR per ticket and under 400 changed lines."],
        False,
        "",
        "",
        "How big may a pull request get?",
    ),
    (
        "node-pm",
        [
            "For JavaScript repos use npm; don't commit yarn.lock.",
            "JS repos moved to pnpm; npm lockfiles are removed.",
            "Back to npm for JS repos: pnpm broke the Expo build.",
        ],
        False,
        "Which package manager should I use for the JavaScript repos?",
        "Which JS package manager did we use before going back to npm?",
        "",
    ),
    (
        "reviews",
        ["Tag reviews with the `needs-review` label and ping #eng-reviews."],
        False,
        "",
        "",
        "How do I ask the team to look at my change?",
    ),
    (
        "hotfix",
        [
            "Hotfixes branch off the latest release tag, not main, and get cherry-picked back.",
            "Hotfixes now go straight to main behind a flag; release tags are no longer branched from.",
        ],
        True,
        "Where do hotfixes branch from?",
        "",
        "",
    ),
]
SYMPTOMS = [
    (
        "the build failed on CI because the dependency cache was stale",
        "clearing the cache fixed it",
    ),
    ("a test was flaky because it depended on the wall clock", "froze time in the fixture"),
    ("local setup broke after pulling main", "re-running the bootstrap script fixed it"),
    ("the docker image grew past 1 GB", "switched to a slim base image"),
    ("p95 latency jumped after the last deploy", "rolled back and opened an investigation"),
    ("migrations ran twice in staging", "added an advisory lock"),
    ("the health check kept failing on cold start", "raised the initial delay to 20s"),
    ("logs were missing request ids", "added the middleware back"),
    ("CPU spiked during the nightly job", "spread the job over an hour"),
    ("a dependency had a CVE", "pinned the patched version"),
    ("the OpenAPI spec was out of date", "regenerated it from the routes"),
    ("the staging env ran out of disk", "pruned old images"),
]
MONTHS_AGO = [
    "last sprint",
    "this morning",
    "yesterday",
    "on Friday",
    "during the incident",
    "while pairing with the user",
]


def build() -> Builder:
    b = Builder(name="coding", seed=SEED, as_of=AS_OF, prefix="c")
    rng = b.rng
    current: dict[tuple[str, str], str] = {}
    chains: dict[tuple[str, str], list[str]] = {}
    for entity in ENTITIES:
        for slot in SLOTS:
            changes = rng.choices([0, 1, 2], weights=[0.55, 0.33, 0.12])[0]
            values = rng.sample(slot.values, changes + 1)
            linked = changes > 0 and rng.random() < 0.4
            ids = b.chain(entity, slot, values, rng.uniform(150, 240), linked, [entity.key])
            b.ask_chain(entity, slot, values, ids, linked)
            current[(entity.key, slot.name)] = values[-1]
            chains[(entity.key, slot.name)] = ids
    _conventions(b)
    _identifiers(b)
    _multi_hop(b, current, chains)
    _notes(b)
    return b


def _conventions(b: Builder) -> None:
    for topic, statements, linked, now_q, past_q, para_q in CONVENTIONS:
        day = b.rng.uniform(120, 230)
        ids: list[str] = []
        for text in statements:
            ids.append(
                b.memory(
                    text, day, ["conventions"], ids[-1] if ids and linked else None, f"user:{topic}"
                )
            )
            day = max(1.0, day - b.rng.uniform(30, 80))
        if now_q:
            b.question(now_q, "current", [ids[-1]], f"user:{topic}")
        if past_q:
            b.question(past_q, "past", [ids[-2]], f"user:{topic}")
        if para_q:
            b.question(para_q, "paraphrase", [ids[-1]], f"user:{topic}")


def _ticket(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.randint(100, 2999)}"


def _identifiers(b: Builder) -> None:
    rng = b.rng
    for entity in ENTITIES:
        pref = PREFIX[entity.key]
        for what, fix in rng.sample(TICKETS, 4):
            ticket = b.unique(partial(_ticket, rng, pref))
            alias = rng.choice(entity.aliases)
            text = rng.choice(
                [
                    f"{ticket}: {what} in {alias}; {fix}.",
                    f"Closed {ticket} ({alias}): {what}. Resolution: {fix}.",
                    f"{alias} {ticket} — {what}. {fix[0].upper()}{fix[1:]}.",
                ]
            )
            mid = b.memory(
                text, rng.uniform(3, 200), [entity.key, ticket], topic=f"{entity.key}:{ticket}"
            )
            if rng.random() < 0.6:
                b.question(
                    rng.choice(
                        [
                            f"What was {ticket} about?",
                            f"How did we resolve {ticket}?",
                            f"What was the fix for {ticket}?",
                        ]
                    ),
                    "keyword",
                    [mid],
                    f"{entity.key}:{ticket}",
                )
        sha = b.unique(lambda: "".join(rng.choice("0123456789abcdef") for _ in range(7)))
        what, fix = rng.choice(TICKETS)
        mid = b.memory(
            f"Commit {sha} in {entity.key}: {fix} ({what}).",
            rng.uniform(3, 200),
            [entity.key],
            topic=f"{entity.key}:{sha}",
        )
        b.question(f"What did commit {sha} change?", "keyword", [mid], f"{entity.key}:{sha}")
    env_owners = rng.sample(ENTITIES, 6)
    for entity in env_owners:
        for name, meaning in rng.sample(ENV, 2):
            var = f"{entity.key.split('-')[0].upper()}_{name}"
            mid = b.memory(
                f"{var} in {entity.key} sets {meaning}.",
                rng.uniform(10, 200),
                [entity.key],
                topic=f"{entity.key}:{var}",
            )
            if rng.random() < 0.6:
                b.question(f"What does {var} control?", "keyword", [mid], f"{entity.key}:{var}")
    for entity, meaning in zip(rng.sample(ENTITIES, len(ERRORS) * 2), ERRORS * 2, strict=True):
        code = b.unique(lambda: f"E{rng.randint(1000, 1999)}")
        mid = b.memory(
            f"Error {code} from {entity.key} {meaning}.",
            rng.uniform(10, 200),
            [entity.key],
            topic=f"{entity.key}:{code}",
        )
        b.question(f"What does error {code} mean?", "keyword", [mid], f"{entity.key}:{code}")


def _multi_hop(
    b: Builder, current: dict[tuple[str, str], str], chains: dict[tuple[str, str], list[str]]
) -> None:
    """ "Who reviews the service that uses X?": the X fact names the service, its owner fact
    names the reviewer; only where X is the current value of one service alone."""
    asked = 0
    for slot, phrase in (
        ("deploy", "is deployed to {v}"),
        ("queue", "publishes to {v}"),
        ("db", "runs on {v}"),
        ("framework", "is built on {v}"),
    ):
        for entity in ENTITIES:
            value = current[(entity.key, slot)]
            same = [e for e in ENTITIES if current[(e.key, slot)] == value]
            if (
                len(same) != 1
                or len(chains[(entity.key, slot)]) != 1
                or len(chains[(entity.key, "owner")]) != 1
            ):
                continue
            text = f"Who reviews changes to the service that {phrase.format(v=value)}?"
            b.question(
                text,
                "multi-hop",
                [chains[(entity.key, slot)][0], chains[(entity.key, "owner")][0]],
                f"{entity.key}:{slot}",
            )
            asked += 1
            break
        if asked >= 4:
            break


def _notes(b: Builder) -> None:
    """Session notes: what most of an assistant's memories are, and none is asked about."""
    rng = b.rng
    for _ in range(110):
        entity = rng.choice(ENTITIES)
        alias = rng.choice(entity.aliases)
        symptom, fix = rng.choice(SYMPTOMS)
        when = rng.choice(MONTHS_AGO)
        text = rng.choice(
            [
                f"In {alias} {symptom}; {fix}.",
                f"{alias}: {symptom} {when}, {fix}.",
                f"Note for next time ({alias}): {symptom}. {fix[0].upper()}{fix[1:]}.",
                f"Worked on {alias} {when}: {symptom}; {fix}.",
            ]
        )
        b.memory(b.fill(text), rng.uniform(1, 240), [entity.key])


def write() -> Path:
    return build().write()
