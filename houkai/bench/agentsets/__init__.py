"""Agent-memory benchmark sets: what coding, personal and work assistants really write.

Each set is a module here that writes one committed JSON file under
``houkai/bench/data/`` (``agent-<name>.json``), deterministically:

* :mod:`.coding`: a coding assistant's notes about several repositories and services
  (test/build commands, tool and library choices that change over time, tickets,
  commits, environment variables), with near-identical facts about the other services;
* :mod:`.personal`: a personal assistant's notes (preferences that change, people and
  their details, plans and dated events), with near-duplicates about other people;
* :mod:`.team`: a work assistant's notes for a small company over six months, written
  by hand line by line rather than from templates (so it shares no sentence pattern
  with the two generated sets): people with look-alike names, six projects with
  parallel facts (owner, deadline, budget, stack, status, cadence), decisions and their
  reversals, changing preferences, identifiers, and day-to-day notes as noise;
* :mod:`.assistant`: a general chat assistant's memories about one user over six months
  (work as a product manager, family, home, pets, health, money, travel), written by hand
  and blind to how recall works: facts restated as they change (a third with a
  ``supersedes`` link), look-alike colleagues, two children and two pets with parallel
  facts, identifiers, loose or missing tags, and everyday noise;
* :mod:`.engineer`: a coding agent's memories of one software engineer's monorepo and
  three other repositories over six months, written by hand and blind to how recall
  works: terse commands and observations, preferences, decisions with reasons, seven
  services with parallel facts (test command, port, database, owner, deploy target,
  language version), look-alike colleagues, tickets, flags and env vars, updates mostly
  restated without a link, loose or missing tags, and session noise;
* :mod:`.support`: a customer-success assistant's memories for one account manager over
  six months, written by hand and blind to how recall works: ten customer accounts with
  parallel facts (plan, seats, renewal date, contacts, SLA tier, health score, meeting
  slot), look-alike contact names across accounts, the user's preferences, colleagues
  who change, decisions and reversals, identifiers, updates mostly restated without a
  link, loose or missing tags, and everyday noise;
* :mod:`.research`: a research assistant's memories for a PhD student in speech and NLP
  over six months, written by hand and blind to how recall works: seven experiments with
  parallel facts (dataset and version, model size, learning rate, cluster partition, best
  score, status, who runs it, W&B project, config path), look-alike collaborators,
  deadlines and meeting slots that move, decisions and reversals, identifiers (runs, jobs,
  tickets, arXiv ids), her life outside the lab, updates mostly restated without a link,
  loose or missing tags, and everyday noise;
* :mod:`.versions`: a coding agent's notes on twenty services with the same eight
  settings, forty of them changed five times over a year, each change worded its own
  way, half with a ``supersedes`` link: the newest of six versions among look-alikes.

The first two and ``versions`` come from templates filled by a seeded generator. All
hold a few hundred short memories dated over months (``days_ago`` before the set's
``as_of``), facts that were updated (some with a ``supersedes`` link, some without), and
questions labelled with a kind: ``current`` (what is it now; with or without
"now/currently/latest"), ``past`` (what it was before), ``distractor`` (another entity
holds the same kind of fact in the same words), ``paraphrase`` (few shared words),
``keyword`` (an identifier) and ``multi-hop``. Questions are split into ``dev`` and
``test`` by topic, so one topic's questions stay in one split.

THE RULE: these sets were written before any recall stage was tuned on them. Stage
decisions are made on the ``dev`` split only; the ``test`` split is run once to
confirm a decision and is NEVER tuned on (no weight, threshold, word list or
phrasing may be chosen by looking at test results). Do not edit the generators to
make a stage look better (nor the hand-written lines of :mod:`.team`, :mod:`.assistant`,
:mod:`.engineer`, :mod:`.support` and :mod:`.research`): a change to a set is a new set
version, measured anew.

``python -m houkai.bench.agentsets`` rewrites every set's JSON deterministically.
"""

from __future__ import annotations

SETS: tuple[str, ...] = (
    "coding",
    "personal",
    "team",
    "assistant",
    "engineer",
    "support",
    "research",
    "versions",
)
