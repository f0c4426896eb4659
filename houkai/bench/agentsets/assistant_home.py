# ruff: noqa: E501  (hand-written data tables)
"""The ``assistant`` set's memories about the user's private life, written by hand.

Family, home, car, pets, health, money, travel and hobbies. Same line format as
:mod:`.assistant_work`.
"""

from __future__ import annotations

FAMILY = """
theo.role.1 | 188 | family | User's partner Theo Brandt teaches chemistry at East High School.
nora.born | 188 | nora | User's daughter Nora was born January 14, 2017.
elliot.born | 188 | | User's son Elliot was born September 2, 2021.
parents.where.1 | 186 | family | User's parents, Carla and Vince Marchetti, live in Scranton, Pennsylvania.
gina | 186 | | User's sister Gina lives in Boston with her husband Rafael. Their first baby is due in September.
nora.school.1 | 184 | nora | Nora is in 3rd grade at Dora Moore K-8; her teacher is Ms. Alvarez.
elliot.school.1 | 184 | elliot | Elliot goes to Bright Acorn Preschool on 9th Ave, weekday mornings.
nora.allergy | 183 | health | Nora is allergic to tree nuts (cashews and pistachios are the worst) and carries an EpiPen.
theo.parents | 182 | | Theo's parents, Ulla and Walter Brandt, live in Milwaukee.
elliot.allergy | 182 | | Elliot is allergic to amoxicillin — he broke out in hives in 2023.
peds.1 | 180 | kids | The kids' pediatrician is Dr. Lena Sato at Rocky Mountain Pediatrics in Uptown.
theo.coffee | 178 | | Theo takes his coffee black: plain drip, no sugar.
nora.activity.1 | 176 | | Nora has swim team on Tuesdays and Thursdays, 5–6pm, at the Washington Park rec center.
noor | 176 | friends | Noor Haddad is user's closest friend from grad school; lives in the Highlands. Birthday April 19.
elliot.activity | 175 | elliot | Elliot plays in the Saturday U7 soccer league; games at 9am.
theo.diet | 172 | | Theo is lactose intolerant, but hard cheeses are fine.
sitter.1 | 170 | kids | Babysitter is Hazel Quinn (CU Denver student): Thursdays 3–7pm, $20 an hour.
nora.friend | 168 | | Nora's best friend is Ivy Castellanos. Ivy's mom is Renata, 720-555-0143.
elliot.friend | 167 | | Elliot's best buddy is Kofi Mensah from preschool; Kofi's dad Ekow is 720-555-0178.
theo.birthday | 164 | | Theo's birthday is March 3.
dad.health | 155 | family, health | User's dad has type 2 diabetes, managed with metformin; mom keeps an eye on his sugar.
jess.birthday | 150 | | Jess Oduya (neighbor, Saturday running buddy) has her birthday on July 8.
screen.1 | 150 | kids | Screen time rule for both kids: one hour on school days, two on weekends.
nora.shoe | 148 | | Nora wears a youth size 3 shoe.
elliot.shoe | 148 | | Elliot is in a kids' size 12 shoe.
nora.bedtime.1 | 146 | | Nora's bedtime is 8:30 on school nights.
elliot.bedtime | 146 | | Elliot's bedtime is 7:45.
anniversary | 145 | | User and Theo's wedding anniversary is June 21; they married in 2014.
mom.knee | 130 | health | User's mom Carla had a knee replacement on July 22. Recovery is going well.
nora.529 | 130 | money | Nora's 529 plan (CollegeInvest) gets $200 a month.
elliot.529 | 130 | money | Elliot's 529 plan (CollegeInvest) gets $150 a month.
dad.birthday | 128 | | User's dad Vince turns 70 on December 12 — user wants to plan something special.
nora.school.2 | 103 | nora | Nora started 4th grade at Park Hill Elementary; her teacher is Mr. Dubois.
elliot.school.2>elliot.school.1 | 103 | elliot | Elliot started kindergarten at Park Hill Elementary, in Ms. Greenberg's class.
peds.2 | 101 | kids | Kids now see Dr. Ahmed Rauf at Park Hill Pediatric Partners — five minutes from the new house.
nora.bedtime.2 | 100 | | Nora goes to bed at 9:00 on school nights now that she's in fourth grade.
tg.plan.1 | 100 | | Thanksgiving plan: fly to Tucson and stay with user's parents, who should be settled there by then.
sitter.2 | 95 | kids | Thursday after-school sitter: Luz Ortega, $22/hr, picks both kids up at 3:10.
nora.activity.2 | 80 | nora | Nora plays violin in the Park Hill youth orchestra; rehearsals Wednesdays 4:30–6.
nora.violin | 79 | | Nora's private violin lessons: Mrs. Kwon, Saturdays 10am, $45 per half hour.
gina.baby | 79 | | Gina had the baby — Luca, born September 11, 7 lb 2 oz.
parents.where.2 | 75 | family | Mom and Dad closed on a two-bedroom condo in Tucson, near Sabino Canyon.
theo.role.2>theo.role.1 | 68 | | Theo is science department chair at East High this year and still teaches two chemistry sections.
screen.2>screen.1 | 34 | kids | No screens on school days anymore, except Nora's homework; weekends unchanged.
tg.plan.2 | 29 | thanksgiving | User is hosting Thanksgiving at home this year: parents flying in from Tucson, Gina's family too.
xmas.plan | 25 | travel | Christmas is at Theo's parents' in Milwaukee, Dec 23–28. Frontier F9 1206, confirmation KJ2W8L.
parents.flight.1 | 20 | | Mom and Dad land at DEN on Nov 24 on Southwest WN 1873, 2:40pm.
parents.flight.2 | 19.6 | thanksgiving | Parents' flight changed to Southwest WN 2266, landing 5:15pm on Nov 24.
"""

