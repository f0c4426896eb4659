"""The ``assistant`` set: a chat assistant's long-term memories about one user, by hand.

What a general-purpose assistant (the ChatGPT-memory or mem0 kind) keeps about a single
user over about six months of conversations, in the words such an extractor writes:
mostly third person ("User …", "User's …"), some short notes ("Prefers …"), one-liners
and a few longer memories holding several facts. The user is a product manager at a
550-person expense-software company (colleagues with look-alike names such as Dev Kapoor
and Devon Kapur, Kara Lindgren and Cara Lindholm, Mateo Ruiz and Matteo Russo; five
projects with parallel owners, deadlines, stacks, channels and tickets; a reorg, a
promotion, tools that change) and has a partner, two children with parallel facts
(school, allergy, activity, shoe size, bedtime), parents who move across the country,
a dog and a cat, a house move, a new car, a trip to Japan, health, money and hobbies.

Facts change over the months: some updates carry a ``supersedes`` link, most are only
restated later, often without any "now" or "no longer"; a few are corrected within
hours. About half the memories have no tags, the rest one or two loose ones. Nearly
two in five are day-to-day notes no question asks about. Identifiers (tickets, flight
numbers, booking references, plates, policy and account numbers, Wi-Fi names, version
numbers) are asked for by keyword.

The set was written blind (issue #29's rule, taken further): by someone who had not read
how recall works and never ran recall, search or ``houkai bench`` on it, so it can serve
as an unseen yardstick like a set an outside user brings. The data lives in
:mod:`.assistant_work`, :mod:`.assistant_home`, :mod:`.assistant_notes` and
:mod:`.assistant_questions`; the parsing, label checks and assembly are :mod:`.team`'s.
Questions are split into ``dev`` and ``test`` by topic. THE RULE of
:mod:`houkai.bench.agentsets` applies: the set was committed before any recall ran on it.
"""

from __future__ import annotations

from . import team
from .assistant_home import FAMILY, HOME, LIFE
from .assistant_notes import HOME_NOTES, WORK_NOTES
from .assistant_questions import QUESTIONS
from .assistant_work import JOB, PROJECTS

NAME = "assistant"
SEED = 4702
AS_OF = "2026-11-30T12:00:00+00:00"
BLOCKS = (JOB, PROJECTS, FAMILY, HOME, LIFE, WORK_NOTES, HOME_NOTES)

SET = team.HandWritten(NAME, SEED, AS_OF, "a", BLOCKS, QUESTIONS)
build, write = SET.build, SET.write  # as every set module has them
