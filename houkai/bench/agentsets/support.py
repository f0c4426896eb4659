"""The ``support`` set: a customer-success assistant's long-term memories, by hand.

What an AI assistant (the mem0 or memory-file kind) keeps over about six months for one
account manager, Dana Whitfield, at the company behind Routewise, a logistics and
scheduling platform sold to carriers, couriers, distributors and field-service firms.
Ten customer accounts hold parallel facts (plan tier, seat count, renewal date, main
contact, champion, exec sponsor, integration, SLA tier, open escalation, health score,
preferred meeting slot, region, billing contact, ARR) in nearly the same words, so a
fact about one account is a near-duplicate of the same fact about another; contacts
have look-alike names across accounts (Chris Delgado and Chris Dalton, Katherine Moss
and Kathryn Ross, Sam Oduya and Samantha Odell, Jordan Pike and Jordan Price, Hannah
Kim and Hana Kimura, Priya and Priyanka). Besides the accounts: Dana's own working
habits and preferences (summary format, QBR timing, tools, blocked hours), internal
colleagues who change (a reorg, a new support lead and solutions engineer), decisions
with their reasons and later reversals, and identifiers (escalations, Zendesk tickets,
order forms, contract ids, invoices, SKUs, Slack channels, dollar amounts).

Facts change over the months (an upgrade, renewals that close or slip, a contact who
leaves, an escalation resolved, a meeting slot moved): about three in ten updates carry
a ``supersedes`` link, the rest are only restated later, mostly without any "now" or
"no longer"; a few are corrected the same day. Seven in ten memories have no tags, the
rest one or two loose ones. Well over a third are day-to-day notes no question asks
about (call notes, reminders, drafts, small talk).

The set was written blind: by someone who had not read how recall works and never ran
recall, search or ``houkai bench`` on it, so it can serve as an unseen yardstick like a
set an outside user brings. The data lives in :mod:`.support_accounts`,
:mod:`.support_people`, :mod:`.support_notes` and :mod:`.support_questions`; the
parsing, label checks and assembly are :mod:`.team`'s. Questions are split into ``dev``
and ``test`` by topic. THE RULE of :mod:`houkai.bench.agentsets` applies: the set was
committed before any recall ran on it.
"""

from __future__ import annotations

from . import team
from .support_accounts import ACCOUNTS, MORE_ACCOUNTS
from .support_notes import NOTES, WORK
from .support_people import DECISIONS, PEOPLE, PREFS
from .support_questions import QUESTIONS

NAME = "support"
SEED = 7411
AS_OF = "2026-12-01T12:00:00+00:00"
BLOCKS = (ACCOUNTS, MORE_ACCOUNTS, PEOPLE, PREFS, DECISIONS, NOTES, WORK)

SET = team.HandWritten(NAME, SEED, AS_OF, "s", BLOCKS, QUESTIONS)
build, write = SET.build, SET.write  # as every set module has them
