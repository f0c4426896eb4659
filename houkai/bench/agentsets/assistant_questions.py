# ruff: noqa: E501  (hand-written data tables)
"""The ``assistant`` set's questions, written by hand with the memories that answer them.

One line per question: ``kind | keys | topic | text``, as in :mod:`.team_questions`.
*keys* are the answering memories' keys (comma-separated); *topic* is blank for the first
key's topic, or names its own (multi-hop questions). A ``current`` question's answer is
the newest of several statements on its topic; a ``past`` one asks for an older statement
on a topic whose update carries no ``supersedes`` link; a ``distractor`` one has another
person's, pet's or project's statement of the same kind in nearly the same words.
"""

from __future__ import annotations

QUESTIONS = """
current | job.title.2 | | What's my job title now?
current | job.manager.2 | | Who's my manager?
current | job.team.2 | | Which team do I lead product for?
current | standup.time.2 | | What time is our daily standup?
current | office.days.2 | | Which days am I expected in the office these days?
current | pel.deadline.3, pel.status.3 | | What's the latest GA date for Pelican?
current | pel.ocr.2 | | Which OCR service does Pelican use?
current | osp.owner.2 | | Who is the PM on Osprey currently?
current | osp.launch.2 | | When does Osprey launch?
current | mar.owner.2 | | Who's running the onboarding revamp?
current | mar.status.3 | | Where is Marigold at now?
current | tracker.2 | | What do we use for issue tracking at work?
current | docs.2 | | Where do PRDs get written now?
current | oneonone.2 | | When is my weekly 1:1 with my manager?
current | deploy.day.2 | | Which day does Tandemly release to production?
current | analytics.2 | | Which product analytics tool are we on these days?
current | brm.stack.2 | | What is Bramble being built with?
current | coffee.3 | | What's my usual coffee order these days?
current | diet.2 | | Do I still eat fish?
current | gym.2 | | Which gym am I a member of?
current | car.2 | | What car do I drive now?
current | home.addr.2 | | What's our home address?
current | wifi.2 | | What's the home Wi-Fi network called?
current | nora.school.2 | | What's Nora's school called these days?
current | parents.where.2 | | Where do my parents live now?
current | dogwalker.2 | | Who walks Biscuit?
current | biscuit.food.2 | | What food is Biscuit on at the moment?
current | migraine.2 | | What do I take when a migraine starts?
current | budget.app.2 | | Which budgeting app do we use?
current | book.club.2 | | When does book club meet now?
current | peds.2 | | Who is the kids' pediatrician?
current | home.ins.2 | | Who insures the house currently?
current | prodreview.2 | | When is product review?
current | dentist.appt.2 | | When is my dental cleaning?
current | chicago.flight.2 | | Which flight did I take to Chicago?
current | commute.2 | | How do I get to work these days?
current | osp.status.2 | | What's the latest on Osprey?
current | osp.vendor.contact.2 | | Who's our account manager at Lithic?
current | restaurant.2 | | Where do Theo and I like to go for date night?
past | job.title.1 | | What was my title before the promotion?
past | job.manager.1 | | Who did I report to before the reorg?
past | pel.deadline.1 | | What was Pelican's original GA date?
past | pel.deadline.2 | | What was the Pelican GA date before it slipped to November?
past | deploy.day.1 | | Which day did we use to deploy on?
past | office.days.1 | | Which days was I in the office before the RTO policy?
past | osp.owner.1 | | Who was the PM on Osprey before me?
past | mar.owner.1 | | Who led Marigold originally?
past | tracker.1 | | What did Tandemly use for tickets before Linear?
past | coffee.1 | | What was my coffee order back in the spring?
past | parents.where.1 | | Where did my parents live before they moved to Arizona?
past | home.addr.1 | | What was our address at the old apartment?
past | nora.school.1 | | Where did Nora go to school last year?
past | dogwalker.1 | | Who used to walk Biscuit?
past | sitter.1 | | Who was our babysitter before Luz?
past | run.goal.1 | | What was my original goal time for the half marathon?
past | commute.1 | | How did I get to the office back when we lived on Pearl St?
past | restaurant.1 | | What was our go-to date-night place before I stopped eating fish?
distractor | elliot.allergy | | What is Elliot allergic to?
distractor | elliot.activity | | What sport does Elliot play on weekends?
distractor | mochi.vet | | Who is Mochi's vet?
distractor | biscuit.meds | | What medication does Biscuit take?
distractor | mochi.food | | What does Mochi eat?
distractor | devon.role | | What does Devon Kapur do?
distractor | dev.role | | Who is Dev Kapoor?
distractor | cara.role | | What's Cara Lindholm's job?
distractor | kara.role | | What does Kara Lindgren work on?
distractor | matteo.role | | Who is Matteo Russo?
distractor | mateo.location | | Where is Mateo Ruiz based?
distractor | theo.coffee | | How does Theo take his coffee?
distractor | theo.parents | | Where do Theo's parents live?
distractor | osp.channel | | What's the Slack channel for Osprey?
distractor | mar.deadline | | When is Marigold due?
distractor | tern.deadline | | What's the deadline for Tern?
distractor | tern.owner | | Who owns Tern?
distractor | jess.birthday | | When is Jess's birthday?
distractor | elliot.529 | | How much goes into Elliot's 529 each month?
distractor | theo.doctor | | Who's Theo's doctor?
distractor | nora.shoe | | What shoe size is Nora?
distractor | elliot.bedtime | | What time does Elliot go to bed?
distractor | devon.location | | Where does Devon Kapur live?
distractor | cara.diet | | Does Cara Lindholm have any dietary restrictions?
distractor | mileage.theo | | What's Theo's MileagePlus number?
distractor | brm.deadline | | When is the Bramble beta due?
distractor | user.doctor | | Who is my primary care doctor?
paraphrase | nora.allergy | | Is there anything my daughter can't eat?
paraphrase | theo.role.2, theo.role.1 | | Where does my husband work?
paraphrase | mortgage | | How much do we pay for the house each month?
paraphrase | mochi.meds | | What's the cat's prescription?
paraphrase | matteo.role | | Who should look over a change to the cardholder agreement?
paraphrase | sitter.2 | | Who keeps an eye on the kids on Thursday afternoons?
paraphrase | biscuit.vet.2 | | Where do we take the dog when he's sick?
paraphrase | k401.2 | | How much of my paycheck goes toward retirement?
paraphrase | user.knee | | Where do I do physio for my leg?
paraphrase | accountant | | Who does our taxes?
paraphrase | japan.hotel.tokyo | | Where did we sleep in Tokyo?
paraphrase | remodel.start | | When do they start tearing out the kitchen?
paraphrase | kara.role | | Who's the numbers person I work with on conversion?
paraphrase | wes.role | | Who's the head of engineering at my company?
paraphrase | perf.review | | What did my boss say about me in my summer review?
paraphrase | run.result | | How fast did I run the race in November?
paraphrase | garage.code | | How do I open the garage without the remote?
paraphrase | osp.issuer | | Who's our vendor for the virtual cards?
paraphrase | lorna.role | | Who do I go to with people issues in Product?
paraphrase | spare.key | | If I'm locked out, who can let me in?
paraphrase | trash | | What night do the bins go out?
paraphrase | pel.metric | | What number does Pelican have to hit to count as a win?
paraphrase | pref.style | | How do I like your replies formatted?
paraphrase | gina.baby | | What's my nephew's name?
paraphrase | anniversary | | When did Theo and I get married?
paraphrase | dad.health | | Does my father have any medical conditions?
paraphrase | noor | | Who's my best friend?
paraphrase | yusuf.role | | Who manages the iPhone and Android developers?
keyword | pel.ticket | | PEL-412
keyword | osp.ticket | | What's OSP-88 about?
keyword | mar.ticket.1, mar.ticket.2 | | MAR-230 status?
keyword | japan.flight.1, japan.flight.2 | | Booking PQ4N7X — what is it for?
keyword | car.2 | | Which car has plate CNF-W18?
keyword | theo.car | | Whose car is AKM-P90?
keyword | home.ins.2 | | What is policy HO 619-402-77?
keyword | wifi.2 | | What is Krameria-Guest?
keyword | chicago.flight.1, chicago.flight.2 | | H8VZRM
keyword | parents.flight.2 | | When does WN 2266 land?
keyword | japan.hotel.kyoto | | RK-448120
keyword | brm.version | | What was in mobile release 5.14.2?
keyword | costco | | What's my Costco membership number?
keyword | tern.ticket | | TERN-57
keyword | laptop.2 | | Which laptop is TND-05120?
keyword | ktn | | What's my Known Traveler Number?
multi-hop | elliot.school.2, elliot.allergy | mh.greenberg-allergy | What is the kid in Ms. Greenberg's class allergic to?
multi-hop | pel.ocr.2, pel.channel | mh.docai-channel | Which Slack channel is for the project that moved to Google Document AI?
multi-hop | osp.ticket, osp.issuer | mh.osp88-issuer | Which issuing partner does the project with bug OSP-88 use?
multi-hop | mochi.meds, mochi.vet | mh.methimazole-vet | Which vet treats the pet that's on methimazole?
multi-hop | nora.allergy, nora.school.2 | mh.epipen-teacher | Who is the teacher of my kid with the EpiPen?
multi-hop | parents.flight.2, parents.where.2 | mh.wn2266-home | Where do the people flying in on WN 2266 live?
multi-hop | tern.owner, tern.deadline | mh.ollie-deadline | When is Ollie's project due?
multi-hop | conf.talk, chicago.hotel | mh.summit-hotel | Which hotel am I staying at for the summit where I'm giving the receipts talk?
multi-hop | biscuit.meds, dogwalker.2 | mh.apoquel-walker | Who walks the pet that's on Apoquel?
multi-hop | job.manager.2, oneonone.2 | mh.director-1on1 | When do I meet each week with the Director of Product for Spend Management?
multi-hop | job.manager.2, amara.boss | mh.skip-level | Who is my manager's boss?
multi-hop | tern.pilot, tern.deadline | mh.denise-deadline | When is the pilot due for the customer Denise Pratt works at?
multi-hop | mar.owner.2, hugo.role | mh.marigold-lead-origin | Which company did the person now running Marigold come from?
multi-hop | osp.issuer, osp.vendor.contact.2 | mh.issuer-manager | Who's the account manager at the company that issues Osprey's cards?
"""