HOME = """
biscuit | 188 | biscuit | The family dog is Biscuit, a four-year-old beagle mix adopted in 2022.
mochi | 188 | | The cat is Mochi, an 11-year-old grey tabby, indoor only.
home.addr.1 | 187 | home | User lives in a rented 3-bedroom apartment at 1420 Pearl St, Apt 5B (Capitol Hill, Denver).
wifi.1 | 186 | | Home Wi-Fi network: PearlSt-5B.
isp.1 | 185 | | Apartment internet is Xfinity, 400 Mbps.
car.1 | 184 | car | User drives a silver 2016 Honda CR-V, Colorado plate BXR-J42.
theo.car | 180 | car | Theo drives a 2019 Subaru Outback, plate AKM-P90.
biscuit.vet.1 | 178 | biscuit | Biscuit's vet is VCA Alameda East.
mochi.vet | 177 | mochi | Mochi's vet is Dr. Petra Vance at the Cat Care Clinic of Denver.
car.ins | 177 | | Car insurance is with Progressive; policy 9021447182 covers both cars.
biscuit.food.1 | 171 | | Biscuit eats Purina Pro Plan Sensitive Skin & Stomach (salmon), one cup twice a day.
cleaner.1 | 170 | | Apartment cleaner: Mirela, every other Friday, $140.
mochi.food | 170 | | Mochi gets Royal Canin Indoor dry food plus half a can of wet at night.
dogwalker.1 | 166 | biscuit | Dog walker: Ellie Navarro, Mon/Wed/Fri at noon, $22 a walk.
house.offer | 150 | home | User and Theo made an offer on a house in Park Hill: $785k.
house.accept | 146 | | Offer accepted on the Park Hill house! Closing August 4.
biscuit.meds | 142 | biscuit, health | Biscuit takes Apoquel 16mg once a day for his skin allergies.
biscuit.weight.1 | 140 | biscuit | Biscuit weighs 31 lb; the vet wants him closer to 26.
mochi.meds | 121 | mochi | Mochi is on methimazole 2.5mg twice a day for hyperthyroidism.
mortgage | 118 | money | Mortgage: Guild Mortgage, 30-year fixed at 6.375%, loan number 4400918327; about $4,310 a month with escrow.
home.ins.1 | 117 | | Homeowners policy with State Farm: 05-BK-8831-4.
home.addr.2 | 112 | move | Moved into 2217 Krameria Street in Park Hill on August 10.
wifi.2>wifi.1 | 111 | home | New Wi-Fi at the house: Krameria-Mesh (Eero). Guest network is Krameria-Guest.
isp.2>isp.1 | 111 | | Google Fiber installed at the Krameria house — 1 gig.
spare.key | 109 | home | Spare house key is with Dolores Vigil next door at 2223 Krameria.
garage.code | 109 | | Garage keypad code: 8093.
trash | 107 | | Trash and recycling go out Monday night at Krameria; compost every other week.
biscuit.vet.2 | 98 | | Biscuit goes to Park Hill Veterinary Clinic (Dr. Osei).
cleaner.2>cleaner.1 | 97 | home | House cleaning: Sparkle Squad, every other Monday, $185 for the bigger house.
remodel.budget.1 | 90 | home | Kitchen remodel budget: $38,000. Contractor is Bluebird Builders, Hector Salas.
car.2 | 85 | car | User's car is a blue 2025 Mazda CX-50 Hybrid, plate CNF-W18 — the CR-V was traded in at Groove Mazda.
xcel | 80 | money | Xcel Energy account for the house: 53-0091442-7.
dogwalker.2 | 60 | | Trent Olsen walks Biscuit Tuesday to Thursday at 12:30, $25 a walk.
biscuit.food.2>biscuit.food.1 | 57 | biscuit | After the pancreatitis scare the vet put Biscuit on Hill's Prescription i/d Low Fat, 3/4 cup twice a day.
home.ins.2>home.ins.1 | 45 | money | Switched homeowners insurance to Travelers (policy HO 619-402-77); saves about $600 a year.
remodel.budget.2 | 40 | home | The kitchen remodel is budgeted at $45k after going with quartz counters and moving the sink.
remodel.start | 39 | | Kitchen demo starts January 6; Bluebird says seven weeks.
biscuit.weight.2 | 26 | | Biscuit is down to 27.5 lb.
"""

