# ruff: noqa: E501  (hand-written data tables)
"""The ``team`` set's questions, written by hand with the memories that answer them.

One line per question: ``kind | keys | topic | text``. *keys* are the answering
memories' keys (comma-separated); *topic* is blank for the first key's topic, or names
its own (multi-hop questions). A ``current`` question's answer has an older statement
on the same topic; a ``past`` one asks for that older statement (only on topics where the
update carries no ``supersedes`` link, which default recall would hide); a ``distractor``
one has another person's or project's statement of the same kind in the same words.
"""

from __future__ import annotations

QUESTIONS = """
current | hf.deadline.3 | | When is the Lighthouse launch now?
current | hf.deadline.3 | | What's Halden Freight's go-live date?
current | hf.budget.2 | | What is the Lighthouse budget?
current | hf.cadence.2 | | How often do we meet with Halden Freight these days?
current | hf.status.3 | | What phase is the Halden Freight project in?
current | hm.stack.2 | | What backend does Tidewatch use?
current | hm.deadline.2 | | When does Tidewatch go live now?
current | hm.status.2 | | What's the latest status of Tidewatch?
current | bd.host.2 | | Where is Birchway hosted?
current | bd.cadence.2 | | How often is the Birchway call now?
current | bd.status.2 | | Is Birchway live yet?
current | oak.owner.2 | | Who owns the Oakridge project currently?
current | oak.status.2 | | What stage is the Oakridge portal at?
current | pem.stack.2 | | What BI tool does the Pemberton dashboard use now?
current | pem.budget.2 | | What's Pemberton's budget?
current | pem.status.2 | | Is the Pemberton project still paused?
current | pem.deadline.2 | | When is the Pemberton dashboard due?
current | web.deadline.2 | | When is the website relaunch?
current | marta.ext.2 | | What's Marta's extension now?
current | me.summary.2 | | What time do I get my daily summary?
current | me.meetings.2 | | When should you avoid booking meetings for me?
current | me.invoices.2 | | How far ahead should you remind me about unpaid invoices?
current | marta.pref.2 | | How should I get hold of Marta these days if she's blocked?
current | martin.diet.2 | | What should I order for Martin at team lunch?
current | sanjayi.report.2 | | When is the weekly status report due to Sanjay?
current | joan.receipts.2 | | What's the cut-off for expense receipts?
current | sanjayr.days.2 | | Which days does Sanjay Rao work with us?
current | dec.release.2 | | What's our release day?
current | dec.review.2 | | How many approvals does a PR need now?
current | dec.time.2 | | Which time tracking tool are we using at the moment?
current | dec.office.2 | | Which days do I have to be in the office?
current | wifi.2 | | What's the guest wifi password?
past | hf.deadline.1 | | What was the original Halden Freight deadline?
past | hf.deadline.2 | | What was the Lighthouse launch date before it moved to December?
past | hf.cadence.1 | | How often did we meet Halden Freight at the start of the project?
past | hm.deadline.1 | | What was Tidewatch's go-live date before the Supabase migration?
past | bd.cadence.1 | | How often did we have the Birchway call before launch?
past | pem.stack.1 | | Which BI tool was the Pemberton dashboard using before Superset?
past | pem.deadline.1 | | What was Pemberton's due date before the budget freeze?
past | web.deadline.1 | | What was the original target for the website relaunch?
past | marta.ext.1 | | What was Marta's old extension in the Mill Lane office?
past | me.summary.1 | | What time did I get my daily summary before the school run?
past | me.invoices.1 | | How many days before the due date did you use to remind me about invoices?
past | martin.diet.1 | | What did Martin eat before he went vegan?
past | dec.office.1 | | Which days were office days before the move?
past | joan.receipts.1 | | What was the receipts deadline before the accountant changed it?
past | sanjayr.days.1 | | Which days did Sanjay Rao work originally?
past | wifi.1 | | What was the guest wifi password in the old office?
distractor | hm.owner | | Who is the tech lead on Tidewatch?
distractor | hf.owner | | Who is the tech lead for Lighthouse?
distractor | hm.budget | | What's the Halden Marine budget?
distractor | hm.contact | | Who is our contact at Halden Marine?
distractor | bd.stack | | What's the stack of the Birchway app?
distractor | oak.deadline | | When is the Oakridge go-live?
distractor | oak.budget | | What's the Oakridge budget?
distractor | hm.cadence | | When is the weekly Halden Marine check-in?
distractor | pem.cadence | | When is the weekly Pemberton meeting?
distractor | martin.ext | | What is Martin's extension?
distractor | jon.role | | What does Jon Reyes do?
distractor | joan.role | | What's Joan Reyes's job?
distractor | sanjayr.role | | What does Sanjay Rao do?
distractor | sanjayi.role | | Who is Sanjay Iyer?
distractor | elisa.tool | | Which video call tool does Elisa prefer?
distractor | elise.tool | | Which video call tool does Elise like?
distractor | marta.diet | | Does Marta have any dietary needs for team lunches?
distractor | web.owner | | Who owns the website relaunch?
distractor | web.budget | | What's the budget for the website relaunch?
distractor | web.cadence | | How often is the website check-in?
distractor | pem.owner | | Who is the PM for Pemberton?
distractor | oak.stack | | What is the Oakridge tech stack?
distractor | bd.contact | | Who is our contact at Birchway Dental?
distractor | oak.contact | | Who's our contact at Oakridge Council?
distractor | hm.host | | What's the hostname of the Tidewatch API?
paraphrase | hf.contact | | Who do I email at the freight company about the tracking portal?
paraphrase | hf.host | | Which machines does the shipment tracker run on?
paraphrase | oak.budget | | How much is the council deal worth in total?
paraphrase | oak.stack | | Which frameworks is the council's planning site built with?
paraphrase | bd.deadline | | By when must the dental clinic's app be up and running?
paraphrase | hm.budget | | How big is the fixed fee for the crew rota app?
paraphrase | ben.role | | Who handles renewals and new business?
paraphrase | kenji.role | | Who looks after our servers and IT?
paraphrase | priya.role | | Who is the newest junior on the backend team, and who mentors her?
paraphrase | kenji.mobile | | How do I reach Kenji out of hours?
paraphrase | dec.chat | | Why didn't we move our chat over to Microsoft?
paraphrase | dec.ai | | Can developers use AI code assistants on the council project?
paraphrase | dec.laptop | | What machines are engineers getting in the hardware refresh?
paraphrase | dec.backup | | Where do our off-site nightly copies go?
paraphrase | dec.xmas | | When and where is the end-of-year party?
paraphrase | door | | What's the code to get into the building?
paraphrase | parking | | Where can visitors leave their cars?
paraphrase | grafana | | Where can I see metrics for the client production machines?
paraphrase | vpn | | How do I connect to the company network from home?
paraphrase | ben.pref | | Who needs to be warned before a customer learns that a project is late?
paraphrase | martin.pref | | Through which channel should customer matters go to Martin?
paraphrase | pem.contact | | Who is the insurance company's analytics person?
paraphrase | pem.stack.2 | | Why did the claims dashboard change its reporting tool?
paraphrase | hm.stack.2 | | Why did we leave Google's backend for the crew app?
paraphrase | dec.release.2 | | Why was the day we ship changed?
paraphrase | bd.host.2 | | Why did the dental client end up on Amazon's cloud?
paraphrase | pbx | | What number rings the phone in our main meeting room?
keyword | hf.ticket231.1, hf.ticket231.2 | | HF-231
keyword | hm.ticket231 | | What is HM-231 about?
keyword | bd.ticket88.1, bd.ticket88.2 | | BD-88 status?
keyword | oak.ticket102.1, oak.ticket102.2 | | OAK-102
keyword | pem.ticket14 | | What's PEM-14?
keyword | hf.ticket198 | | HF-198 what was the fix
keyword | hf.invoice, hf.invoice.paid | | Who was INV-2026-0412 sent to?
keyword | bd.invoice.1 | | Amount on INV-2026-0431?
keyword | inv.hm, inv.hm.paid | | INV-2026-0438
keyword | inv.oak | | INV-2026-0449 amount and client
keyword | hf.host | | What is hf-staging-01?
keyword | martin.ext | | Who is on ext 241?
keyword | oak.ci | | oak-ci-runner-02
keyword | bd.hostname | | bw-prod.eu.fernhill.cloud
keyword | priya.ext | | Whose desk phone is 318?
multi-hop | hf.owner, marta.ext.2 | mh.hf-lead-ext | What's the phone extension of the Lighthouse tech lead?
multi-hop | hf.budget.2, hf.contact | mh.cr7-contact | Who do I email at the client whose budget went up with CR-7?
multi-hop | hm.owner, martin.diet.2 | mh.tidewatch-lead-diet | What should I order for lunch for the Tidewatch tech lead?
multi-hop | oak.owner.2, elisa.tool | mh.oak-owner-tool | Which video tool does the person now running Oakridge prefer?
multi-hop | priya.role, marta.role | mh.priya-buddy | What is the role of Priya's buddy?
multi-hop | bd.invoice.2, bd.contact | mh.overdue-owner | Who owns the practice whose invoice is overdue?
multi-hop | oak.budget, oak.stack | mh.340k-stack | What stack does the €340k fixed-price project use?
multi-hop | hm.host, hm.owner | mh.tidewatch-host-pm | Who is the tech lead of the project running on tidewatch-api.fernhill.cloud?
multi-hop | pem.contact, pem.cadence | mh.ruth-meeting | When is the regular meeting for the project Ruth Adeyemi is our contact on?
multi-hop | dec.time.2, joan.role | mh.rekey-ext | Who had to re-key hours from Toggl, and what's their extension?
multi-hop | pem.owner, sanjayr.days.2 | mh.pem-qa-days | Which days does the Pemberton QA person work now?
multi-hop | bd.invoice.1, bd.host.2 | mh.0431-region | Which AWS region hosts the client billed on INV-2026-0431?
"""
