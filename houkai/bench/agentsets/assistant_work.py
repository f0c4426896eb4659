# ruff: noqa: E501  (hand-written data tables)
"""The ``assistant`` set's memories about the user's work, written by hand.

One line per memory: ``key | days_ago | tags | text``. A key ``a.b.2>a.b.1`` supersedes
``a.b.1``; the topic is the key without its trailing number; ``-`` is a memory no question
asks about; an empty tags field means the memory has none. See :mod:`.assistant`.
"""

from __future__ import annotations

JOB = """
job.company | 188 | work | User works at Tandemly, an expense-management software company (about 550 people) headquartered in Denver's LoDo.
job.title.1 | 188 | | User is a Senior Product Manager at Tandemly.
job.manager.1 | 187 | work | User reports to Gregor Halloran, VP of Product.
job.team.1 | 187 | | User's squad is Payments Experience: six engineers, one designer, one QA.
office.days.1 | 186 | | User goes into the LoDo office on Tuesdays and Wednesdays and works from home the rest of the week.
oneonone.1 | 185 | gregor | 1:1 with Gregor every Thursday, 2:00–2:30pm.
dev.role | 185 | | Dev Kapoor is the engineering manager for the user's squad. Likes a written proposal before any meeting.
devon.role | 184 | design | Devon Kapur is the product designer on Payments Experience — not Dev Kapoor the EM, different people.
kara.role | 183 | | Kara Lindgren is the data analyst the user works with on funnel and activation metrics.
cara.role | 183 | | Cara Lindholm leads QA for the payments and cards area.
mateo.role | 181 | | Mateo Ruiz, sales engineer — funnels enterprise customers' feature requests to the user.
commute.1 | 181 | | User bikes to the LoDo office from Capitol Hill, about 15 minutes.
matteo.role | 180 | legal | Matteo Russo is Tandemly's product counsel; anything touching card terms or data retention needs his review.
wes.role | 180 | | Wes Tanaka is Tandemly's CTO.
tracker.1 | 179 | | Product and engineering at Tandemly track work in Jira.
docs.1 | 178 | | PRDs and specs live in Confluence, in the PROD space.
analytics.1 | 177 | work | Product analytics at Tandemly is Amplitude; Kara owns the dashboards.
yusuf.role | 176 | | Yusuf Demir manages the mobile team (four iOS and three Android engineers).
deploy.day.1 | 174 | work | Production deploys go out on Tuesdays; merge cutoff is Monday 5pm.
allhands | 172 | | Tandemly all-hands: first Friday of the month, 10am, in the big room on 4 or on Zoom.
mateo.location | 169 | | Mateo Ruiz is based in Phoenix and travels to customers most weeks.
matteo.location | 168 | | Matteo Russo works out of the New York office (Eastern time, so no meetings with him after 3pm MT).
dev.location | 166 | | Dev Kapoor works remotely from Boulder and comes into the office on Wednesdays.
devon.location | 165 | design | Devon Kapur lives in Albuquerque; in Denver one week a month.
prodreview.1 | 163 | | User runs a product review every other Wednesday at 3pm for the squad and stakeholders.
kara.diet | 160 | | Kara Lindgren is gluten-free (celiac), so pick team lunch places with real GF options.
sprint.1 | 160 | | Squad sprints are two weeks long and start on Wednesdays.
cara.diet | 159 | lunch | Cara Lindholm is vegan.
kara.handle | 157 | | Kara's Slack handle is @klindgren.
cara.handle | 157 | | Cara's Slack handle is @cara.l — two Karas in #product, easy to ping the wrong one.
standup.time.1 | 152 | | Squad standup is daily at 9:30am MT on Zoom.
standup.time.2>standup.time.1 | 151.6 | | Standup moves to 9:15 starting tomorrow so Dev can make his 9:45 staff meeting.
lorna.role | 150 | hr | Lorna Fitch is the HR business partner for the Product org.
laptop.1 | 140 | | Work laptop: MacBook Pro 14" M3, asset tag TND-04417.
docs.2>docs.1 | 132 | | PRDs now go in Notion; Confluence becomes read-only at the end of July.
analytics.2 | 125 | | Tandemly moved product analytics over to Mixpanel in July.
deploy.day.2 | 121 | work | Release day is Thursday — the platform team moved the release train so QA gets two more days.
perf.review | 119 | work | Mid-year review with Gregor: rated "exceeds". Feedback: delegate more, write shorter PRDs.
conf.talk | 102 | work | User is speaking at the FinOps Product Summit in Chicago, Nov 5–6 — a talk on receipt automation.
commute.2 | 99 | | User takes the light rail to work from Park Hill; about 25 minutes door to door.
job.manager.2 | 96 | work | User's manager is Amara Nwosu, Director of Product for Spend Management.
job.team.2>job.team.1 | 96 | | Reorg: Payments Experience merged with Cards into the Card Platform team, and the user is its product lead.
amara.boss | 95 | | Amara Nwosu reports to Renée Abbott, the Chief Product Officer.
oneonone.2 | 94 | | Weekly 1:1 with Amara on Mondays at 11:00.
team.size | 93 | work | Card Platform is 11 engineers in two pods (issuing and spend controls), plus Devon and Cara's QA group.
sprint.2>sprint.1 | 92 | work | Card Platform sprints start on Mondays, still two weeks.
tracker.2 | 89 | | Tandemly moved engineering and product onto Linear on September 1; the Jira projects are archived.
office.days.2 | 88 | work | Company-wide RTO policy from October: in the office Tuesday, Wednesday and Thursday.
prodreview.2 | 84 | | Product review is Thursdays at 1pm now, in person, since everyone is in the office that day.
hugo.role | 69 | | Hugo Sandoval joined as a PM on September 22; he came from Ramp.
okr | 67 | work | Q4 OKR for Card Platform: raise virtual card activation from 22% to 35% of eligible employees.
job.title.2 | 64 | work | User was promoted to Group Product Manager, effective October 1.
ollie.role | 63 | work | Ollie Brennan (PM) reports to the user after the promotion, and so does Hugo Sandoval.
laptop.2>laptop.1 | 47 | work | New work laptop: MacBook Pro 14" M4, asset tag TND-05120. The M3 went back to IT.
chicago.flight.1 | 31 | travel | Chicago flight booked: United UA 1742, DEN→ORD, Nov 4 at 6:05am. Confirmation H8VZRM.
chicago.flight.2 | 30.7 | travel | Rebooked onto UA 2210 on Nov 4, leaving 9:40am — 6:05 was too early. Confirmation is still H8VZRM.
chicago.hotel | 30 | chicago | Chicago hotel: Hyatt Centric The Loop, Nov 4–6, confirmation 71839204.
codefreeze | 10 | work | December code freeze: no production releases from Dec 18 to Jan 4 except hotfixes.
"""