LIFE = """
pref.style | 188 | | Prefers short answers with bullet points. No emojis.
coffee.1 | 187 | | User's usual coffee order: oat milk flat white.
diet.1 | 185 | food | User is pescatarian — eats fish but no meat.
migraine.1 | 183 | health | User gets migraines about twice a month and takes sumatriptan 50mg at onset.
user.doctor | 181 | health | User's primary care doctor is Dr. Miriam Costa at Kaiser Franklin.
pref.units | 180 | | Wants recipes in grams, but oven temperatures in Fahrenheit.
theo.doctor | 180 | | Theo's primary care doctor is Dr. Paul Nguyen, also at Kaiser Franklin.
gym.1 | 179 | fitness | User has an Orangetheory membership at the Capitol Hill studio; goes Mon/Wed/Fri at 6am.
phone.1 | 177 | | User has an iPhone 13 mini.
health.ins | 176 | health, insurance | Health insurance through Tandemly: Kaiser Permanente HMO, member ID 20-3371-945.
k401.1 | 176 | money | User puts 6% into the Tandemly 401(k) at Fidelity; the company matches up to 4%.
grocery.1 | 175 | | Groceries: King Soopers delivery on Sunday mornings.
budget.app.1 | 175 | | User tracks the household budget in YNAB.
user.birthday | 174 | | User's birthday is August 27.
card | 172 | money | User's main credit card is the Chase Sapphire Preferred; Theo uses the Costco Citi card.
costco | 171 | money | Costco membership number: 111 845 902 337 (executive, renews in March).
passport.1 | 170 | travel | User's passport expires in March 2027.
book.club.1 | 170 | books | User's book club meets the first Thursday of the month at Noor's place.
restaurant.1 | 168 | | Favourite date-night spot: Sushi Den on Pearl.
ktn | 168 | travel | User's Known Traveler Number (TSA PreCheck): 159842376.
mileage.user | 166 | | User's United MileagePlus number is AX449812.
mileage.theo | 166 | | Theo's United MileagePlus number is BQ117603.
savings.1 | 165 | money | Emergency fund goal: $30k in the Ally high-yield savings account.
japan.dates | 165 | japan-trip | Family trip to Japan planned for October 9–19: Tokyo, Hakone, Kyoto.
run.goal.1 | 160 | running | Training for the Mile High Harvest Half on November 8; goal time 2:05.
dentist | 158 | | Family dentist: Dr. Hollis at Cherry Creek Family Dental.
user.knee | 152 | health | PT for user's left knee (patellar tendinopathy): twice a week at Apex Physical Therapy, with Jordan.
japan.flight.1 | 150 | japan-trip | Japan flights on United: DEN→SFO→HND, UA 837 from SFO on Oct 8. Confirmation PQ4N7X, seats 34A–D.
therapist.1 | 147 | | User sees a therapist, Dr. Ana Whitlock, every other Tuesday over video.
passport.2 | 143 | | User's renewed passport arrived; valid until July 2036.
japan.hotel.tokyo | 139 | japan-trip | Tokyo hotel: Mitsui Garden Hotel Ginza, Oct 9–13, Booking.com confirmation 3312448907.
japan.hotel.kyoto | 138 | japan | Kyoto ryokan: Yachiyo near Nanzenji, Oct 15–19, booking ref RK-448120.
accountant | 136 | money | Tax accountant: Priscilla Moy, CPA. The 2025 return is on extension until October 15.
japan.flight.2>japan.flight.1 | 128 | japan-trip | United moved the Japan leg to UA 875 (SFO→HND, Oct 8, 11:50am); same confirmation PQ4N7X.
coffee.2 | 123 | | Summer go-to: iced cortado with oat milk.
gym.2>gym.1 | 104 | fitness | Cancelled Orangetheory and joined Denver Bouldering Club — the Park Hill gym is walking distance. $89/month.
grocery.2 | 100 | food | Weekly groceries are a Saturday Costco run plus Sprouts midweek for produce.
migraine.2 | 95 | health | Neurologist Dr. Feld switched user from sumatriptan to rizatriptan 10mg; fewer side effects.
budget.app.2 | 92 | money | User and Theo run the family budget in Monarch Money, shared view, all accounts linked.
user.eyes | 88 | | User's glasses prescription is -2.25 in both eyes; wears Acuvue Oasys contacts on weekends.
savings.2>savings.1 | 70 | money | Rebuilding the emergency fund after the down payment; goal raised to $40k now that there's a mortgage.
diet.2 | 70 | food | User is vegetarian, no fish either.
run.goal.2 | 66 | running | Half marathon target: sub-1:58, after a 54:10 10K time trial.
book.club.2 | 65 | books | Book club is on the second Wednesday of every month now, at BookBar on Tennyson.
k401.2>k401.1 | 62 | money | Raised the 401(k) contribution to 10% with the promotion raise.
phone.2>phone.1 | 60 | | User's phone is a Pixel 9 Pro — switched for the camera before the Japan trip.
therapist.2 | 60 | | Sees Dr. Whitlock once a month now.
restaurant.2 | 58 | | User and Theo's date-night favourite is Tavernetta by Union Station.
coffee.3 | 33 | coffee | User's usual coffee order is a decaf oat latte — cutting back on caffeine.
run.result | 22 | running | Finished the Mile High Harvest Half in 1:56:41, a PR.
dentist.appt.1 | 17 | | Dental cleaning booked for December 9 at 3pm with Dr. Hollis.
dentist.appt.2>dentist.appt.1 | 16.6 | | Moved the dental cleaning to December 10 at 8am; the 9th clashes with the Tern pilot review.
"""
