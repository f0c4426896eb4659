"""Hybrid recall's stages: THE registry (the one place a stage is declared).

Hybrid recall (weighted blend) runs these on top of the blend; each is switchable with
``recall(stages=...)`` or the ``recall_stages`` setting (``"default"``: the ones marked
on below) and shows what it did in ``explain`` under ``stages``. Each stage is one
object in its own module, ``houkai/recall/stages/<name>.py`` (its ``STAGE``), with the
one interface of :class:`houkai.recall.stages.base.Stage`:

* ``query``: reads dates, recency cues, exact tokens and names (:mod:`.query`).
* ``synonyms``: a question word also finds the words that mean the same (ADR 0096).
* ``context``: the previous/next turns of the best candidates, and scoring with them.
* ``lineage``: a superseded memory that matches the question lifts the one that replaced it.
* ``prf``: pseudo-relevance feedback (a boost toward the top hits) and RM3 (a second keyword query).
* ``specific``: a prior for memories that name something rare (ADR 0068).
* ``current``: for a question about the present, the newest memory on a topic first.
* ``entity``: a candidate missing the people/projects the question names drops.
* ``aspect``: what the question asks about its subject, vectors centred on the best
  candidates' mean (ADR 0086).
* ``casing``: a question typed in lower case ("how do i reach tim") names what the
  collection's memories write as names (ADR 0102).
* ``bridge``: the second hop of a question about someone or something it does not name
  (ADR 0089, ADR 0116).
* ``subjects``: in a collection not tagged by person, whom a memory's opening names is
  whom it is about, for the ``names`` boost (opt-in, ADR 0091).
* ``overlap``: keyword matches count for less when the question's words are not the
  collection's, or the best match holds few of them (opt-in, ADR 0107).
* ``fitted``: the fusion weights per query kind (opt-in).

Adding a stage: write its module with a ``STAGE`` object and add its line to
:data:`REGISTRY`; the switch, the setting's ``default``, the operation registry's
description, ``bench suite``'s ``+stage``/``-stage`` modes and ``explain`` follow from
it. The order of :data:`REGISTRY` is the order the stages run in, at each step of a
recall (see :class:`~houkai.recall.stages.base.Stage`).

This module is light (no numpy, no Redis): the operation registry imports it for the
stage names, and the CLI answers ``--help`` without the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from ...domain.model import ValidationError

if TYPE_CHECKING:
    from .base import Stage


@dataclass(frozen=True)
class Entry:
    """One registered stage: its switch name, whether it is on by default, one line on
    what it does, and its object (default: ``STAGE`` of the module named after it)."""

    name: str
    on: bool
    about: str
    impl: Stage | None = None


REGISTRY: tuple[Entry, ...] = (
    Entry("query", True, "read dates, recency, ids and names in the question"),
    Entry("synonyms", True, "a question word finds its synonyms too: 'style checker', 'linter'"),
    Entry("context", True, "bring in and score with a turn's neighbours"),
    Entry("lineage", True, "a replaced memory's match passes to the one that replaced it"),
    Entry("prf", True, "pseudo-relevance feedback: a boost toward the top hits, and RM3"),
    Entry("specific", True, "a prior for memories that name something rare"),
    Entry("current", True, "newest first on a topic, for a question about the present"),
    Entry("entity", True, "lower candidates about another person or project"),
    Entry("aspect", True, "what the question asks about its subject, not the subject"),
    Entry("casing", True, "a question typed in lower case names what the memories capitalise"),
    Entry("bridge", True, "the second hop of a question about what it does not name"),
    Entry("subjects", False, "untagged memories: whom the opening names is whom it is about"),
    Entry("overlap", False, "words the memories never use make keyword matches count for less"),
    Entry("fitted", False, "fusion weights per query kind"),
)

#: The word that stands for the stages on by default in a stage list.
DEFAULT_WORD = "default"


def names() -> tuple[str, ...]:
    """Every registered stage's name, in the order they run."""
    return tuple(e.name for e in REGISTRY)


def default_names() -> tuple[str, ...]:
    """The stages on by default (what the ``recall_stages`` setting's ``default`` means)."""
    return tuple(e.name for e in REGISTRY if e.on)


#: The names at import (for declarations: the operation registry's description).
STAGES: tuple[str, ...] = names()


def resolve_stages(value: object, default: str | None = None) -> tuple[str, ...]:
    """``None`` → *default* (None: every stage); a comma string or an iterable of stage
    names, where ``"default"`` stands for the stages on by default. Duplicates are
    dropped; the order given is kept."""
    known = names()
    if value is None:
        value = ",".join(known) if default is None else default
    if isinstance(value, str):
        given: Iterable[object] = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, Iterable):
        given = list(value)
    else:
        raise ValidationError(f"stages must be a list of {', '.join(known)} — got {value!r}")
    out: list[str] = []
    for name in given:
        expanded = default_names() if name == DEFAULT_WORD else (name,)
        for one in expanded:
            if not isinstance(one, str) or one not in known:
                raise ValidationError(
                    f"unknown recall stage {one!r}; choose from {', '.join(known)}"
                )
            if one not in out:
                out.append(one)
    return tuple(out)


@cache
def _module_stage(name: str) -> Stage:
    found: Stage = import_module(f"{__name__}.{name}").STAGE
    return found


def pipeline(active: Iterable[str]) -> list[Stage]:
    """The *active* stages' objects, in registry order (the order they run in)."""
    wanted = set(active)
    return [e.impl or _module_stage(e.name) for e in REGISTRY if e.name in wanted]


__all__ = [
    "DEFAULT_WORD",
    "REGISTRY",
    "STAGES",
    "Entry",
    "default_names",
    "names",
    "pipeline",
    "resolve_stages",
]
