"""The value types of extraction and the protocol every extractor keeps.

An extractor sees the new messages of one session (with the running summary as context)
and proposes :class:`Candidate` memories; reconciliation then decides, per candidate and
against the nearest memories the scope already holds, whether to ADD it, UPDATE (a new
version that supersedes the old) or NOOP (a duplicate). An LLM extractor may decide that
itself (:meth:`Extractor.decide`); returning ``None`` leaves it to the similarity and
polarity rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..domain.model import ValidationError

ROLES: tuple[str, ...] = ("user", "assistant", "system", "tool")
CANDIDATE_KINDS: tuple[str, ...] = ("fact", "preference", "decision", "event")
Action = Literal["ADD", "UPDATE", "NOOP"]
ACTIONS: tuple[str, ...] = ("ADD", "UPDATE", "NOOP")


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation, as a session stores it (``id`` is always set)."""

    id: str
    role: str
    content: str
    ts: float | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValidationError(f"role must be one of {', '.join(ROLES)} — got {self.role!r}")


@dataclass(frozen=True)
class Candidate:
    """A memory an extractor proposes, with the messages it came from."""

    text: str
    kind: str = "fact"  # one of CANDIDATE_KINDS
    type: str = "semantic"  # a houkai memory type
    importance: float | None = None
    tags: tuple[str, ...] = ()
    message_ids: tuple[str, ...] = ()
    event_ts: float | None = None  # when a dated event happened, if the messages say
    polarity: int = 0


@dataclass(frozen=True)
class Neighbour:
    """A stored memory near a candidate (what reconciliation weighs it against)."""

    id: str
    text: str
    similarity: float
    created_at: float
    polarity: int = 0


@dataclass(frozen=True)
class Decision:
    """What becomes of one candidate: ADD, UPDATE ``target_id`` (supersede it) or NOOP."""

    action: Action
    candidate: Candidate
    target_id: str | None = None
    reason: str = ""


@dataclass
class Usage:
    """Tokens and cost one extractor call spent (zero for the no-LLM extractor)."""

    provider: str = "rules"
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls


@dataclass
class ExtractResult:
    candidates: list[Candidate] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class Extractor(Protocol):
    """Turns new messages into candidate memories (and may judge reconciliation)."""

    #: the spec it was made from: ``rules`` or ``llm:<provider>:<model>``
    spec: str

    def extract(self, messages: Sequence[ChatMessage], *, summary: str = "") -> ExtractResult:
        """Candidates from *messages*, in message order; *summary* is earlier context."""
        ...

    def decide(
        self, candidate: Candidate, neighbours: Sequence[Neighbour]
    ) -> tuple[Decision | None, Usage]:
        """ADD/UPDATE/NOOP for *candidate* given its stored *neighbours*, or ``None`` to
        leave the choice to the similarity and polarity rules."""
        ...
