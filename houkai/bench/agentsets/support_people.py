# ruff: noqa: E501  (hand-written data tables)
"""The ``support`` set's colleagues, the user's own preferences, decisions and identifiers.

One line per memory: ``key | days_ago | tags | text``, as in :mod:`.support_accounts`.
Dana Whitfield's colleagues change over the months (a reorg, a support lead and a
solutions engineer who move on), her working habits change, and some decisions are
reversed with their reasons. See :mod:`.support`.
"""

from __future__ import annotations

PEOPLE = """
mgr | 194 | people | Dana reports to Greg Haines, Director of Customer Success.
supportlead | 193 | | Support lead for Dana's accounts is Priya Nair; escalations go to her first.
se | 192 | | Solutions engineer on Dana's pod: Miguel Santos. Book him for anything integration-heavy.
dealdesk | 190 | | Deal desk and renewals: Hannah Kim. Every order form goes to her for approval before it reaches the customer.
backup | 186 | | Hana Kimura (CSM, West pod) covers Dana's accounts when Dana is out.
billingops | 170 | billing | Leo Marsh in billing ops handles credit memos and invoice reissues.
pm | 150 | | Yusuf Adeyemi is the PM for the route optimizer; ETA questions and roadmap asks go to him.
se.2 | 108 | people | Ben Ashford is the SE for Dana's accounts. Miguel Santos went to the EMEA pod.
se.halden | 106 | halden | Miguel still joins Halden calls when there's a Dynamics question, since he sits in the EMEA pod.
cro | 100 | | Walt Becker (CRO) wants to be on the Meridian renewal call.
mgr.2>mgr | 84 | people | Dana's manager after the September reorg: Lorraine Abbott, VP Customer Success. Greg Haines moved to Partnerships.
backup.2 | 64 | people | Owen Strickland is Dana's coverage buddy for PTO; Hana Kimura went to the SMB team.
supportlead.2 | 58 | people | Escalations for Dana's accounts go to Tomás Ferreira. Priya Nair moved over to Support Ops.
"""

PREFS = """
pref.hours | 194 | pref | Dana is in Denver, Mountain time. No customer calls before 9am MT; Halden is the one exception.
pref.summary | 194 | pref | Call summaries for Dana: bullets only, five at most, action items first, no intro sentence.
pref.prep | 191 | | Before every customer call Dana wants a one-pager: health score, last three tickets, open escalations, renewal date.
pref.book | 191 | | Dana's book: 10 accounts, about $1.6M ARR.
pref.healthtool | 190 | | Dana uses Salesforce for renewals and pipeline, ChurnZero for health scores.
pref.qbr | 189 | qbr | Dana runs QBRs in weeks 2 and 3 of the first month of each quarter.
pref.notes | 188 | tools | Customer notes live in Notion, one page per account.
pref.gong | 187 | tools | Calls are recorded in Gong. Put the Gong link at the bottom of every summary.
pref.friday | 185 | | Friday afternoons are blocked for admin and forecast, never book calls there.
pref.email | 180 | | Email drafts for Dana: plain text, no exclamation marks, sign off with just "Dana".
pref.nrr | 175 | | Dana's target for the year: 112% net revenue retention on her book.
pref.slack | 160 | | For internal questions Dana would rather get a Slack DM than an email.
pref.forecast | 150 | | Renewal forecast goes into Salesforce every Thursday by 5pm MT.
pref.template | 140.5 | qbr | QBR deck template: "RW QBR 2026 master" in Google Slides.
pref.template.2 | 140 | | Got the template name wrong earlier: the QBR deck to copy is "CS QBR master FY26" in the shared CS drive.
pref.qbrsmall | 120 | qbr | QBRs for Tallow Creek, Saltmarsh and Cobalt go semiannual. Under $50k each, not worth a full deck every quarter.
pref.healthtool.2 | 97 | tools | Health scores come from Gainsight from September on; the ChurnZero contract ends August 31.
pref.forecast.2>pref.forecast | 82 | | Renewal forecast due Wednesdays by noon MT, Lorraine's rule.
pref.summary.2 | 73 | pref | Dana wants a three-line TL;DR on top of each summary, then action items with an owner and a date, then anything else.
pref.qbr.2>pref.qbr | 66 | qbr | QBR season goes in the last two weeks of each quarter so the numbers feed straight into the renewal forecast.
pref.book.2 | 60 | | Book of business is about $1.7M ARR since the Kestrel and Tallow Creek upgrades.
pref.friday.2 | 47 | pref | Dana blocks Friday mornings for admin; the forecast review with Lorraine sits at Friday 8:30.
"""

DECISIONS = """
dec.pinedisc | 96 | pinecrest | Plan for the Pinecrest renewal: offer 10% off to head off Dispatchly.
dec.pinedisc.2 | 80 | pinecrest, renewal | Pinecrest gets no discount; Lorraine caps discounts at 5%. Offering 12 months of the two-way ServiceTitan sync add-on (RW-ADD-STSYNC) free instead.
prod1832 | 130 | roadmap | Feature request PROD-1832, per-stop time windows on recurring routes: Tallow Creek and Oakhurst both want it. Yusuf says Q1 2027.
prod1832.2 | 30 | roadmap | PROD-1832 slipped to Q2 2027 per Yusuf. Tell Nadia and Jordan Pike before they hear it elsewhere.
sku.telem | 150 | | RW-ADD-TELEM is the telematics add-on (Samsara, Geotab, Motive connectors), $8 per vehicle per month.
sku.onb | 140 | | RW-PS-ONB = onboarding professional services, sold as a pack of 3 sessions for $1,500.
slack.esc | 190 | slack | Flag anything that needs the support lead in #cs-escalations and tag @support-oncall.
slack.renewals | 180 | | Renewal status updates go in #cs-renewals every Monday morning.
zd.48213 | 185 | | Zendesk #48213: Kestrel wanted a CSV export of driver hours. Sent Chris the report builder steps.
"""
