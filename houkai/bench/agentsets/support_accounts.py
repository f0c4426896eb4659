# ruff: noqa: E501  (hand-written data tables)
"""The ``support`` set's customer accounts, written by hand: parallel facts and their updates.

One line per memory: ``key | days_ago | tags | text``, as in :mod:`.team_projects`. A key
``kes.seats.2`` is the second statement on topic ``kes.seats``; ``new>old`` marks a memory
that carries a ``supersedes`` link to an older one; ``-`` is a note no question asks
about. Ten accounts hold the same kinds of fact (plan, seats, renewal date, contacts,
integration, SLA tier, health score, meeting slot, region, billing contact, ARR) in
nearly the same words. See :mod:`.support`.
"""

from __future__ import annotations

ACCOUNTS = """
kes.plan | 193 | kestrel | Kestrel Logistics is on the Pro plan, annual billing.
kes.seats | 193 | | Kestrel Logistics has 140 seats (dispatchers plus drivers on the mobile app).
kes.renewal | 193 | kestrel, renewal | Kestrel Logistics renews on March 31, 2027.
kes.contract | 193 | | Kestrel's master subscription agreement is CTR-2024-0311, a 3-year term signed April 2024.
kes.contact | 192 | kestrel, people | Main contact at Kestrel Logistics: Chris Delgado, Director of Dispatch Operations.
kes.champion | 192 | | Champion at Kestrel: Rachel Brandt, night-shift dispatch supervisor. She's the one who pushed Routewise through internally.
kes.sponsor | 192 | | Exec sponsor at Kestrel Logistics: Martin Hale, VP Operations.
kes.integration | 191 | | Kestrel Logistics runs the Samsara telematics connector and the NetSuite integration for billing.
kes.sla | 191 | | Kestrel Logistics SLA tier: Premier (1-hour P1 response, named support engineer).
kes.health | 190 | | Kestrel Logistics health score: 82, green.
kes.meeting | 190 | | Kestrel likes their biweekly sync on Tuesdays at 10am ET.
kes.region | 190 | | Kestrel Logistics sits in the NA-East region; HQ in Columbus, Ohio.
kes.billing | 189 | billing | Billing contact at Kestrel Logistics: Donna Reyes, accounts payable.
kes.channel | 189 | | Shared Slack Connect channel with Kestrel is #ext-kestrel-routewise.
kes.arr | 189 | | Kestrel Logistics ARR: $186,000.
kes.report | 160 | | Kestrel doesn't want the monthly PDF health report; Chris prefers a short update posted in their Slack channel.
kes.esc | 151 | escalation | Kestrel opened ESC-2291: route optimizer ETAs running 20-40 minutes late on multi-stop routes since release 4.18. Chris Delgado is not happy.
kes.health.2 | 131 | health | Kestrel health went to 64, yellow, with the ETA escalation dragging on.
kes.seats.2 | 118 | kestrel | Kestrel added 25 seats for their new Indianapolis terminal, 165 total.
kes.esc.2 | 112 | escalation | ESC-2291 closed. Hotfix 4.18.2 brought Kestrel's ETAs back within 5 minutes; Chris confirmed on the call.
kes.sponsor.2 | 82 | kestrel | Martin Hale has left Kestrel for a competitor carrier. Alicia Ferris, their COO, is taking over as exec sponsor.
kes.plan.2 | 68 | kestrel | Kestrel signed OF-11823 today: upgrade to Enterprise, effective October 1.
kes.seats.3>kes.seats.2 | 68 | | Kestrel Logistics seat count after the upgrade: 220.
kes.arr.2 | 67 | | Kestrel Logistics ARR: $268,000 with the Enterprise upgrade.
kes.meeting.2>kes.meeting | 57 | | Kestrel biweekly sync: Thursdays 2pm ET. Chris has a standing conflict on Tuesdays from October on.
kes.report.2 | 44 | kestrel | Send Kestrel a monthly PDF report again. Alicia Ferris wants something she can forward to their board.
kes.health.3 | 38 | | Kestrel Logistics health score 78.
bram.plan | 187 | bramble | Bramble & Vine Grocers is on the Growth plan.
bram.seats | 187 | | Bramble & Vine Grocers has 60 seats.
bram.renewal | 187 | renewal | Bramble & Vine Grocers renews on September 15, 2026.
bram.contact | 186 | | Main contact at Bramble & Vine: Sam Oduya, delivery operations manager. He is also the champion.
bram.sponsor | 186 | | Exec sponsor at Bramble & Vine: Helen Barros, CFO. She signs anything over $50k.
bram.integration | 185 | | Bramble & Vine pulls orders from Shopify Plus through the native connector.
bram.sla | 185 | | Bramble & Vine Grocers SLA tier: Standard (next business day).
bram.health | 184 | | Bramble & Vine health score: 71.
bram.meeting | 184 | | Bramble & Vine prefers Wednesday calls at 1pm PT.
bram.region | 184 | | Bramble & Vine is in NA-West, based in Portland, Oregon.
bram.billing | 183 | billing | Billing contact at Bramble & Vine Grocers: Priscilla Tan, finance.
bram.arr | 183 | | Bramble & Vine ARR: $72,000.
bram.health.2 | 99 | health, bramble | B&V health 58. Usage down about 30% in July, 12 driver logins inactive for 3+ weeks.
bram.renewal.2 | 77 | bramble | Bramble & Vine renewed! 2-year term on OF-12044, next renewal 9/15/2028.
bram.sla.2>bram.sla | 77 | | Bramble & Vine Grocers SLA tier: Priority, thrown into the renewal at no extra cost to get the 2-year term.
bram.arr.2 | 76 | | B&V ARR on the new term: $79,200 (10% uplift).
bram.esc | 62 | escalation | Bramble & Vine escalation ESC-2410: Android driver app crashes on launch on Android 15 phones. Zendesk #51877.
bram.esc.2>bram.esc | 29 | escalation | ESC-2410 resolved in mobile 6.3.1. Sam says no crashes in a week.
bram.health.3 | 20 | | Bramble & Vine health score 74.
north.plan | 188 | northgate | Northgate Medical Couriers is on the Enterprise plan.
north.seats | 188 | | Northgate Medical Couriers has 310 seats.
north.renewal | 188 | renewal | Northgate Medical Couriers renews on February 28, 2027.
north.contact | 187 | | Main contact at Northgate Medical Couriers: Katherine Moss, VP Operations.
north.sponsor | 187 | people | Exec sponsor at Northgate: Frank Whitaker, CEO. Dana met him once, at the kickoff.
north.integration | 186 | | Northgate calls the Routewise REST API from their lab information system and uses Geotab for the vans.
north.sla | 186 | | Northgate Medical Couriers SLA tier: Premier, with a custom 30-minute P1 response addendum.
north.health | 185 | | Northgate Medical Couriers health score: 88.
north.meeting | 185 | | Northgate wants Monday calls at 11am CT.
north.region | 185 | | Northgate Medical Couriers is in the Central region, Chicago.
north.billing | 184 | billing | Billing contact at Northgate Medical Couriers: Gloria Nunez, accounts payable.
north.arr | 184 | | Northgate Medical Couriers ARR: $412,000.
north.baa | 170 | | Northgate needs a signed BAA on file for HIPAA. Ours is signed, dated 2024-11-02, in the legal drive.
north.esc | 140 | escalation | ESC-2307 (Northgate): chain-of-custody barcode scans don't sync when drivers are offline, leaving gaps in the specimen audit trail. Treat as P1.
north.esc.2>north.esc | 121 | escalation | ESC-2307 closed: the offline scan queue fix shipped in mobile 6.1.4 and the audit trail was backfilled.
north.contact.2 | 48 | northgate | Katherine Moss is on maternity leave until mid-January. Dev Malhotra, ops manager, is the day-to-day contact at Northgate meanwhile.
north.meeting.2 | 47 | northgate | Dev Malhotra wants the Northgate call Monday at 1pm CT, not 11.
tallow.plan | 182 | | Tallow Creek Farms is on the Starter plan.
tallow.seats | 182 | | Tallow Creek Farms has 25 seats.
tallow.renewal | 182 | renewal | Tallow Creek Farms renews on November 1, 2026.
tallow.contact | 181 | tallow | Main contact at Tallow Creek Farms: Jordan Pike, logistics coordinator.
tallow.sponsor | 181 | | Exec sponsor at Tallow Creek: Ruth Engstrom, general manager.
tallow.integration | 181 | | Tallow Creek Farms uses the QuickBooks Online integration for invoicing.
tallow.sla | 180 | | Tallow Creek Farms SLA tier: Standard.
tallow.health | 180 | | Tallow Creek Farms health score: 66.
tallow.meeting | 180 | | Tallow Creek prefers Thursday calls at 8am CT, after the morning milk runs go out.
tallow.region | 179 | | Tallow Creek Farms is Central region, Eau Claire, Wisconsin.
tallow.billing | 179 | billing | Billing contact at Tallow Creek Farms: Ruth Engstrom, who does the books herself.
tallow.arr | 179 | | Tallow Creek Farms ARR: $18,000.
tallow.plan.2>tallow.plan | 95 | tallow | Tallow Creek Farms plan: Growth. Upgraded on OF-12210 for proof-of-delivery photos and customer ETA texts.
tallow.seats.2 | 95 | tallow | Tallow Creek has 45 seats with the Growth upgrade.
tallow.arr.2 | 94 | | Tallow Creek ARR $32,400 after the upgrade.
tallow.renewal.2 | 33 | | Tallow Creek renewed for one year on Oct 29. Next renewal November 1, 2027.
tallow.health.2 | 32 | health | Tallow Creek Farms health score: 79.
pine.plan | 178 | | Pinecrest Home Services is on the Pro plan.
pine.seats | 178 | | Pinecrest Home Services has 90 seats, nearly all technicians.
pine.renewal | 178 | renewal | Pinecrest Home Services renews on April 15, 2027.
pine.contact | 177 | pinecrest, people | Main contact at Pinecrest Home Services: Derek Lyle, operations manager.
pine.champion | 177 | | Champion at Pinecrest: Derek Lyle. He presented Routewise at their all-hands.
pine.sponsor | 177 | | Exec sponsor at Pinecrest Home Services: Angela Pruitt, COO.
pine.integration | 176 | | Pinecrest Home Services syncs jobs with ServiceTitan.
pine.sla | 176 | | Pinecrest Home Services SLA tier: Priority.
pine.health | 176 | | Pinecrest Home Services health score: 54, red.
pine.meeting | 175 | | Pinecrest syncs on Tuesdays at 3pm ET.
pine.region | 175 | | Pinecrest Home Services is in NA-East, Atlanta.
pine.billing | 175 | billing | Billing contact at Pinecrest Home Services: Kathryn Ross, controller.
pine.arr | 175 | | Pinecrest Home Services ARR: $98,000.
pine.esc | 165 | escalation | ESC-2336 (Pinecrest): the ServiceTitan sync is creating duplicate jobs, about 40 a day. Zendesk #49902.
pine.esc.2 | 104 | escalation | ESC-2336 fixed: connector 2.7 dedupes on the ServiceTitan job id. Kathryn asked for a credit for the cleanup hours; passed to Leo.
pine.risk | 100 | pinecrest | Pinecrest is looking at Dispatchly before their renewal. Derek let slip that they sat through a demo.
pine.contact.2>pine.contact | 88 | | Derek Lyle left Pinecrest. New main contact is Tanya Brooks, service manager.
pine.champion.2 | 60 | pinecrest | Tanya Brooks is turning into a real champion at Pinecrest: she asked for the ServiceTitan roadmap and wants to present it to Angela herself.
pine.health.2>pine.health | 40 | | Pinecrest Home Services health score: 61, yellow.
pine.risk.2 | 27 | | Tanya says the Dispatchly evaluation is parked until spring; Angela didn't want to retrain 90 techs.
"""

