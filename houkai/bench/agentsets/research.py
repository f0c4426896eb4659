"""The ``research`` set: a research assistant's long-term memories, by hand.

What an AI assistant (the mem0 or memory-file kind) keeps over about six months for one
user, Ines Carvalho, a second-year PhD student in a university speech and NLP lab in
Montreal. Seven experiments hold parallel facts (dataset and its version, model size,
learning rate and batch, cluster and partition, best metric, status, who is in charge,
W&B project, config path) in nearly the same words, so a fact about one experiment is a
near-duplicate of the same fact about another: code-switched ASR, Whisper distillation,
Emakhuwa speech translation, spoken NER, dialect ID, self-supervised pretraining and
LLM error correction. People have look-alike names (advisor Anneke Vos and co-advisor
Anika Voss, Tomas Berg and Thomas Bergh, Mei Lin and Mei Ling, Rafael Souza and Rafaela
Sousa); a postdoc leaves, the lab manager goes on leave, the cluster admin changes, the
committee changes a member. Besides the work: her preferences (editor, plots, citation
manager, writing hours), decisions with their reasons and reversals, identifiers (run
and job ids, tickets, arXiv and submission ids, config paths, env vars, rooms, dollar
amounts) and her life (partner, family, a cat, a move across town, health, travel).

Facts change over the months (deadlines and a defense that move, partitions that change,
best scores that improve, dataset versions bumped, a collaborator handing over, the
advisor's meeting slot moving): about three in ten updates carry a ``supersedes`` link,
the rest are only restated later, mostly without any "now" or "no longer"; one is
corrected the same day. Seven in ten memories have no tags, the rest one or two loose
ones. Well over a third are day-to-day notes no question asks about (session notes,
reminders, drafts, small talk, half-finished thoughts).

The set was written blind: by someone who had not read how recall works and never ran
recall, search or ``houkai bench`` on it, so it can serve as an unseen yardstick like a
set an outside user brings. The data lives in :mod:`.research_projects`,
:mod:`.research_people`, :mod:`.research_notes` and :mod:`.research_questions`; the
parsing, label checks and assembly are :mod:`.team`'s. Questions are split into ``dev``
and ``test`` by topic. THE RULE of :mod:`houkai.bench.agentsets` applies: the set was
committed before any recall ran on it.
"""

from __future__ import annotations

from . import team
from .research_notes import LIFE, NOTES, WORK
from .research_people import DECISIONS, IDENTIFIERS, PEOPLE, PREFS
from .research_projects import MORE_PROJECTS, PROJECTS
from .research_questions import QUESTIONS

NAME = "research"
SEED = 5309
AS_OF = "2026-12-01T12:00:00+00:00"
BLOCKS = (PROJECTS, MORE_PROJECTS, PEOPLE, PREFS, DECISIONS, IDENTIFIERS, LIFE, NOTES, WORK)

SET = team.HandWritten(NAME, SEED, AS_OF, "r", BLOCKS, QUESTIONS)
build, write = SET.build, SET.write  # as every set module has them
