"""The ``team`` set: a work assistant's memories for a small company, written by hand.

Unlike :mod:`.coding` and :mod:`.personal`, no sentence here comes from a template:
every memory and question was written one by one (issue #29), so the set shares no
phrasing pattern with the other two. What a work assistant keeps for the operations
lead of a 14-person software consultancy over about six months: people with look-alike
names (Marta Nowak and Martin Novak, Joan and Jon Reyes, two Sanjays, Elise and Elisa),
six projects with parallel facts (owner, deadline, budget, stack, status, meeting
cadence), decisions with their reasons and later reversals (some with a ``supersedes``
link, some simply restated), preferences that change, identifiers (tickets, invoices,
hostnames, extensions) and day-to-day notes no question asks about.

The data lives in :mod:`.team_projects`, :mod:`.team_people`, :mod:`.team_notes` and
:mod:`.team_questions`; this module checks the labels and writes the JSON in the shape
of the other sets. Questions are split into ``dev`` and ``test`` by topic. THE RULE of
:mod:`houkai.bench.agentsets` applies: the set was committed before any recall ran on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import KINDS, Builder
from .team_notes import NOTES, WORK
from .team_people import DECISIONS, IDENTIFIERS, PEOPLE
from .team_projects import PROJECTS
from .team_questions import QUESTIONS

SEED = 2929
AS_OF = "2026-11-27T12:00:00+00:00"


def topic_of(key: str) -> str:
    """``hf.deadline.2`` → ``hf.deadline``: a chain's statements share one topic."""
    head, _, tail = key.rpartition(".")
    return head if head and tail.isdigit() else key


def parse_memories(blocks: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every memory line of *blocks* as a dict (key, supersedes key, days, tags, text), in
    file order."""
    rows: list[dict[str, Any]] = []
    for block in blocks:
        for line in block.strip().splitlines():
            key, days, tags, text = (part.strip() for part in line.split("|", 3))
            key, _, older = key.partition(">")
            rows.append(
                {
                    "key": None if key == "-" else key,
                    "older": older or None,
                    "days": float(days),
                    "tags": [t.strip() for t in tags.split(",") if t.strip()],
                    "text": text,
                }
            )
    return rows


def parse_questions(block: str) -> list[dict[str, Any]]:
    """Every question line of *block* as a dict."""
    rows = []
    for line in block.strip().splitlines():
        kind, keys, topic, text = (part.strip() for part in line.split("|", 3))
        relevant = [k.strip() for k in keys.split(",")]
        rows.append(
            {"kind": kind, "keys": relevant, "topic": topic or topic_of(relevant[0]), "text": text}
        )
    return rows


def check(memories: list[dict[str, Any]], questions: list[dict[str, Any]], name: str) -> None:
    """The labels' own rules: unique keys, links to older statements, each question's
    answers existing; a current answer has an older statement on its topic, a past
    question asks about an older one on a topic with no supersede link. Errors name
    the set *name*."""
    by_key = {m["key"]: m for m in memories if m["key"]}
    if len(by_key) != sum(1 for m in memories if m["key"]):
        raise ValueError(f"{name} set: a memory key is used twice")
    linked = {topic_of(m["key"]) for m in memories if m["older"]}
    for m in memories:
        if m["older"]:
            if m["older"] not in by_key:
                raise ValueError(f"{name} set: {m['key']} supersedes unknown {m['older']}")
            older = by_key[m["older"]]
            if older["days"] <= m["days"]:
                raise ValueError(f"{name} set: {m['key']} supersedes a newer memory")
    for q in questions:
        if q["kind"] not in KINDS:
            raise ValueError(f"{name} set: unknown kind {q['kind']!r}")
        missing = [k for k in q["keys"] if k not in by_key]
        if missing:
            raise ValueError(f"{name} set: {q['text']!r} names unknown memories {missing}")
        key = q["keys"][0]
        same = [m for m in by_key.values() if topic_of(m["key"]) == topic_of(key)]
        newest = min(same, key=lambda m: m["days"])
        if q["kind"] == "current" and (len(same) < 2 or newest["key"] != key):
            raise ValueError(f"{name} set: current question {q['text']!r} is not on an update")
        if q["kind"] == "past" and (newest["key"] == key or topic_of(key) in linked):
            raise ValueError(f"{name} set: past question {q['text']!r} asks a hidden or new fact")


def assemble(
    name: str,
    seed: int,
    as_of: str,
    prefix: str,
    memories: list[dict[str, Any]],
    questions: list[dict[str, Any]],
) -> Builder:
    """The set *name* built from checked memory and question rows: each memory given an
    hour of the working day, written oldest first, then the questions."""
    b = Builder(name=name, seed=seed, as_of=as_of, prefix=prefix)
    ids: dict[str, str] = {}
    for n, m in enumerate(memories):  # written between 08:00 and 17:00 (as_of is noon)
        m["days"] += (12 - 8 - (n * 7) % 10) / 24
    check(memories, questions, name)  # the hours must not swap a fact and its update
    for m in sorted(memories, key=lambda m: -m["days"]):  # oldest first, as written
        mid = b.memory(
            m["text"],
            m["days"],
            m["tags"],
            supersedes=ids[m["older"]] if m["older"] else None,
            topic=topic_of(m["key"]) if m["key"] else "",
        )
        if m["key"]:
            ids[m["key"]] = mid
    for q in questions:
        b.question(q["text"], q["kind"], [ids[k] for k in q["keys"]], q["topic"])
    return b


@dataclass(frozen=True)
class HandWritten:
    """A set written by hand in this module's line format (``key | days | tags | text``
    memories, ``kind | keys | topic | text`` questions), checked and assembled as the team
    set is: the one declaration each such set module makes."""

    name: str
    seed: int
    as_of: str
    prefix: str  # of the memory ids ("a001")
    blocks: tuple[str, ...]
    questions: str

    def parse_memories(self) -> list[dict[str, Any]]:
        """Every memory line of the set as a dict (key, supersedes key, days, tags, text)."""
        return parse_memories(self.blocks)

    def parse_questions(self) -> list[dict[str, Any]]:
        return parse_questions(self.questions)

    def check(self, memories: list[dict[str, Any]], questions: list[dict[str, Any]]) -> None:
        """The labels' own rules (see :func:`check`), errors naming the set."""
        check(memories, questions, self.name)

    def build(self) -> Builder:
        memories, questions = self.parse_memories(), self.parse_questions()
        self.check(memories, questions)
        return assemble(self.name, self.seed, self.as_of, self.prefix, memories, questions)

    def write(self) -> Path:
        return self.build().write()


SET = HandWritten(
    "team", SEED, AS_OF, "t", (PROJECTS, PEOPLE, DECISIONS, IDENTIFIERS, NOTES, WORK), QUESTIONS
)
build, write = SET.build, SET.write  # as every set module has them
