"""The ``engineer`` set: a coding agent's long-term memories for one engineer, by hand.

What a coding agent (the Claude Code, Cursor or Copilot memory-file kind, or mem0 behind
one) keeps across about six months of sessions with a single software engineer: terse
imperative notes ("Run … before pushing"), observations, the user's preferences,
decisions with their reasons and environment facts (ports, commands, env vars,
hostnames, versions, paths, feature flags, tickets, PR numbers, branch names). The user
is Noor Haddad, a senior backend engineer on the Payments team of a freight-tracking
company, working in a monorepo and three separate repositories. Seven services hold
parallel facts (test command, local port, database, owner, deploy target, language
version, lint, staging URL), so a fact about one is a near-duplicate of the same fact
about another; people have look-alike names (Marcus Chen and Markus Cheng, Joon Park and
Jon Parks, Bea Okoro and Beatriz Ortega, Aditi Rao and Adil Rahman).

Facts change over the months (a language bump, a move from ECS to Kubernetes, a CI
migration, a reorg, a feature flag ramped up): about three in ten updates carry a
``supersedes`` link, the rest are only restated later, mostly without any "now" or "no
longer"; a few are corrected the same day. Seven in ten memories have no tags, the rest
one or two loose ones. Nearly half are day-to-day notes no question asks about.

The set was written blind: by someone who had not read how recall works and never ran
recall, search or ``houkai bench`` on it, so it can serve as an unseen yardstick like a
set an outside user brings. The data lives in :mod:`.engineer_services`,
:mod:`.engineer_repo`, :mod:`.engineer_people`, :mod:`.engineer_notes` and
:mod:`.engineer_questions`; the parsing, label checks and assembly are :mod:`.team`'s.
Questions are split into ``dev`` and ``test`` by topic. THE RULE of
:mod:`houkai.bench.agentsets` applies: the set was committed before any recall ran on it.
"""

from __future__ import annotations

from . import team
from .engineer_notes import SESSIONS, WORKLOG
from .engineer_people import PEOPLE
from .engineer_questions import QUESTIONS
from .engineer_repo import ENV, PREFS, REPO
from .engineer_services import PAYMENTS, SERVICES

NAME = "engineer"
SEED = 5303
AS_OF = "2026-12-01T12:00:00+00:00"
BLOCKS = (SERVICES, PAYMENTS, REPO, ENV, PREFS, PEOPLE, WORKLOG, SESSIONS)

SET = team.HandWritten(NAME, SEED, AS_OF, "e", BLOCKS, QUESTIONS)
build, write = SET.build, SET.write  # as every set module has them
