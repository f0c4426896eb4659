"""The recall benchmark's corpus: deterministic, varied agent-memory texts and their vectors.

Texts come from templates over word lists with a fixed seed, in four styles
(facts and preferences, events, procedures, feedback) matching the four memory
types. Generation is prefix-stable: the first 10,000 memories of the 100,000
corpus are the 10,000 corpus, so one cached embedding of the largest size
serves every smaller one. Tags are a project (Zipf-distributed, so some tags
are common and others rare) plus a topic, so a ``tag + type`` filter keeps
roughly 1–5 % of the collection: selective, like a real filtered recall.

Embedding 100k texts costs minutes of CPU, so vectors are cached on disk under
``<data_dir>/bench/`` (``np.save``), keyed by generator version, seed, model
and size, written chunk by chunk so an interrupted run resumes.
"""

from __future__ import annotations

import hashlib
import logging
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..domain.model import Memory, ValidationError, content_hash

log = logging.getLogger(__name__)

GENERATOR_VERSION = 1
DAY = 86400.0
EPOCH = 1_735_689_600.0  # 2025-01-01: fixed so the corpus (and its cache key) is stable

PEOPLE = (
    "Ana",
    "Bruno",
    "Chen",
    "Dmitri",
    "Elif",
    "Farah",
    "Goran",
    "Hana",
    "Ivan",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
    "the user",
    "the CTO",
    "the support lead",
    "the on-call engineer",
    "our designer",
    "the data team lead",
)
PROJECTS = (
    "atlas",
    "billing",
    "checkout",
    "dashboard",
    "ember",
    "falcon",
    "gateway",
    "harbor",
    "insights",
    "juno",
    "kiosk",
    "ledger",
    "mobile-app",
    "nimbus",
    "onboarding",
    "payments",
    "quarry",
    "reports",
    "search",
    "telemetry",
    "uploader",
    "vault",
    "warehouse",
    "xray",
    "yardstick",
    "zephyr",
    "notifications",
    "crm",
    "identity",
    "scheduler",
)
TOPICS = (
    "deploy",
    "testing",
    "security",
    "performance",
    "database",
    "ui",
    "api",
    "docs",
    "oncall",
    "costs",
    "hiring",
    "planning",
    "incident",
    "migration",
    "accessibility",
    "privacy",
    "observability",
    "release",
    "customer",
    "infra",
)
COMPONENTS = (
    "login page",
    "export job",
    "nightly backup",
    "search index",
    "payment webhook",
    "rate limiter",
    "email digest",
    "CSV importer",
    "cache layer",
    "feature flags",
    "audit log",
    "session store",
    "PDF renderer",
    "mobile push service",
    "billing cron",
    "GraphQL gateway",
    "admin panel",
    "signup funnel",
    "invoice generator",
    "SSO bridge",
    "metrics pipeline",
    "retry queue",
    "image resizer",
    "address validator",
    "reporting API",
)
TECH = (
    "PostgreSQL",
    "Redis",
    "Kafka",
    "RabbitMQ",
    "Terraform",
    "Kubernetes",
    "Docker Compose",
    "GitHub Actions",
    "Sentry",
    "Grafana",
    "Prometheus",
    "OpenTelemetry",
    "React",
    "Vue",
    "Svelte",
    "Django",
    "FastAPI",
    "Flask",
    "Rust",
    "Go",
    "TypeScript",
    "Python 3.12",
    "SQLite",
    "DuckDB",
    "ClickHouse",
    "S3",
    "CloudFront",
    "Nginx",
    "Envoy",
    "Celery",
    "Airflow",
    "dbt",
    "Stripe",
    "Twilio",
    "SendGrid",
    "Auth0",
    "Keycloak",
    "pytest",
    "Playwright",
    "Jest",
)
PREFERENCES = (
    "short bullet-point answers",
    "detailed explanations with examples",
    "dark mode dashboards",
    "tabs over spaces",
    "reviews before noon",
    "written specs over meetings",
    "metric units",
    "ISO dates in reports",
    "async standups",
    "small pull requests",
    "typed Python",
    "plain SQL over ORMs",
    "feature flags for risky changes",
    "Slack over email",
    "a weekly summary on Fridays",
    "diagrams in Mermaid",
    "British spelling in docs",
    "UTC timestamps everywhere",
    "screenshots in bug reports",
    "one commit per logical change",
)
CONTEXTS = (
    "reviewing code",
    "writing release notes",
    "debugging production",
    "planning a sprint",
    "talking to customers",
    "on call at night",
    "onboarding new hires",
    "estimating work",
    "reading dashboards",
    "pairing remotely",
)
EVENTS = (
    "rolled back the release",
    "found a memory leak",
    "rotated the API keys",
    "migrated the tables",
    "doubled the worker count",
    "shipped the redesign",
    "paused the rollout",
    "fixed a timezone bug",
    "cut cloud costs by a third",
    "ran a failover drill",
    "upgraded the SDK",
    "closed the security ticket",
    "added retries with backoff",
    "wrote the postmortem",
    "enabled the new cache",
    "raised the connection pool size",
    "moved the cron to UTC",
    "deleted stale feature flags",
)
PROBLEMS = (
    "timed out",
    "returned duplicate rows",
    "ran out of disk",
    "dropped messages",
    "leaked file handles",
    "double-charged a customer",
    "served stale data",
    "crashed on unicode names",
    "spiked CPU to 100%",
    "lost the session cookie",
    "sent emails twice",
    "rejected valid tokens",
    "slowed to a crawl",
)
WHEN = (
    "on Monday morning",
    "during the Tuesday deploy",
    "late on Wednesday",
    "on Thursday night",
    "before the Friday demo",
    "over the weekend",
    "during the quarterly audit",
    "right after the migration",
    "in the middle of the sale",
    "at the end of the sprint",
)
TASKS = (
    "deploy a hotfix",
    "rotate the database password",
    "restore a backup",
    "add a new tenant",
    "reindex search",
    "replay failed webhooks",
    "bump the SDK version",
    "grant read-only access",
    "invalidate the CDN cache",
    "run the load test",
    "export a customer's data",
    "rebuild the staging environment",
    "scale the workers",
    "turn off a feature flag",
    "refund a payment",
)
STEPS = (
    "open a change ticket",
    "announce it in the ops channel",
    "snapshot the volume first",
    "run the smoke tests",
    "check the error budget",
    "tag the release in git",
    "wait for the canary to stay green for ten minutes",
    "update the runbook",
    "page the owning team",
    "drain the queue",
    "verify the checksums",
    "ask for a second review",
)
JUDGEMENTS = (
    "too long",
    "exactly right",
    "missing the root cause",
    "helpful but outdated",
    "too vague",
    "wrong about the version",
    "clear and actionable",
    "overly cautious",
)
ADVICE = (
    "lead with the answer next time",
    "always link the dashboard",
    "include the exact command",
    "mention the rollback plan",
    "cite the ticket number",
    "keep it under five lines",
    "say which environment it applies to",
    "show the before and after numbers",
)


