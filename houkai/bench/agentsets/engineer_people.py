# ruff: noqa: E501  (hand-written data tables)
"""The ``engineer`` set's memories about people, reviews, releases and meetings, by hand.

One line per memory: ``key | days_ago | tags | text``. A key ``e.b.2>e.b.1`` supersedes
``e.b.1``; the topic is the key without its trailing number; ``-`` is a memory no question
asks about; an empty tags field means the memory has none. See :mod:`.engineer`.
"""

from __future__ import annotations

PEOPLE = """
user.who | 193 | | User is Noor Haddad, senior backend engineer on the Payments team at Quayside (freight tracking SaaS, ~600 people).
manager.1 | 188 | people | User's manager is Aditi Rao (EM, Payments).
people.marcus | 185 | | Marcus Chen: staff engineer, Payments tech lead, based in Lisbon. The person for anything ledger-related.
people.markus | 184 | people | Markus Cheng (SRE, Platform), not Marcus Chen. Owns the EKS clusters and Argo CD; ask him for namespace or quota changes.
oneonone.1 | 185 | | 1:1 with Aditi every other Wednesday, 11:30 ET.
people.adil | 183 | | Adil Rahman (Fulfilment) is easy to confuse with Aditi in Slack autocomplete; double-check before sending.
people.beatriz | 171 | release | Beatriz Ortega runs releases and the Tuesday release sync; she signs off on anything shipped during a freeze.
people.bea | 161 | | Bea Okoro goes by Bea; Beatriz Ortega is a different person (releases).
people.sam | 160 | security | Sam Whitfield (AppSec) must review any PR that touches card data or PII fields.
people.kenji | 152 | | Kenji Mori leads Pricing; very fast reviewer, prefers Loom walkthroughs over long PR descriptions.
people.joon | 149 | auth | Joon Park is in Seoul; anything needing him same-day should go out before noon ET.
people.jon | 148 | | Jon Parks (frontend) and Joon Park (auth) get mixed up constantly; check the team before tagging.
manager.2>manager.1 | 66 | people | After the reorg User reports to Tomás Vidal (EM, Money Movement). Aditi manages Fulfilment now.
oneonone.2 | 60 | | 1:1 with Tomás weekly, Mondays 14:00 ET.
people.lucia | 50 | | Lucía Ferreira joined Payments as a new grad; User is her onboarding buddy.
people.tomas | 65 | | Tomás Vidal likes decisions written up as a short ADR in `docs/decisions/` before any big refactor.
review.approvals.1 | 186 | review | billing-api PRs need one approval (Marcus or another Payments engineer).
review.approvals.2>review.approvals.1 | 61 | review | billing-api PRs need two approvals since the SOC 2 audit, one of them from a CODEOWNER.
release.cadence.1 | 169 | billing | billing-api is released Tuesdays and Thursdays, after the 11:00 ET release sync with Beatriz.
release.cadence.2>release.cadence.1 | 30 | | billing-api deploys continuously: each merge to main goes to prod once the canary passes. The Tue/Thu trains are over.
standup.1 | 180 | | Payments standup is at 9:45 ET on Google Meet.
standup.2 | 65 | | Standup moves to 10:00 ET after the reorg.
standup.3 | 64.7 | meetings | Standup is 10:15 ET, not 10:00; Tomás wanted it after the leads' sync.
"""