MORE_ACCOUNTS = """
mer.plan | 174 | meridian | Meridian Parcel is on the Enterprise plan.
mer.seats | 174.5 | | Meridian Parcel has 400 seats.
mer.seats.2 | 174 | meridian | Correction: Meridian Parcel has 410 seats, not 400. Misread the order form.
mer.renewal | 174 | renewal | Meridian Parcel renews on December 31, 2026. Largest renewal in Dana's book.
mer.contract | 174 | | Meridian Parcel's contract is CTR-2023-0988.
mer.contact | 173 | meridian, people | Main contact at Meridian Parcel: Priyanka Shah, Director of Network Planning.
mer.champion | 173 | | Champion at Meridian: Luis Carmona, a former senior dispatcher who runs planning.
mer.sponsor | 173 | | Exec sponsor at Meridian Parcel: Evelyn Grant, SVP Network Operations.
mer.integration | 172 | | Meridian Parcel integrates with SAP S/4HANA for orders and Motive for ELD and telematics.
mer.sla | 172 | | Meridian Parcel SLA tier: Premier.
mer.health | 172 | | Meridian Parcel health score: 73.
mer.meeting | 171 | | Meridian prefers Thursdays at 9am CT.
mer.region | 171 | | Meridian Parcel is Central region, Dallas.
mer.billing | 171 | billing | Billing contact at Meridian Parcel: Chris Dalton, procurement.
mer.arr | 170 | | Meridian Parcel ARR: $520,000.
mer.channel | 170 | | Shared Slack channel with Meridian: #ext-meridian-parcel.
mer.seats.3>mer.seats.2 | 50 | | Meridian Parcel seats: 480. Peak-season drivers added, true-up billed in January.
mer.esc | 45 | escalation, meridian | ESC-2399 (Meridian Parcel): label API returning 429s at peak, about 8% of label calls failing between 5 and 7am CT.
mer.prio | 44 | | Dana pushed ESC-2399 to P1 with engineering: peak season, and the Meridian renewal is on the line.
mer.esc.2 | 36 | escalation | Meridian label API limit raised to 600 requests/min as a stopgap. ESC-2399 stays open until the queueing fix ships.
mer.prio.2>mer.prio | 35 | | ESC-2399 downgraded to P2 after the 600 rpm workaround; Tomás agreed.
mer.renewal.2>mer.renewal | 19 | renewal | Meridian Parcel renewal date: January 31, 2027. Procurement asked for a 30-day extension and Hannah approved it.
mer.health.2 | 14 | health | Meridian Parcel health score 69. Rate limits plus the renewal slipping.
mer.esc.3 | 6 | meridian | Queueing fix for ESC-2399 is scheduled for release 4.23 on Dec 8. Priyanka wants a heads-up the day before.
oak.plan | 169 | oakhurst | Oakhurst Beverage Distribution is on the Pro plan.
oak.seats | 169 | | Oakhurst Beverage Distribution has 120 seats.
oak.renewal | 169.5 | renewal | Oakhurst Beverage Distribution renews on August 1, 2027.
oak.renewal.2 | 169 | | Oakhurst renewal is actually July 1, 2027. Checked the signed contract; the CRM had it wrong.
oak.contact | 168 | oakhurst | Main contact at Oakhurst Beverage: Nadia Fontaine, director of logistics. Also the champion.
oak.sponsor | 168 | | Exec sponsor at Oakhurst Beverage: Tom Reinholt, VP Sales & Distribution.
oak.integration | 168 | | Oakhurst Beverage sends orders from Encompass as a nightly SFTP file drop.
oak.sla | 167 | | Oakhurst Beverage Distribution SLA tier: Standard.
oak.health | 167 | | Oakhurst Beverage Distribution health score: 80.
oak.meeting | 167 | | Oakhurst: every other Wednesday, 11am PT.
oak.region | 166 | | Oakhurst Beverage Distribution is NA-West, Sacramento.
oak.billing | 166 | billing | Billing contact at Oakhurst Beverage Distribution: Lena Vogt.
oak.arr | 166 | | Oakhurst Beverage Distribution ARR: $130,000.
oak.seats.2 | 110 | | Oakhurst added 15 seats for the Reno warehouse, 135 in all.
oak.integration.2 | 55 | oakhurst, integration | Oakhurst cut over to the Encompass API connector; orders arrive in real time and the SFTP drop was retired on Oct 6.
oak.meeting.2>oak.meeting | 26 | | Oakhurst biweekly call: Mondays 10am PT. Nadia's new team standup took the Wednesday slot.
salt.plan | 165 | | Saltmarsh Marine Supply is on the Growth plan.
salt.seats | 165 | | Saltmarsh Marine Supply has 35 seats.
salt.renewal | 165 | renewal | Saltmarsh Marine Supply renews on January 15, 2027.
salt.contact | 164 | saltmarsh | Main contact at Saltmarsh Marine Supply: Samantha Odell, general manager.
salt.sponsor | 164 | | Exec sponsor at Saltmarsh: Hal Odell, the owner (Samantha's father).
salt.integration | 164 | | Saltmarsh Marine Supply uses the QuickBooks Online integration.
salt.sla | 163 | | Saltmarsh Marine Supply SLA tier: Standard.
salt.health | 163 | | Saltmarsh Marine Supply health score: 69.
salt.meeting | 163 | | Saltmarsh: monthly call, first Monday of each month, 10am ET.
salt.region | 162 | | Saltmarsh Marine Supply is NA-East, Charleston, South Carolina.
salt.billing | 162 | billing | Billing contact at Saltmarsh Marine Supply: Samantha Odell.
salt.arr | 162 | | Saltmarsh Marine Supply ARR: $31,000.
salt.ticket | 90 | saltmarsh | Zendesk #52240 (Saltmarsh): geofence arrival alerts firing 10+ minutes late at the marina yard.
salt.ticket.2 | 71 | | #52240 solved. Saltmarsh's geofence radius was 50m; bumped it to 200m and alerts arrive on time.
salt.health.2>salt.health | 41 | saltmarsh | Saltmarsh Marine Supply health score: 47, red. Logins down by half and Samantha hasn't answered two emails.
salt.offer | 39 | | Idea for Saltmarsh: offer a downgrade to Starter at renewal rather than lose them.
salt.offer.2 | 25 | saltmarsh, renewal | Not offering Saltmarsh the Starter downgrade. Lorraine wants them kept on Growth, with three free onboarding sessions (RW-PS-ONB) for their new dispatchers.
hal.plan | 161 | halden | Halden Transport is on the Pro plan.
hal.seats | 161 | | Halden Transport has 75 seats.
hal.renewal | 161 | renewal | Halden Transport renews on May 31, 2027.
hal.contract | 161 | | Halden Transport's contract is CTR-2025-0152, billed in EUR.
hal.contact | 160 | halden, people | Main contact at Halden Transport: Elin Sandberg, head of transport planning.
hal.sponsor | 160 | | Exec sponsor at Halden Transport: Magnus Holm, CEO.
hal.integration | 160 | | Halden Transport integrates with Microsoft Dynamics 365 Business Central.
hal.sla | 159 | | Halden Transport SLA tier: Priority, plus EU data residency (RW-ADD-EUDR, hosted in eu-central).
hal.health | 159 | | Halden Transport health score: 76.
hal.meeting | 159 | | Halden call: Tuesdays 8am MT, which is 4pm in Gothenburg.
hal.region | 158 | | Halden Transport is EMEA, Gothenburg, Sweden. Dana's only EMEA account.
hal.billing | 158 | billing | Billing contact at Halden Transport: Karin Lund; invoices in EUR, net 30.
hal.arr | 158 | | Halden Transport ARR: €86,000.
hal.invoice | 70 | billing | Halden invoice INV-77120 (€21,400) is 45 days overdue. Karin says it was missing their PO number.
hal.invoice.2 | 52 | | INV-77120 paid Oct 9 after Leo reissued it with PO 4500-1187.
hal.meeting.2 | 30.5 | | Halden call moves to Wednesdays 7:30am MT; Elin has a 4pm ops review on Tuesdays.
hal.meeting.3>hal.meeting.2 | 30 | halden | Halden Wednesday call is at 8am MT, not 7:30. Elin confirmed.
cob.plan | 157 | cobalt | Cobalt Field Services is on the Growth plan.
cob.seats | 157 | | Cobalt Field Services has 50 seats.
cob.renewal | 157 | renewal | Cobalt Field Services renews on October 1, 2026.
cob.contact | 156 | cobalt | Main contact at Cobalt Field Services: Jordan Price, field operations manager.
cob.sponsor | 156 | | Exec sponsor at Cobalt Field Services: Ray Castellanos, VP Field Operations.
cob.integration | 156 | | Cobalt Field Services connects Routewise to Salesforce Field Service.
cob.sla | 155 | | Cobalt Field Services SLA tier: Standard.
cob.health | 155 | | Cobalt Field Services health score: 60.
cob.meeting | 155 | | Cobalt: Dana meets Jordan Price in person over lunch once a quarter; their office is 10 minutes from ours in Denver.
cob.region | 154 | | Cobalt Field Services is NA-West region, Denver.
cob.billing | 154 | billing | Billing contact at Cobalt Field Services: Marisol Vega, accounts@cobaltfield.com.
cob.arr | 154 | | Cobalt Field Services ARR: $44,000.
cob.addon | 41 | | Cobalt added the telematics add-on RW-ADD-TELEM for 50 trucks with the renewal.
cob.renewal.2>cob.renewal | 40 | cobalt, renewal | Cobalt Field Services signed Oct 20, three weeks late because of their legal review. Next renewal October 1, 2027.
cob.health.2 | 39 | | Cobalt Field Services health score 72.
"""