@dataclass(frozen=True)
class Query:
    """One benchmark question and the selective filter used in the filtered runs."""

    text: str
    tag: str
    type: str


def _zipf_weights(n: int, s: float = 1.1) -> list[float]:
    return [1.0 / (rank**s) for rank in range(1, n + 1)]


_PROJECT_WEIGHTS = _zipf_weights(len(PROJECTS))


def _ticket(rng: random.Random, project: str) -> str:
    return f"{project[:3].upper()}-{rng.randint(100, 9999)}"


def _text(rng: random.Random, kind: str, project: str) -> str:
    """One sentence in the style of *kind* (semantic / episodic / procedural / feedback)."""
    p, c, t = rng.choice(PEOPLE), rng.choice(COMPONENTS), rng.choice(TECH)
    if kind == "semantic":
        return rng.choice(
            (
                f"{p.capitalize()} prefers {rng.choice(PREFERENCES)} when {rng.choice(CONTEXTS)}.",
                f"The {project} project uses {t} for its {c}.",
                f"The {c} in {project} is owned by {p}, who knows {t} best.",
                f"{p.capitalize()} said {project} must never depend on {t} again.",
                f"In {project}, the {c} talks to {t} through {rng.choice(TECH)}.",
            )
        )
    if kind == "episodic":
        return rng.choice(
            (
                f"{rng.choice(WHEN).capitalize()}, {p} {rng.choice(EVENTS)} in {project} "
                f"({_ticket(rng, project)}).",
                f"The {c} of {project} {rng.choice(PROBLEMS)} {rng.choice(WHEN)}; {p} "
                f"{rng.choice(EVENTS)}.",
                f"{p.capitalize()} reported that the {project} {c} {rng.choice(PROBLEMS)} "
                f"after switching to {t}.",
            )
        )
    if kind == "procedural":
        return rng.choice(
            (
                f"To {rng.choice(TASKS)} in {project}, {rng.choice(STEPS)}, then "
                f"{rng.choice(STEPS)}.",
                f"When the {project} {c} {rng.choice(PROBLEMS)}, first {rng.choice(STEPS)}, "
                f"then {rng.choice(STEPS)}.",
                f"Runbook for {project}: to {rng.choice(TASKS)}, use {t} and {rng.choice(STEPS)}.",
            )
        )
    return rng.choice(
        (
            f"{p.capitalize()} said the answer about the {project} {c} was "
            f"{rng.choice(JUDGEMENTS)}; {rng.choice(ADVICE)}.",
            f"Feedback from {p} on {project}: {rng.choice(JUDGEMENTS)} — {rng.choice(ADVICE)}.",
        )
    )


_TYPES = ("semantic", "episodic", "procedural", "feedback")
_TYPE_WEIGHTS = (0.4, 0.35, 0.15, 0.1)


