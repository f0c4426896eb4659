"""The machinery both agent-memory sets share: memories, fact chains, questions, the split.

A *slot* is one kind of fact an agent keeps about an entity (a service's test command,
a person's birthday). Each entity's slot holds a chain of values over time: the first
statement, then updates. Every statement is phrased by one of several hand-written
sentences, picked by the set's seeded generator, so no one pattern marks the newest.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"
KINDS: tuple[str, ...] = ("current", "past", "distractor", "paraphrase", "keyword", "multi-hop")
#: What ``houkai bench suite`` runs by default: the agent sets as dated, the personal set
#: with its updates restated (ADR 0094), the held-out set, and the agent sets written in
#: one sitting (``NAME:sitting``, ADR 0092), and those whose questions are written with
#: case, asked as typed into a chat box (``NAME:typed``, ADR 0102: ``support`` is asked so
#: already). ``assistant``, ``engineer``, ``support`` and ``research`` were written blind
#: to how recall works (ADR 0097, 0098, 0101, 0110); ``versions`` holds facts set six times
#: among look-alikes (ADR 0114).
SUITE_SETS = (
    "coding,personal,team,assistant,engineer,support,research,versions,personal-restated,heldout,"
    "coding:sitting,personal:sitting,team:sitting,assistant:sitting,engineer:sitting,"
    "support:sitting,research:sitting,coding:typed,personal:typed,team:typed,"
    "assistant:typed,engineer:typed,research:typed"
)
RULE = (
    "Written before any recall stage was tuned on it. Decide on the dev split only; "
    "the test split confirms once and is never tuned on."
)


@dataclass
class Slot:
    """One kind of fact: how it is stated, updated and asked about.

    Templates take ``{e}`` (an alias of the entity), ``{v}`` (the value) and, in
    updates and past questions, ``{old}`` (the previous value)."""

    name: str
    states: list[str]
    updates: list[str]
    asks: list[str]  # direct questions ("What's the test command for {e}?")
    paraphrases: list[str]  # the same question in other words
    currents: list[str]  # "what is it now" questions ("now", "currently", or no marker)
    pasts: list[str]  # "what was it before" questions (may use {old} or {v})
    values: list[str]
    mutable: bool = True  # False: the fact never changes (a birthday, an allergy)


@dataclass
class Entity:
    key: str
    aliases: list[str]  # how notes name it
    asked: list[str] = field(default_factory=list)  # how questions name it (default: aliases)


@dataclass
class Builder:
    """Collects memories and questions; ids are stable for a seed."""

    name: str
    seed: int
    as_of: str
    prefix: str
    rng: random.Random = field(init=False)
    memories: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    used: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def unique(self, make: Callable[[], str]) -> str:
        """A fresh identifier from *make* (tickets, codes), never one used before."""
        while (value := make()) in self.used:
            pass
        self.used.add(value)
        return value

    def memory(
        self,
        text: str,
        days_ago: float,
        tags: list[str] | None = None,
        supersedes: str | None = None,
        topic: str = "",
    ) -> str:
        mid = f"{self.prefix}{len(self.memories) + 1:03d}"
        item: dict[str, Any] = {
            "id": mid,
            "text": text,
            "days_ago": round(days_ago, 3),
            "tags": tags or [],
        }
        if supersedes:
            item["supersedes"] = supersedes
        if topic:
            item["topic"] = topic
        self.memories.append(item)
        return mid

    def question(self, text: str, kind: str, relevant: list[str], topic: str) -> None:
        assert kind in KINDS, kind
        self.queries.append(
            {
                "id": f"q{len(self.queries) + 1:03d}",
                "text": text,
                "kind": kind,
                "relevant": relevant,
                "topic": topic,
            }
        )

    def fill(self, template: str, **values: str) -> str:
        """*template* filled and capitalised, unless it opens on an identifier
        (``billing-api``), which keeps its spelling."""
        text = template.format(**values)
        for doubled, single in (("the the ", "the "), ("my the ", "my "), ("The the ", "The ")):
            text = text.replace(doubled, single)  # "the {e}" with {e} = "the billing API"
        return text if "-" in text.split(" ", 1)[0] else text[0].upper() + text[1:]

    def chain(
        self,
        entity: Entity,
        slot: Slot,
        values: list[str],
        start_days: float,
        link: bool,
        tags: list[str],
    ) -> list[str]:
        """The statements of one entity's slot, oldest first (updates later, one
        ``supersedes`` link each when *link*); returns their memory ids."""
        topic = f"{entity.key}:{slot.name}"
        ids: list[str] = []
        day = start_days
        for i, value in enumerate(values):
            alias = self.rng.choice(entity.aliases)
            if i == 0:
                text = self.fill(self.rng.choice(slot.states), e=alias, v=value)
            else:
                text = self.fill(self.rng.choice(slot.updates), e=alias, v=value, old=values[i - 1])
            ids.append(
                self.memory(
                    text,
                    day,
                    tags,
                    supersedes=ids[-1] if (i and link) else None,
                    topic=topic,
                )
            )
            day = max(1.0, day - self.rng.uniform(25, 90))
        return ids

    def ask_chain(
        self, entity: Entity, slot: Slot, values: list[str], ids: list[str], linked: bool
    ) -> None:
        """Questions about one chain: direct/paraphrase on a fact that never changed; "now"
        (and, without a supersede link hiding it, "before") on one that did."""
        topic = f"{entity.key}:{slot.name}"
        alias = self.rng.choice(entity.asked or entity.aliases)
        if len(values) == 1:
            if self.rng.random() < 0.6:
                text = self.fill(self.rng.choice(slot.asks), e=alias)
                self.question(text, "distractor", ids, topic)
            else:
                text = self.fill(self.rng.choice(slot.paraphrases), e=alias)
                self.question(text, "paraphrase", ids, topic)
            return
        text = self.fill(self.rng.choice(slot.currents), e=alias)
        self.question(text, "current", [ids[-1]], topic)
        if not linked:
            template = self.rng.choice(slot.pasts)
            text = self.fill(template, e=alias, v=values[-1], old=values[-2])
            # "originally" asks for the first value; "before"/"old"/"previous" the one before now
            self.question(text, "past", [ids[0] if "origin" in template else ids[-2]], topic)

    def document(self) -> dict[str, Any]:
        """The set as written to JSON, with each question's split."""
        topics = sorted({q["topic"] for q in self.queries})
        ordered = sorted(
            topics, key=lambda t: hashlib.sha256(f"{self.seed}:{t}".encode()).hexdigest()
        )
        split = {t: ("dev" if i % 2 == 0 else "test") for i, t in enumerate(ordered)}
        for q in self.queries:
            q["split"] = split[q["topic"]]
        return {
            "name": self.name,
            "as_of": self.as_of,
            "seed": self.seed,
            "rule": RULE,
            "memories": self.memories,
            "queries": self.queries,
        }

    def write(self) -> Path:
        DATA.mkdir(parents=True, exist_ok=True)
        path = DATA / f"agent-{self.name}.json"
        path.write_text(json.dumps(self.document(), indent=1, ensure_ascii=False) + "\n")
        return path
