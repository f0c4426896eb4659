"""Clustered corpora: the shapes agent memory really has (ADR 0069).

A uniform synthetic corpus hid a lost memory: HNSW finds almost everything when
every memory is about something different. Real collections are clustered:
thousands of log lines, chat turns or tickets that resemble each other, with the
rare distinct fact that matters most. Each generator here is deterministic for a
seed, so a benchmark or a test can name exactly what it stored.

* :func:`facts`: distinct facts (preferences, settings, dates, people), no two alike;
* :func:`log_lines`: near-identical log lines in one of :data:`LOG_FORMATS` formats;
* :func:`logs_corpus`: facts first, then the bulk of log lines (the reported shape);
* :func:`chat_corpus`: chat turns about recurring small talk, facts strewn among them;
* :func:`asked_about`: questions worded from a corpus's lines, to time recall on it.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_PEOPLE = (
    "Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy",
    "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter",
    "Yara", "Zane", "Amara", "Bilal", "Chiara", "Darius", "Elena", "Farid", "Greta",
)  # fmt: skip
_SYSTEMS = (
    "database", "cache", "message broker", "search index", "object store", "API gateway",
    "build server", "VPN gateway", "mail relay", "metrics store", "feature flag service",
)  # fmt: skip
_ENVS = ("staging", "production", "QA", "demo", "disaster-recovery", "sandbox")
_PROJECTS = ("Falcon", "Juniper", "Orca", "Quartz", "Tundra", "Willow", "Zephyr", "Maple")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_CITIES = ("Lisbon", "Osaka", "Denver", "Nairobi", "Tallinn", "Cusco", "Hobart", "Bergen")
_FOODS = (
    "dark roast coffee", "green tea", "oat milk lattes", "sparkling water", "rooibos",
    "espresso with no sugar", "chai", "cold brew",
)  # fmt: skip
_ALLERGENS = ("peanuts", "shellfish", "gluten", "penicillin", "cats", "bee stings", "latex")
_ITEMS = ("spare office keys", "backup hard drive", "label printer", "first-aid kit")
_COLOURS = ("blue", "green", "red", "grey", "yellow", "black")
_TOOLS = ("Vim", "Emacs", "Helix", "VS Code", "Zed", "Sublime Text", "IntelliJ")
_SERVICES = ("auth", "billing", "search", "gateway", "payments", "users", "orders", "inventory")
_REGIONS = ("us-east-1", "eu-west-1", "ap-south-1", "us-west-2")


def _pick(options: Sequence[str]) -> Callable[[random.Random], str]:
    return lambda r: r.choice(options)


def _num(lo: int, hi: int, width: int = 0) -> Callable[[random.Random], str]:
    return lambda r: str(r.randint(lo, hi)).zfill(width)


#: What each ``{slot}`` of a template is filled with.
_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "person": _pick(_PEOPLE), "env": _pick(_ENVS), "system": _pick(_SYSTEMS),
    "project": _pick(_PROJECTS), "month": _pick(_MONTHS), "weekday": _pick(_DAYS),
    "city": _pick(_CITIES), "drink": _pick(_FOODS), "allergen": _pick(_ALLERGENS),
    "item": _pick(_ITEMS), "colour": _pick(_COLOURS), "tool": _pick(_TOOLS),
    "service": _pick(_SERVICES), "region": _pick(_REGIONS),
    "daypart": _pick(("morning", "afternoon")),
    "meeting": _pick(("standup", "retro", "planning", "one-on-one")),
    "minute15": _pick(("00", "15", "30", "45")),
    "nth": _pick(("first", "second", "third", "fourth")),
    "plan": _pick(("free", "team", "enterprise", "trial")),
    "os": _pick(("iOS", "Android")),
    "cadence": _pick(("quarterly", "monthly", "weekly", "board")),
    "format": _pick(("PDF", "spreadsheet", "one-pager")),
    "spot": _pick(("router", "printer", "coffee machine")),
    "pct": _pick(("p50", "p95", "p99")), "status": _pick(("200", "200", "304", "404", "500")),
    "job": _pick(("export", "reindex", "thumbnail", "digest")),
    "outcome": _pick(("ok", "ok", "retry", "failed")),
    "action": _pick(("viewed", "edited", "exported", "deleted")),
    "cron": _pick(("cleanup", "rollup", "sync", "billing-run")),
    "queue": _pick(("emails", "webhooks", "events", "images")),
    "port": _num(1025, 65000), "days": _num(7, 400), "hour": _num(0, 23, 2),
    "minute": _num(0, 59, 2), "worktime": _num(8, 17), "date": _num(1, 28),
    "year": _num(2026, 2030), "minor": _num(0, 5), "nodes": _num(3, 64), "desk": _num(1, 90),
    "rate": _num(10, 5000), "version": _num(9, 18), "ms": _num(5, 900),
    "long_ms": _num(100, 30000), "id": _num(1, 99999), "bytes": _num(200, 90000),
    "seconds": _num(1, 600), "worker": _num(1, 32), "node": _num(1, 40), "percent": _num(1, 99),
    "attempt": _num(1, 5), "count": _num(0, 50000), "small": _num(0, 99),
    "big": _num(0, 10**6), "user": _num(1, 5000), "depth": _num(0, 20000),
    "consumers": _num(1, 16), "age": _num(0, 3600), "octet": _num(1, 254),
    "major": _num(1, 9), "patch": _num(0, 99),
}  # fmt: skip
_FORMATTER = string.Formatter()


def _fill(template: str, rng: random.Random, **given: object) -> str:
    """*template* with each ``{slot}`` drawn from :data:`_SLOTS` anew at every place it
    stands (or taken from *given*)."""
    out: list[str] = []
    for literal, name, _, _ in _FORMATTER.parse(template):
        out.append(literal)
        if name:
            out.append(str(given[name]) if name in given else _SLOTS[name](rng))
    return "".join(out)


_FACT_TEMPLATES = (
    "The {env} {system} listens on port {port}",
    "{person} prefers {drink} in the {daypart}",
    "The deploy key for project {project} rotates every {days} days",
    "Our {meeting} with {person} moved to {worktime}:{minute15} on {weekday}s",
    "The TLS certificate of the {env} {system} expires on {month} {date}",
    "{person} is allergic to {allergen}",
    "The {project} analytics cluster runs Spark 3.{minor} on {nodes} nodes",
    "Project {project}'s launch date slipped to the {nth} quarter of {year}",
    "{person} keeps the {item} in the {colour} drawer of desk {desk}",
    "{person}'s daughter starts school in {month} {year}",
    "Backups of the {env} {system} are kept for {days} days",
    "The API rate limit for {plan} accounts is {rate} requests per minute",
    "{person} switched their editor from {tool} to {tool} last {month}",
    "{person}'s flight to {city} lands at {hour}:{minute} on {weekday}",
    "The {project} search index is rebuilt nightly at {hour}:00 UTC",
    "The mobile app's minimum supported {os} version is {version}",
    "{person} wants the {cadence} report as a {format}, not slides",
    "The wifi password for the {city} office is taped under the {spot}",
)


def facts(n: int, seed: int = 0) -> list[str]:
    """*n* distinct facts, the templates taken in turn (a repeat is drawn again)."""
    rng = random.Random(f"facts-{seed}")
    return _distinct(n, lambda i: _fill(_FACT_TEMPLATES[i % len(_FACT_TEMPLATES)], rng))


#: Ten log formats: a generator index picks one, so ten runs see ten shapes.
LOG_FORMATS = (
    "Log entry {i}: service {service} reported {pct} latency of {ms} ms in region {region}",
    '10.{small}.{small}.{octet} - - "GET /api/v1/{service}/{id} HTTP/1.1" {status} {bytes}',
    "job {job}-{i} finished with status {outcome} after {seconds} seconds on worker {worker}",
    "heartbeat from node web-{node}: cpu {percent}% mem {percent}% disk {percent}%",
    "ERROR {service}: call to {service} timed out after {long_ms} ms (attempt {attempt} of 5)",
    "metric http_requests_total{{service={service},code={status}}} = {big} at t+{i}",
    "audit: user u{user} {action} invoice {big} from 10.{small}.{small}.{octet}",
    "deploy {service} version {major}.{small}.{patch} to {region} started by pipeline #{i}",
    "cron {cron} ran at {hour}:{minute}, processed {count} rows, skipped {small}",
    "queue {queue} depth {depth}, consumers {consumers}, oldest message {age}s",
)


def _distinct(n: int, make: Callable[[int], str]) -> list[str]:
    """*n* texts from *make* (called with a running counter), repeats drawn again: an
    exact duplicate has no "own" text to be found by."""
    out: list[str] = []
    seen: set[str] = set()
    i = 0
    while len(out) < n:
        text = make(i)
        i += 1
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def log_lines(n: int, seed: int = 0, generator: int = 0) -> list[str]:
    """*n* distinct, near-identical log lines in format *generator* (0-9)."""
    fmt = LOG_FORMATS[generator % len(LOG_FORMATS)]
    rng = random.Random(f"logs-{seed}-{generator}")
    return _distinct(n, lambda i: _fill(fmt, rng, i=i))


_CHAT = (
    "sounds good, see you then", "thanks, that helps a lot", "haha yes exactly",
    "can we move this to tomorrow?", "I'm running a few minutes late", "lunch at noon?",
    "did you see the game last night?", "the weather is awful again today",
    "ok, I'll take a look after the meeting", "nice work on that, really",
    "any plans for the weekend?", "just got back from the gym", "coffee break in five?",
    "let me check and get back to you", "I agree with what you said earlier",
    "good morning everyone", "have a great evening", "that's hilarious",
)  # fmt: skip


_CHAT_TAILS = (
    "", "", "!", " :)", "...", " (room {desk})", " around {worktime}:{minute15}",
    " in {small} minutes", " - ticket {id}", " re the {project} thing", " after the {project} sync",
)  # fmt: skip


def chat_turns(n: int, seed: int = 0) -> list[str]:
    """*n* distinct chat turns of small talk between a handful of people: a dense cluster."""
    rng = random.Random(f"chat-{seed}")
    names = _PEOPLE[:6]

    def turn(_: int) -> str:
        return f"{rng.choice(names)}: {rng.choice(_CHAT)}{_fill(rng.choice(_CHAT_TAILS), rng)}"

    return _distinct(n, turn)


#: The clustered corpora by name (``bench findable`` adds the uniform recall corpus).
NAMES: tuple[str, ...] = ("logs", "chat")


@dataclass(frozen=True)
class Corpus:
    """Texts in write order; ``fact`` marks the distinct facts among them."""

    name: str
    texts: list[str]
    fact: list[bool]

    @property
    def fact_indexes(self) -> list[int]:
        return [i for i, is_fact in enumerate(self.fact) if is_fact]


def logs_corpus(n: int, n_facts: int = 20, seed: int = 0, generator: int = 0) -> Corpus:
    """*n_facts* facts written first, then ``n - n_facts`` log lines (the reported shape)."""
    bulk = log_lines(max(0, n - n_facts), seed, generator)
    own = facts(n_facts, seed * 100 + generator)
    return Corpus(f"logs{generator}", own + bulk, [True] * n_facts + [False] * len(bulk))


def chat_corpus(n: int, n_facts: int = 20, seed: int = 0) -> Corpus:
    """Chat turns with *n_facts* facts strewn among them at random places."""
    rng = random.Random(f"chat-order-{seed}")
    texts = chat_turns(max(0, n - n_facts), seed)
    flags = [False] * len(texts)
    for fact in facts(n_facts, seed + 1000):
        at = rng.randint(0, len(texts))
        texts.insert(at, fact)
        flags.insert(at, True)
    return Corpus("chat", texts, flags)


_NUMBERED = re.compile(r"^(?:log entry|entry|line)\s+\d+:\s*", re.I)
_SPEAKER = re.compile(r"^[A-Z][a-z]+:\s+")


def worded_question(text: str, most: int = 8) -> str:
    """A question worded from a stored line, as someone who half remembers it types it:
    its words without the numbers (the value asked for) and without a log line's counter
    or a chat turn's speaker, at most *most* of them."""
    body = _SPEAKER.sub("", _NUMBERED.sub("", text))
    words = [w for w in body.replace("?", " ").split() if not any(ch.isdigit() for ch in w)]
    return " ".join(words[:most]) or text


def asked_about(corpus: Corpus, n: int, seed: int = 0) -> list[str]:
    """Up to *n* distinct questions about *corpus*, each :func:`worded_question` of one of
    its lines: half about its facts, the rest about its bulk, and more facts when the bulk
    words too few distinct ones (log lines without their numbers are a few templates)."""
    rng = random.Random(f"asked-{corpus.name}-{seed}")
    facts, bulk = corpus.fact_indexes, [i for i, f in enumerate(corpus.fact) if not f]
    rng.shuffle(facts)
    rng.shuffle(bulk)
    out: dict[str, None] = {}
    for lines, most in ((facts, n // 2), (bulk, n), (facts, n)):
        for i in lines:
            if len(out) >= most:
                break
            out.setdefault(worded_question(corpus.texts[i]), None)
    return list(out)