def generate(n: int, seed: int = 7) -> list[Memory]:
    """*n* deterministic memories; prefix-stable: ``generate(a)`` starts ``generate(b)``."""
    if n < 1:
        raise ValidationError(f"n must be >= 1 — got {n!r}")
    rng = random.Random(seed)
    out: list[Memory] = []
    for _ in range(n):
        kind = rng.choices(_TYPES, _TYPE_WEIGHTS)[0]
        project = rng.choices(PROJECTS, _PROJECT_WEIGHTS)[0]
        text = _text(rng, kind, project)
        tags = [project, rng.choice(TOPICS)]
        created = EPOCH - rng.random() * 365 * DAY
        out.append(
            Memory(
                id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                text=text,
                type=kind,
                tags=tags,
                importance=round(rng.uniform(0.1, 1.0), 2),
                created_at=created,
                last_accessed=created,
                state="ready",
                content_hash=content_hash(text),
            )
        )
    return out


def queries(n: int, seed: int = 7) -> list[Query]:
    """*n* distinct questions in the corpus's vocabulary, each with a tag+type filter."""
    if n < 1:
        raise ValidationError(f"queries must be >= 1 — got {n!r}")
    rng = random.Random(seed * 7919 + 1)
    seen: set[str] = set()
    out: list[Query] = []
    while len(out) < n:
        project = rng.choices(PROJECTS, _PROJECT_WEIGHTS)[0]
        p, c, t = rng.choice(PEOPLE), rng.choice(COMPONENTS), rng.choice(TECH)
        kind, text = rng.choice(
            (
                ("semantic", f"What does {p} prefer when {rng.choice(CONTEXTS)}?"),
                ("semantic", f"Which technology does {project} use for the {c}?"),
                ("semantic", f"Who owns the {c} in {project}?"),
                ("episodic", f"What went wrong with the {project} {c} {rng.choice(WHEN)}?"),
                ("episodic", f"Who {rng.choice(EVENTS)} in {project}, and when?"),
                ("episodic", f"Why did the {c} {rng.choice(PROBLEMS)}?"),
                ("procedural", f"How do I {rng.choice(TASKS)} for {project}?"),
                ("procedural", f"What are the steps when the {c} {rng.choice(PROBLEMS)}?"),
                ("feedback", f"What feedback did {p} give about answers on {project}?"),
                ("semantic", f"Is {t} used anywhere in {project}?"),
            )
        )
        if text in seen:
            continue
        seen.add(text)
        out.append(Query(text=text, tag=project, type=kind))
    return out


# --------------------------------------------------------------------------- vectors
def cache_dir(data_dir: str) -> Path:
    return Path(data_dir) / "bench"


def _stem(seed: int, model: str, name: str = "recall") -> str:
    safe = hashlib.blake2b(model.encode("utf-8"), digest_size=4).hexdigest()
    return f"{name}-v{GENERATOR_VERSION}-s{seed}-{safe}"


def _cached(directory: Path, stem: str, n: int) -> np.ndarray | None:
    """A cached matrix of at least *n* rows (sliced), or None."""
    best: tuple[int, Path] | None = None
    for path in directory.glob(f"{stem}-n*.npy"):
        try:
            size = int(path.stem.rsplit("-n", 1)[1])
        except ValueError:
            continue
        if size >= n and (best is None or size < best[0]):
            best = (size, path)
    if best is None:
        return None
    matrix = np.load(best[1], mmap_mode="r")
    return np.ascontiguousarray(matrix[:n], dtype=np.float32)


def corpus_vectors(
    memories: list[Memory],
    encode: Callable[[list[str]], np.ndarray],
    *,
    data_dir: str,
    seed: int,
    model: str,
    chunk: int = 4096,
    progress: Callable[[int, int], None] | None = None,
    name: str = "recall",
) -> tuple[np.ndarray, bool]:
    """Vectors of *memories* (from :func:`generate`, or the corpus *name* names) and
    whether they came from the cache.

    Cached under ``<data_dir>/bench``; a larger cached corpus is sliced (so a *name*
    must stand for a prefix-stable corpus). A run cut short resumes from its saved chunks.
    """
    n = len(memories)
    directory = cache_dir(data_dir)
    directory.mkdir(parents=True, exist_ok=True)
    stem = _stem(seed, model, name)
    hit = _cached(directory, stem, n)
    if hit is not None:
        return hit, True
    parts: list[np.ndarray] = []
    for start in range(0, n, chunk):
        end = min(start + chunk, n)
        part_path = directory / f"{stem}-part{start}-{end}.npy"
        if part_path.exists():
            part = np.load(part_path)
        else:
            part = np.asarray(encode([m.text for m in memories[start:end]]), dtype=np.float32)
            np.save(part_path, part)
        parts.append(part)
        if progress is not None:
            progress(end, n)
    matrix = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
    final = directory / f"{stem}-n{n}.npy"
    tmp = directory / f"{stem}-n{n}.tmp.npy"
    np.save(tmp, matrix)
    tmp.replace(final)
    for start in range(0, n, chunk):
        (directory / f"{stem}-part{start}-{min(start + chunk, n)}.npy").unlink(missing_ok=True)
    log.info("cached %d corpus vectors in %s", n, final)
    return matrix, False