PROJECTS = """
pel.owner | 176 | pelican | User owns Pelican, the receipt-scanning rewrite: auto-extract merchant, date, total and tax from photos.
pel.deadline.1 | 175 | pelican | Pelican GA target: September 15.
pel.ocr.1 | 174 | | Pelican runs OCR through AWS Textract, with a Python post-processing service on top.
pel.channel | 173 | | Pelican's Slack channel is #proj-pelican.
pel.status.1 | 170 | | Pelican is in discovery: interviews with eight customer finance teams this month.
brm.owner | 168 | | Bramble, the mobile app rewrite, belongs to Yusuf Demir's mobile team.
brm.stack.1 | 167 | bramble | Bramble will be written in React Native so the web engineers can help out.
pel.metric | 162 | pelican | Pelican success metric: 85% of receipts filled in without a manual edit (right now about 61%).
brm.deadline | 160 | | Bramble beta on TestFlight targeted for November 3.
brm.channel | 158 | | Bramble has the Slack channel #proj-bramble.
osp.owner.1 | 152 | osprey | Tamsin Cole is the PM on Osprey, the virtual cards project.
osp.launch.1 | 151 | osprey | Osprey launch date: October 1, tied to the issuer's certification window.
osp.issuer | 150 | | Osprey's card-issuing partner is Lithic; Marqeta was the runner-up.
osp.channel | 149 | | Osprey discussions happen in #proj-osprey.
mar.owner.1 | 142 | marigold | Devon Kapur is leading Marigold, the new-customer onboarding revamp.
pel.status.2 | 141 | pelican | Pelican beta is open to 40 customer accounts.
mar.deadline | 141 | marigold | Marigold has to ship before the January renewals wave — target December 8.
mar.status.1 | 140 | | Marigold is in discovery; Devon is mapping where trial accounts drop off.
mar.channel | 140 | | #proj-marigold is where the onboarding revamp gets discussed.
osp.status.1 | 138 | osprey | Osprey is in build: the card issuing flows are done, spend controls are next.
tern.owner | 122 | tern | Ollie Brennan owns Tern, the approval-rules engine for expense policies.
tern.deadline | 121 | tern | Tern is due December 5 for the enterprise pilot with Cobalt Ridge Energy.
tern.stack | 119 | | Tern: a Go service, rules stored as JSON in Postgres and evaluated when an expense is submitted.
tern.channel | 118 | | Tern has its own channel, #proj-tern.
osp.vendor.contact.1 | 115 | osprey | Lithic account manager for Osprey is Paige Whitfield.
pel.deadline.2 | 110 | | Pelican GA slipped to October 20; tax-line extraction is stuck at 70% accuracy.
tern.pilot | 110 | tern | Cobalt Ridge Energy's pilot contact for Tern is their controller, Denise Pratt.
brm.stack.2 | 100 | | Bramble is being built with Kotlin Multiplatform for the shared logic, SwiftUI and Jetpack Compose for the screens.
mar.status.2 | 90 | marigold | Marigold is in design. Devon ran six usability tests on the new setup wizard.
osp.launch.2>osp.launch.1 | 81 | osprey | Osprey launch moved to January 12 — Lithic's certification slot slipped past October.
tern.status.1 | 80 | tern | Tern is in build; the rules editor UI is done.
pel.ocr.2>pel.ocr.1 | 77 | pelican | Pelican switched from Textract to Google Document AI: 91% line-item accuracy against 78% on the test set, and cheaper per page.
pel.ticket | 70 | bugs | PEL-412: receipts in yen come out with the decimal point in the wrong place. Dev's team is fixing it.
osp.owner.2 | 58 | osprey | User has taken over Osprey as PM; Tamsin moved to the Payroll team.
mar.owner.2 | 52 | | Hugo Sandoval is running Marigold. Devon stays on it as the designer.
brm.version | 44 | bramble | Tandemly mobile 5.14.2 shipped: hotfix for receipt photo uploads failing on iOS 18.
pel.deadline.3 | 41 | | Pelican GA is November 17. Amara has signed off on the slip.
osp.ticket | 35 | osprey, bugs | OSP-88: virtual card spending limits don't reset when a new month begins. P1; Cara's team reproduced it.
osp.vendor.contact.2 | 30 | | Lithic's new account manager for Tandemly is Rohan Mehta; Paige moved over to their partnerships team.
mar.ticket.1 | 28 | marigold | MAR-230: the setup wizard times out when a customer imports more than 500 employees.
tern.ticket | 26 | | TERN-57: approval rules with a currency condition ignore EUR expenses. Ollie is triaging.
mar.ticket.2>mar.ticket.1 | 24 | | MAR-230 is fixed by batching the employee import; went out in this week's release.
osp.status.2 | 20 | | Osprey passed Lithic's certification pre-check and is in internal dogfood with 60 Tandemly employees.
mar.status.3 | 18 | marigold | Marigold beta is live for new signups in the EU.
pel.status.3 | 12 | pelican | Pelican went GA for all customers on November 17; the adoption dashboard is in Mixpanel.
tern.status.2>tern.status.1 | 6 | | The Tern pilot environment is set up for Cobalt Ridge; 40 approvers invited.
"""
