# ruff: noqa: E501  (hand-written data tables)
"""The ``support`` set's questions, written by hand with the memories that answer them.

One line per question: ``kind | keys | topic | text``, as in :mod:`.team_questions`.
*keys* are the answering memories' keys (comma-separated); *topic* is blank for the first
key's topic, or names its own (multi-hop questions). A ``current`` question's answer is
the newest of several statements on its topic; a ``past`` one asks for an older statement
on a topic whose update carries no ``supersedes`` link; a ``distractor`` one has another
account's or person's statement of the same kind in nearly the same words. They are typed
the way a busy account manager asks her assistant.
"""

from __future__ import annotations

QUESTIONS = """
current | kes.plan.2 | | what plan is kestrel on
current | kes.seats.3 | | how many seats does Kestrel have now?
current | kes.sponsor.2 | | who's the exec sponsor at kestrel
current | kes.meeting.2 | | when is my kestrel sync
current | kes.health.3 | | kestrel health score?
current | kes.esc.2 | | is the Kestrel ETA escalation still open
current | kes.report.2 | | does kestrel get the pdf report or a slack update
current | bram.renewal.2 | | When is Bramble & Vine up for renewal?
current | bram.sla.2 | | what SLA tier is bramble and vine on
current | bram.health.3 | | B&V health score currently
current | north.contact.2 | | who's my day-to-day contact at northgate right now
current | north.meeting.2 | | what time is the northgate call
current | tallow.plan.2 | | which plan is tallow creek on
current | tallow.renewal.2 | | next renewal date for tallow creek farms
current | pine.contact.2 | | main contact at pinecrest?
current | pine.champion.2 | | who's our champion at Pinecrest these days
current | pine.health.2 | | pinecrest health score
current | pine.risk.2 | | is pinecrest still evaluating dispatchly
current | mer.renewal.2 | | when does meridian renew
current | mer.seats.3 | | Meridian Parcel seat count
current | mer.esc.3 | | where are we on the meridian label api 429s
current | oak.integration.2 | | how do oakhurst's orders get into routewise
current | oak.meeting.2 | | when do I meet with oakhurst
current | oak.renewal.2 | | oakhurst renewal date
current | salt.offer.2 | | what are we offering saltmarsh at renewal
current | hal.meeting.3 | | what time is the halden call now
current | cob.renewal.2 | | when's cobalt's next renewal
current | mgr.2 | | who's my manager
current | supportlead.2 | | who do my escalations go to
current | se.2 | | who's the SE on my accounts currently
current | pref.summary.2 | | how should my call summaries be laid out
current | pref.qbr.2 | | when in the quarter do I run QBRs
current | pref.healthtool.2 | | where do we get health scores from now
current | pref.friday.2 | | which part of friday is blocked on my calendar
current | pref.forecast.2 | | when is the renewal forecast due
current | prod1832.2 | | latest ETA on PROD-1832?
current | backup.2 | | who covers my accounts when I'm on PTO
past | kes.sponsor | | who was kestrel's exec sponsor before alicia ferris
past | kes.plan | | what plan was Kestrel on before the upgrade
past | kes.report | | back in the summer what did chris want instead of the monthly pdf
past | bram.renewal | | when was bramble & vine's renewal originally due
past | north.contact | | who was my main contact at northgate before dev malhotra
past | tallow.seats | | how many seats did tallow creek have before they upgraded
past | pine.champion | | who used to be our champion at pinecrest
past | oak.integration | | how did oakhurst send us orders before the api connector
past | salt.offer | | what did I first want to offer saltmarsh to keep them
past | supportlead | | who handled my escalations before tomás
past | se | | who was my SE before Ben
past | pref.healthtool | | what did we use for health scores before gainsight
past | pref.summary | | how did I originally want call summaries formatted
past | dec.pinedisc | | what discount was I going to offer pinecrest at first
past | backup | | who used to cover my accounts while I was out
distractor | kes.renewal | | when does kestrel renew
distractor | north.renewal | | northgate renewal date?
distractor | pine.renewal | | when's pinecrest's renewal
distractor | hal.renewal | | halden transport renewal date
distractor | salt.renewal | | when does saltmarsh come up for renewal
distractor | pine.billing | | who's the billing contact at pinecrest
distractor | north.billing | | billing contact at northgate medical couriers
distractor | mer.billing | | who handles billing at meridian parcel
distractor | kes.billing | | kestrel billing contact?
distractor | tallow.integration | | what does tallow creek integrate with
distractor | salt.integration | | which integration does saltmarsh use
distractor | kes.sla | | what SLA tier is Kestrel on
distractor | pine.sla | | pinecrest SLA tier
distractor | tallow.contact | | who is Jordan Pike
distractor | cob.contact | | main contact at cobalt field services
distractor | bram.contact | | who's sam oduya again
distractor | salt.contact | | what's samantha odell's role
distractor | kes.contact | | what does chris delgado do
distractor | north.contact | | katherine moss, what's her title
distractor | mer.sponsor | | exec sponsor at meridian
distractor | north.sponsor | | who's the exec sponsor at northgate
distractor | oak.sponsor | | oakhurst exec sponsor?
distractor | mer.meeting | | what day and time does meridian like to meet
distractor | north.arr | | northgate ARR
distractor | kes.champion | | who's the champion at kestrel
paraphrase | cob.meeting | | which customer do I see face to face over a meal
paraphrase | hal.sla | | which account needs its data kept in europe
paraphrase | north.baa | | is the hipaa paperwork done for the lab courier
paraphrase | bram.sponsor | | who has to approve big spend at the grocery account
paraphrase | north.integration | | how does the medical courier's software talk to ours
paraphrase | pref.email | | how should drafts I send out be written
paraphrase | pref.hours | | what's the earliest I'll take a customer meeting
paraphrase | pref.prep | | what goes on the sheet I read before talking to a customer
paraphrase | pref.nrr | | what's my retention goal this year
paraphrase | pref.gong | | where do the recordings of my customer conversations live
paraphrase | pref.notes | | where do I keep my writeups on each customer
paraphrase | pref.qbrsmall | | how often do the tiny accounts get a business review
paraphrase | slack.renewals | | where and when do I post how upcoming deals are going
paraphrase | dealdesk | | who has to sign off on paperwork before a customer sees it
paraphrase | billingops | | who can fix or resend a bill for a customer
paraphrase | pm | | who owns the product area for arrival time predictions
paraphrase | se.halden | | who helps out when the swedish customer has ERP questions
paraphrase | cro | | which senior exec wants in on the big Dallas deal talks
paraphrase | sku.telem | | how much do we charge per truck for tracking
paraphrase | mer.integration | | what ERP does the Dallas parcel company run
paraphrase | salt.sponsor | | who owns the boat parts business
paraphrase | tallow.billing | | who pays the bills at the dairy
paraphrase | bram.integration | | where does the grocer's order data come from
keyword | kes.contract | | CTR-2024-0311
keyword | mer.contract | | which customer is contract CTR-2023-0988
keyword | hal.contract | | CTR-2025-0152 whose is that
keyword | kes.plan.2 | | what was OF-11823 for
keyword | bram.renewal.2 | | OF-12044?
keyword | tallow.plan.2 | | what did OF-12210 change
keyword | kes.esc | | what was ESC-2291 about
keyword | north.esc | | ESC-2307
keyword | pine.esc | | ESC-2336 what was the problem
keyword | mer.esc | | what's ESC-2399
keyword | bram.esc | | zendesk 51877
keyword | salt.ticket | | what was ticket #52240
keyword | hal.invoice | | INV-77120
keyword | sku.onb | | what is RW-PS-ONB
keyword | dec.pinedisc.2 | | RW-ADD-STSYNC, who's getting that
keyword | kes.channel | | which customer is #ext-kestrel-routewise
multi-hop | pine.billing, pine.sla | mh.kathryn | what SLA does the account with Kathryn Ross in billing have
multi-hop | mer.billing, mer.renewal.2 | mh.dalton | when does the account chris dalton buys for renew
multi-hop | bram.esc, bram.plan | mh.android | what plan is the account with the android crash escalation on
multi-hop | hal.integration, hal.sponsor | mh.dynamics | exec sponsor at the account that runs dynamics 365
multi-hop | tallow.contact, tallow.health.2 | mh.pike | health score at jordan pike's company
multi-hop | kes.plan.2, kes.seats.3 | mh.of11823 | how many seats does the OF-11823 customer have
multi-hop | mer.champion, mer.meeting | mh.carmona | what time's the regular call with Luis Carmona's company
multi-hop | pine.risk, pine.arr | mh.dispatchly | how much ARR is at stake with the account that demoed dispatchly
multi-hop | north.sponsor, north.region | mh.whitaker | what region is frank whitaker's company in
multi-hop | bram.contact, bram.integration | mh.oduya | what does sam oduya's company integrate with
multi-hop | tallow.integration, salt.integration | mh.quickbooks | which of my accounts are on quickbooks
multi-hop | kes.sla, north.sla, mer.sla | mh.premier | which accounts have premier support
multi-hop | prod1832.2, oak.contact | mh.prod1832 | who at oakhurst do I tell about the PROD-1832 slip, and what's the new quarter
multi-hop | mer.renewal.2, dealdesk | mh.hannah | who approved the meridian extension and what's her job
multi-hop | kes.region, pine.region, salt.region | mh.naeast | which of my accounts are in NA-East
"""
