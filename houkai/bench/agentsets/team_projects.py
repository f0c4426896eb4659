# ruff: noqa: E501  (hand-written data tables)
"""The ``team`` set's memories about clients and projects, written by hand.

One line per memory: ``key | days_ago | tags | text``. A key ``a.b.2>a.b.1`` supersedes
``a.b.1``; the topic is the key without its trailing number; ``-`` is a note no question
asks about. See :mod:`.team` for how the lines become the set.
"""

from __future__ import annotations

PROJECTS = """
hf.owner | 176 | halden-freight | New client: Halden Freight. Project codename Lighthouse (shipment tracking portal). Elise Duval is PM and owns the relationship, Marta is tech lead.
hf.contact | 175 | halden-freight | Greta Lind = IT lead at Halden Freight, our main contact for Lighthouse. greta.lind@haldenfreight.se
hf.stack | 171 | halden-freight | Lighthouse stack agreed with Greta: Django REST API, React frontend, Postgres 16, hosted on our Hetzner account.
hf.deadline.1 | 170 | halden-freight | Halden Freight go-live deadline: 30 September.
hf.budget.1 | 169 | halden-freight | Halden Freight / Lighthouse budget signed off at €180k (T&M, capped).
hf.cadence.1 | 168 | halden-freight | Weekly status call with Halden Freight — Tuesdays 10:00, Greta + Elise + Marta.
hf.status.1 | 165 | halden-freight | Halden Freight in discovery; workshops in Gothenburg over the next two weeks.
- | 163 | halden-freight | Booked flights for Elise and Marta to Gothenburg, 16–18 June. Hotel near Lindholmen.
- | 158 | halden-freight | Workshop notes from Gothenburg: Greta's dispatchers want a live map first, reports later.
hf.host | 150 | halden-freight | Lighthouse servers: prod is hf-prod-01.fernhill.cloud, staging is hf-staging-01.fernhill.cloud.
hf.status.2 | 140 | halden-freight | Lighthouse has moved into build. Sprint 1 kicks off Monday.
- | 134 | halden-freight | Lighthouse sprint 1 demo went fine. Greta wants the ETA column bigger.
hf.ticket198 | 122 | halden-freight | HF-198 — carrier webhook retries hammer the API when DHL's endpoint is down. Added backoff, ticket closed.
hf.deadline.2 | 101 | halden-freight | Halden Freight deadline pushed to 14 November; their carrier API integration slipped on their side.
hf.budget.2>hf.budget.1 | 96 | halden-freight | CR-7 approved: Lighthouse budget raised to €210k to cover the customs-documents module.
hf.cadence.2 | 82 | halden-freight | Halden calls go fortnightly from now on (Greta asked), still Tuesday 10:00.
- | 74 | halden-freight | Greta out until 2 Oct — her deputy Nils Ek signs off anything urgent on Lighthouse.
hf.invoice | 60 | halden-freight, invoices | Sent invoice INV-2026-0412 to Halden Freight: €24,000 for the August milestone, due 30 Oct.
hf.deadline.3 | 44 | halden-freight | Lighthouse launch is now 12 December. Greta confirmed in writing, so 14 Nov is off.
hf.ticket231.1 | 35 | halden-freight | HF-231: Lighthouse login loops for users signing in via Halden's AD SSO. Marta investigating.
hf.ticket231.2 | 30 | halden-freight | HF-231 fixed — SAML clock skew on hf-prod-01. Deployed to staging, prod on Tuesday's release.
hf.invoice.paid | 25 | halden-freight, invoices | INV-2026-0412 paid in full (Halden Freight). Joan reconciled it.
hf.status.3 | 20 | halden-freight | Halden Freight portal is in UAT since Monday; Greta's team testing on staging.
- | 8 | halden-freight | UAT feedback from Halden Freight: 14 items, 2 blockers (PDF export, timezone on ETAs).
hm.owner | 150 | halden-marine | Halden Marine (Halden Freight's sister company) signed as well: Tidewatch, a crew scheduling app. Elise is PM, Martin tech lead.
hm.contact | 149 | halden-marine | Olaf Brekke, ops director at Halden Marine — our contact for Tidewatch.
hm.stack.1 | 148 | halden-marine | Tidewatch stack: Flutter app, Firebase backend (Firestore + Firebase Auth).
hm.deadline.1 | 147 | halden-marine | Halden Marine wants Tidewatch live by 14 November, before the winter rota starts.
hm.budget | 146 | halden-marine | Tidewatch (Halden Marine) budget: €95k fixed price.
hm.cadence | 145 | halden-marine | Weekly Tidewatch check-in with Olaf (Halden Marine), Thursdays at 15:00.
- | 131 | halden-marine | Olaf sent the crew roster spreadsheet for Tidewatch — 212 crew, 9 vessels.
hm.status.1 | 120 | halden-marine | Tidewatch: first TestFlight build out to five captains.
hm.stack.2>hm.stack.1 | 75 | halden-marine | Decision: Tidewatch moves off Firebase onto Supabase. Firestore read costs were exploding and Olaf wants SQL reporting.
hm.host | 70 | halden-marine | Tidewatch API now lives at tidewatch-api.fernhill.cloud (self-hosted Supabase on hm-db-01).
- | 66 | halden-marine | Supabase migration for Tidewatch: auth users moved, 3 captains had to reset passwords.
hm.deadline.2 | 40 | halden-marine | Tidewatch go-live slipped to 30 January because of the Supabase migration; Olaf is OK with it.
hm.ticket231 | 33 | halden-marine | HM-231 — Tidewatch crashes during offline sync when a shift is edited on two phones. Martin on it.
hm.status.2 | 12 | halden-marine | Tidewatch in beta with 40 crew; public store release waiting on App Store review.
bd.owner | 178 | birchway | Birchway Dental booking app kicked off. Elisa Varga runs the project, Martin leads dev.
bd.contact | 178 | birchway | Dr Hannah Birch owns Birchway Dental and is our contact; she decides everything herself, cc her office manager Pete.
bd.stack | 177 | birchway | Birchway: Next.js frontend, NestJS API, Postgres.
bd.deadline | 176 | birchway | Birchway has to launch by 31 October — their new clinic opens 1 Nov.
bd.budget | 175 | birchway | Birchway budget €120k including 3 months of support.
bd.cadence.1 | 174 | birchway | Birchway sync every second Monday, 11:00, with Dr Birch.
bd.host.1 | 160 | birchway | Decision: host Birchway on Hetzner (Falkenstein). It's about a third of the AWS quote.
bd.status.1 | 130 | birchway | Birchway booking flow feature-complete; SMS reminders still to do.
bd.host.2>bd.host.1 | 110 | birchway | Reversing the Hetzner call for Birchway: their DPO requires ISO 27017 and a signed AWS DPA, so we go AWS eu-central-1 (Frankfurt). Hannah accepted the extra ~€300/month.
bd.hostname | 105 | birchway | Birchway prod hostname: bw-prod.eu.fernhill.cloud (ALB in front of ECS).
bd.ticket88.1 | 100 | birchway | BD-88: SMS reminders go out twice for recurring appointments. High priority.
bd.ticket88.2 | 97 | birchway | BD-88 was the cron running on both ECS tasks. Martin added a lock, closed.
bd.invoice.1 | 55 | birchway, invoices | INV-2026-0431 to Birchway Dental, €30,000 (launch milestone), due 10 Nov.
bd.status.2 | 27 | birchway | Birchway launched 29 Oct, two days early! Now in support & maintenance.
bd.cadence.2 | 24 | birchway | Birchway goes to a monthly call after launch: first Monday of the month, 11:00.
- | 18 | birchway | Dr Birch sent a thank-you box of pastries for the team.
bd.invoice.2 | 10 | birchway, invoices | Birchway invoice 0431 is 7 days overdue. Joan is chasing Pete.
oak.owner.1 | 130 | oakridge | We won the Oakridge Council permits portal tender! Elise will own it.
oak.deadline | 129 | oakridge | Oakridge go-live: 31 March 2027, fixed in the tender.
oak.budget | 129 | oakridge | Oakridge contract value €340k, fixed price, paid in 4 milestones.
oak.stack | 128 | oakridge | Oakridge portal has to be .NET 8 + Angular (council standard), hosted in their own Azure tenant.
oak.contact | 125 | oakridge | Declan Moss is Oakridge Council's digital services manager — day-to-day contact.
oak.cadence.1 | 120 | oakridge | Oakridge steering committee: first Wednesday of every month, 14:00, at the council offices.
oak.cadence.2 | 118 | oakridge | Also a weekly Oakridge standup on Teams, Fridays 9:30.
oak.teams | 115 | oakridge | Oakridge insists on Teams. We stay on Slack internally; whoever runs Oakridge uses a guest Teams account.
oak.status.1 | 110 | oakridge | Oakridge: contract signed, still waiting on access to their Azure tenant.
oak.ci | 84 | oakridge | oak-ci-runner-02 is the Oakridge build agent in their Azure DevOps; Kenji has the admin login.
oak.owner.2>oak.owner.1 | 63 | oakridge | Oakridge handed over from Elise to Elisa while Elise is on parental leave (1 Oct to mid-February).
oak.status.2 | 50 | oakridge | Oakridge in build — sprint 3 of 10, on track.
- | 36 | oakridge | Steering committee at Oakridge went OK; Declan wants a Welsh-language toggle (quote separately).
oak.ticket102.1 | 15 | oakridge | OAK-102: council SSO (Entra ID) maps planning officers to the wrong group. Blocks UAT prep.
pem.owner | 140 | pemberton | Pemberton Insurance claims dashboard: Elisa is PM, Martin tech lead, Sanjay R. doing QA.
pem.contact | 140 | pemberton | Ruth Adeyemi, head of claims analytics at Pemberton Insurance.
pem.deadline.1 | 139 | pemberton | Pemberton dashboard due 15 December.
pem.stack.1 | 138 | pemberton | Pemberton dashboard = FastAPI service + Metabase on top of their claims warehouse (Snowflake).
pem.budget.1 | 137 | pemberton | Pemberton budget: €75k.
pem.cadence | 136 | pemberton | Pemberton weekly on Wednesdays at 14:00 with Ruth.
pem.status.1 | 90 | pemberton | Pemberton paused — client budget freeze until their Q4 planning. Martin moves to Tidewatch meanwhile.
pem.stack.2 | 80 | pemberton | Pemberton: we're dropping Metabase for Apache Superset. Need row-level security per broker and Metabase only has that in the enterprise tier.
pem.budget.2>pem.budget.1 | 68 | pemberton | Pemberton cut the budget to €60k; the fraud-score view is out of scope.
pem.status.2>pem.status.1 | 48 | pemberton | Pemberton is back on! Freeze lifted, restarting Monday.
pem.deadline.2 | 45 | pemberton | Pemberton's due date is now 15 January (after the freeze).
pem.ticket14 | 30 | pemberton | PEM-14: claims totals off by one day — UTC vs local cut-off in the Superset dataset.
pem.invoice | 20 | pemberton, invoices | INV-2026-0457 to Pemberton, €15,000 (restart milestone).
web.owner | 120 | website | Website relaunch: Jon Reyes owns it (design and content).
web.deadline.1 | 119 | website | Website relaunch target: end of September.
web.stack | 118 | website | New fernhill.io will be Astro on Netlify, content in markdown.
web.budget | 117 | website | Website budget €15k, mostly photography and a copywriter.
web.cadence | 116 | website | Website check-in with Jon every other Friday, 11:00.
web.deadline.2 | 62 | website | Website relaunch pushed to 15 December — client work comes first.
web.status | 40 | website | Website: design approved, copy about 60% done.
- | 22 | website | Photographer for the website booked for 3 Dec at Kestrel Yard.
"""
