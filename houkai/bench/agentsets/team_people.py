# ruff: noqa: E501  (hand-written data tables)
"""The ``team`` set's memories about people, preferences, decisions and identifiers.

Same line format as :mod:`.team_projects`.
"""

from __future__ import annotations

PEOPLE = """
marta.role | 179 | marta | Marta Nowak — backend lead, 4 years at Fernhill. Knows the Postgres setups best.
marta.ext.1 | 179 | marta, phones | Marta's desk extension: 214.
martin.role | 179 | martin | Martin Novak, frontend lead. (Not Marta Nowak — different person, different team!)
martin.ext | 179 | martin, phones | Martin's extension is 241.
joan.role | 178 | joan | Joan Reyes runs finance and the office. Ext 202.
jon.role | 178 | jon | Jon Reyes (no relation to Joan) is our designer, ext 220.
sanjayi.role | 178 | sanjay-iyer | Sanjay Iyer: CTO and co-founder. Ext 201.
sanjayr.role | 177 | sanjay-rao | Sanjay Rao — freelance QA contractor, ext 233 when he's in.
elise.role | 177 | elise | Elise Duval, senior PM.
elisa.role | 176 | elisa | Elisa Varga, PM, joined in May.
ben.role | 176 | ben | Ben Achebe does sales and renewals.
kenji.role | 176 | kenji | Kenji Mori runs infra and IT. Ext 230.
kenji.mobile | 170 | kenji, phones | Kenji's on-call mobile: +44 7700 900412.
priya.role | 95 | priya | Priya Shah starts Monday as junior backend dev. Her buddy is Marta.
marta.ext.2 | 73 | marta, phones | New PBX at Kestrel Yard — Marta is on ext 314 now.
jon.ext | 73 | jon, phones | Jon kept his number after the move (220), Kenji says.
priya.ext | 72 | priya, phones | Priya's desk phone: 318.
me.summary.1 | 175 | me, preferences | I want my daily summary at 8:30, bullet points, ten lines max.
me.meetings.1 | 170 | me, preferences | No meetings on Friday afternoons for me please.
me.invoices.1 | 166 | me, preferences | Remind me about unpaid client invoices 3 days before they're due.
me.summary.2 | 60 | me, preferences | Move my daily summary to 9:00 — I do the school drop-off now. Still bullets.
me.meetings.2 | 35 | me, preferences | Friday afternoons are fine again. Keep Monday mornings clear instead.
me.invoices.2 | 50 | me, preferences | Invoice reminders: a full week before the due date from now, 3 days was too late.
marta.pref.1 | 160 | marta, preferences | Marta prefers async updates in Slack — no calls before 10.
marta.pref.2 | 52 | marta, preferences | Marta asked to be called directly when something blocks her; Slack pings get lost for her these days.
martin.pref | 150 | martin, preferences | Martin wants anything client-related by email, not Slack.
martin.diet.1 | 165 | martin, lunch | Team lunches: Martin is vegetarian.
marta.diet | 165 | marta, lunch | Marta eats gluten-free.
martin.diet.2 | 38 | martin, lunch | Martin went vegan — order accordingly for team lunches.
sanjayi.report.1 | 172 | sanjay-iyer, reports | Sanjay I. wants the weekly status report by Friday 16:00.
sanjayi.report.2>sanjayi.report.1 | 66 | sanjay-iyer, reports | Sanjay now wants the weekly report Monday 9:00 instead of Friday afternoon — he reads it with his first coffee.
joan.receipts.1 | 168 | joan, expenses | Joan: expense receipts in by the 25th of each month.
joan.receipts.2 | 85 | joan, expenses | Joan moved the receipts cut-off to the 20th (the accountant's new schedule).
elise.tool | 160 | elise, preferences | Elise likes Google Meet links for her calls.
elisa.tool | 158 | elisa, preferences | Elisa prefers Zoom; she has the paid account.
sanjayr.days.1 | 150 | sanjay-rao | Sanjay Rao works Mon–Wed with us.
sanjayr.days.2 | 55 | sanjay-rao | Sanjay Rao is Tue–Thu now, his other client moved to Mondays.
ben.pref | 140 | ben, preferences | Ben wants a heads-up before any client hears about a slip — he handles the renewals.
"""

DECISIONS = """
dec.release.1 | 174 | process, releases | Release day is Thursday, company-wide. Nothing deploys on Fridays.
dec.review.1 | 173 | process, code-review | Rule from Sanjay: every PR needs two approvals.
dec.time.1 | 165 | process, tools | We're switching time tracking from Harvest to Toggl Track in July — cheaper per seat.
dec.office.1 | 162 | office | Office days are Tuesday and Thursday for everyone.
dec.chat | 155 | tools | Looked at moving to Teams; decided to stay on Slack (Huddles are enough, Teams licences would cost ~€2k/yr more).
dec.oncall.1 | 140 | process, on-call | On-call rotation: Marta, Martin, Kenji — weekly, handover Monday 10:00.
dec.laptop | 100 | it | Decided: devs get the MacBook Pro 14 (M4) in the refresh; Kenji keeps his ThinkPad.
dec.release.2>dec.release.1 | 92 | process, releases | Release day moves to Tuesday. Two Thursday releases in a row spilled into Friday firefighting.
dec.move | 88 | office | We move to the new office at Kestrel Yard (3rd floor) on 12 September.
dec.review.2 | 70 | process, code-review | Sanjay relaxed the review rule: one approval is enough for PRs under 200 lines; still two for bigger ones or anything touching auth.
dec.oncall.2 | 65 | process, on-call | Priya joins the on-call rotation from October, shadowing Marta for her first week.
dec.office.2 | 58 | office | New office policy since the move: Wednesday is the only mandatory office day.
dec.ai | 50 | process, tools | Copilot approved for all devs — except on Oakridge, the contract forbids sending their code to third parties.
dec.time.2>dec.time.1 | 42 | process, tools | Back to Harvest from November: Toggl couldn't push hours into Xero invoices and Joan was re-keying everything by hand.
dec.backup | 30 | it | Kenji: nightly backups now go to Backblaze B2 instead of the NAS in the old office.
dec.xmas | 16 | office | Christmas party decided: 18 December at The Copper Kettle, partners welcome.
"""

IDENTIFIERS = """
wifi.1 | 172 | office, wifi | Office guest wifi: FernhillGuest, password tealkettle42.
vpn | 160 | it | VPN endpoint vpn.fernhill.cloud (WireGuard). Configs come from Kenji.
wifi.2 | 75 | office, wifi | Kestrel Yard guest wifi: Kestrel-Guest / amberfinch7.
door | 76 | office | Door code at Kestrel Yard: 4471 then #. Changes every quarter.
parking | 74 | office | Visitor parking at Kestrel Yard: bays 21–24, register plates with reception.
xero | 140 | invoices, tools | Invoice numbers run INV-YYYY-NNNN in Xero; Joan assigns them, never reuse a number.
inv.oak | 28 | oakridge, invoices | INV-2026-0449 to Oakridge Council, €85,000 — milestone 1. Council pays at 30 days.
inv.hm | 45 | halden-marine, invoices | Invoice INV-2026-0438 sent to Halden Marine for €31,500 (Tidewatch phase 1).
inv.hm.paid | 14 | halden-marine, invoices | Halden Marine paid INV-2026-0438.
grafana | 110 | it | Grafana for all client prod boxes: https://grafana.fernhill.cloud (SSO with Google).
pbx | 73 | phones, it | Reception is ext 200; Heron, the main conference room, is ext 250.
"""
