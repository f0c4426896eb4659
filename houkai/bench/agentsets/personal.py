"""The ``personal`` set: a personal assistant's memories about its user and their people.

What an assistant keeps for one person over months: their preferences (which change),
the people in their life and those people's details (with near-look-alike names and the
same kinds of facts), plans and dated appointments that get moved, booking references,
and day-to-day notes. See :mod:`houkai.bench.agentsets` for the never-tune-on-test rule.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .common import Builder, Entity, Slot

SEED = 2902
AS_OF = "2026-11-20T12:00:00+00:00"

PEOPLE = [
    Entity("Maya", ["Maya", "Maya (sister)", "my sister Maya"], ["Maya", "my sister Maya"]),
    Entity("Mia", ["Mia", "Mia from work"], ["Mia", "Mia from work"]),
    Entity("Tom", ["Tom", "Tom (brother-in-law)"], ["Tom"]),
    Entity("Tim", ["Tim", "Tim next door", "neighbour Tim"], ["Tim", "Tim next door"]),
    Entity("Dana", ["Dana", "Dana (best friend)"], ["Dana"]),
    Entity("Dan", ["Dan", "Dan, the manager", "my manager Dan"], ["Dan", "my manager Dan"]),
    Entity("Rose", ["Grandma Rose", "Rose"], ["Grandma Rose", "Grandma"]),
    Entity("Leo", ["Leo", "Leo (son)"], ["Leo", "my son"]),
    Entity("Zoe", ["Zoe", "Zoe (daughter)"], ["Zoe", "my daughter"]),
    Entity("Sam", ["Sam", "Sam from climbing"], ["Sam", "Sam from climbing"]),
]

PERSON_SLOTS = [
    Slot(
        "birthday",
        states=[
            "{e}'s birthday is {v}.",
            "{e} was born on {v}; send a card a week ahead.",
            "Birthday: {e}, {v}.",
        ],
        updates=[],
        asks=["When is {e}'s birthday?", "What's the date of {e}'s birthday?"],
        paraphrases=[
            "When should I send {e} a card for getting a year older?",
            "What day does {e} celebrate turning a year older?",
        ],
        currents=[],
        pasts=[],
        values=[
            "12 March",
            "3 March",
            "21 July",
            "9 October",
            "30 January",
            "17 May",
            "5 December",
            "28 August",
            "14 June",
            "2 November",
        ],
        mutable=False,
    ),
    Slot(
        "city",
        states=["{e} lives in {v}.", "{e} is based in {v}.", "{e}'s home is in {v}."],
        updates=[
            "{e} moved to {v} (left {old}).",
            "{e} lives in {v} now.",
            "New address for {e}: they relocated to {v}.",
        ],
        asks=["Where does {e} live?", "Which city is {e} in?"],
        paraphrases=["Where would I go to visit {e} at home?", "Where is {e}'s place?"],
        currents=[
            "Where does {e} live now?",
            "Which city is {e} in these days?",
            "Where does {e} live?",
        ],
        pasts=["Where did {e} live before {v}?", "Which city was {e} in originally?"],
        values=[
            "Lisbon",
            "Porto",
            "Berlin",
            "Leipzig",
            "Austin",
            "Denver",
            "Toronto",
            "Montreal",
            "Bristol",
            "Leeds",
            "Utrecht",
        ],
    ),
    Slot(
        "job",
        states=["{e} works at {v}.", "{e}'s job: {v}.", "{e} is employed by {v}."],
        updates=[
            "{e} started a new job at {v}.",
            "{e} left {old} and joined {v}.",
            "{e} works for {v} now.",
        ],
        asks=["Where does {e} work?", "Who is {e}'s employer?"],
        paraphrases=[
            "Which company pays {e}'s salary?",
            "What organisation is {e} with professionally?",
        ],
        currents=["Where does {e} work now?", "Who employs {e} currently?", "Where does {e} work?"],
        pasts=["Where did {e} work before {v}?", "What was {e}'s previous job?"],
        values=[
            "Spotify",
            "a bakery on Elm Street",
            "the city hospital",
            "Shopify",
            "a law firm downtown",
            "the public library",
            "Airbus",
            "a design studio",
            "the university",
            "a climbing gym",
        ],
    ),
    Slot(
        "diet",
        states=["{e} is {v}.", "Food note for {e}: {v}.", "{e} eats {v} — plan meals around it."],
        updates=[
            "{e} went {v} (no longer {old}).",
            "{e} is {v} now.",
            "Update on {e}'s diet: {v}.",
        ],
        asks=["What diet does {e} follow?", "What does {e} eat?"],
        paraphrases=["What should I cook if {e} comes for dinner?", "What kind of meal suits {e}?"],
        currents=[
            "What diet is {e} on now?",
            "What does {e} eat these days?",
            "What diet does {e} follow?",
        ],
        pasts=["What diet was {e} on before going {v}?", "What did {e} used to eat?"],
        values=[
            "vegetarian",
            "vegan",
            "pescatarian",
            "gluten-free",
            "keto",
            "dairy-free",
            "low-sodium",
        ],
    ),
    Slot(
        "allergy",
        states=[
            "{e} is allergic to {v}.",
            "Allergy: {e} — {v}.",
            "Careful: {e} reacts badly to {v}.",
        ],
        updates=[],
        asks=["What is {e} allergic to?", "Does {e} have an allergy?"],
        paraphrases=["What must I keep away from {e}?", "What gives {e} a reaction?"],
        currents=[],
        pasts=[],
        values=[
            "peanuts",
            "shellfish",
            "cats",
            "penicillin",
            "latex",
            "bee stings",
            "sesame",
            "kiwi",
        ],
        mutable=False,
    ),
    Slot(
        "contact",
        states=["{e} prefers {v}.", "Best way to reach {e}: {v}.", "{e} only answers {v}."],
        updates=[
            "{e} asked to be reached by {v} from now on.",
            "{e} prefers {v} now, not {old}.",
            "Switch for {e}: use {v}.",
        ],
        asks=["How does {e} like to be contacted?", "What's the best way to reach {e}?"],
        paraphrases=["How do I get hold of {e} quickly?", "What channel will {e} actually answer?"],
        currents=[
            "How should I contact {e} now?",
            "What's the best way to reach {e} these days?",
            "How do I reach {e}?",
        ],
        pasts=[
            "How did {e} prefer to be contacted before?",
            "What was {e}'s old preferred channel?",
        ],
        values=[
            "texts",
            "WhatsApp voice notes",
            "phone calls after 6pm",
            "email",
            "Signal",
            "Telegram",
            "a call on Sunday mornings",
        ],
    ),
    Slot(
        "gift",
        states=["{e} loves {v}; good gift idea.", "Gift idea for {e}: {v}.", "{e} collects {v}."],
        updates=["{e} is into {v} now; skip the {old}.", "New gift idea for {e}: {v}."],
        asks=["What's a good gift for {e}?", "What gift idea do I have for {e}?"],
        paraphrases=["What could I buy {e} as a present?", "What would make {e} happy to unwrap?"],
        currents=[
            "What's a good gift for {e} now?",
            "What is {e} into these days?",
            "What should I get {e}?",
        ],
        pasts=["What was {e} into before {v}?", "What gift idea did I have for {e} originally?"],
        values=[
            "vinyl records",
            "fountain pens",
            "houseplants",
            "board games",
            "single-origin coffee",
            "jigsaw puzzles",
            "climbing chalk bags",
            "watercolour sets",
            "cookbooks",
            "LEGO sets",
        ],
    ),
]

ME = Entity("me", ["the user", "User", "user"])
USER_SLOTS = [
    Slot(
        "coffee",
        ["{e}'s coffee order: {v}.", "{e} drinks {v}.", "Coffee for {e} is {v}."],
        ["{e} switched to {v}.", "{e} drinks {v} now, not {old}."],
        [],
        [],
        [
            "What's my coffee order now?",
            "What do I drink at the café these days?",
            "What's my usual coffee?",
        ],
        ["What did I order at cafés before {v}?", "What was my old coffee order?"],
        [
            "an oat flat white",
            "a double espresso",
            "a decaf cappuccino",
            "black filter coffee",
            "an iced americano",
            "a cortado",
        ],
    ),
    Slot(
        "seat",
        ["{e} prefers {v} on flights.", "Flights: book {v} for {e}.", "{e} always wants {v}."],
        ["{e} wants {v} from now on.", "Changed seat preference: {v} (was {old})."],
        [],
        [],
        [
            "Which seat should you book for me now?",
            "What seat do I prefer currently?",
            "Which seat do I like on planes?",
        ],
        ["Which seat did I like before?", "What was my old seat preference?"],
        ["an aisle seat", "a window seat", "an exit-row seat", "a seat near the front"],
    ),
    Slot(
        "airline",
        [
            "{e} flies {v} when possible (frequent-flyer number saved).",
            "Preferred airline for {e}: {v}.",
        ],
        ["{e} moved their loyalty to {v}.", "{e} prefers {v} now."],
        [],
        [],
        [
            "Which airline do I prefer now?",
            "Which carrier should trips go on these days?",
            "What's my preferred airline?",
        ],
        ["Which airline did I prefer before {v}?", "What was my old airline?"],
        ["TAP", "KLM", "Lufthansa", "easyJet", "United", "Iberia"],
    ),
    Slot(
        "gym",
        ["{e} trains {v}.", "Gym schedule for {e}: {v}.", "{e} keeps {v} free for the gym."],
        ["New gym schedule for {e}: {v}.", "{e} moved workouts to {v}."],
        [],
        [],
        [
            "When do I go to the gym now?",
            "What's my current workout schedule?",
            "When are my gym sessions?",
        ],
        ["When did I work out before?", "What was my old gym schedule?"],
        [
            "Monday, Wednesday and Friday at 7am",
            "Tuesday and Thursday evenings",
            "weekday lunchtimes",
            "Saturday mornings only",
            "every morning at 6",
        ],
    ),
    Slot(
        "book",
        ["{e} is reading {v}.", "Currently on the nightstand: {v}.", "{e} started {v}."],
        ["{e} finished {old} and started {v}.", "{e} is reading {v} now."],
        [],
        [],
        [
            "What am I reading right now?",
            "Which book am I currently on?",
            "What book am I reading?",
        ],
        ["What was I reading before {v}?", "Which book did I read before this one?"],
        [
            "Piranesi",
            "The Overstory",
            "Tomorrow, and Tomorrow, and Tomorrow",
            "Project Hail Mary",
            "Klara and the Sun",
            "The Dispossessed",
            "Middlemarch",
        ],
    ),
    Slot(
        "office",
        ["{e} goes into the office {v}.", "Office days for {e}: {v}."],
        ["{e}'s office days are {v} now.", "New office days: {v} (no longer {old})."],
        [],
        [],
        [
            "Which days am I in the office now?",
            "What are my office days?",
            "When do I go into the office currently?",
        ],
        ["Which days was I in the office before?", "What were my old office days?"],
        [
            "Tuesdays and Thursdays",
            "Mondays and Wednesdays",
            "Wednesdays only",
            "every weekday",
            "Thursdays and Fridays",
        ],
    ),
    Slot(
        "dentist",
        [
            "{e}'s dentist appointment is on {v} with Dr. Okafor.",
            "Dentist (Dr. Okafor): {v}.",
            "Booked the dentist for {e}: {v}.",
        ],
        [
            "Dentist moved to {v} (was {old}).",
            "Rescheduled the dentist to {v}.",
            "Dr. Okafor's office changed the appointment to {v}.",
        ],
        [],
        [],
        [
            "When is my dentist appointment?",
            "When am I seeing the dentist now?",
            "What's the latest date for my dentist visit?",
        ],
        [
            "When was my dentist appointment originally?",
            "What date was the dentist before it got moved?",
        ],
        [
            "4 December at 9:30",
            "11 December at 14:00",
            "18 December at 8:00",
            "8 January at 10:15",
            "15 January at 16:45",
        ],
    ),
    Slot(
        "car",
        ["{e}'s car is {v}.", "{e} drives {v}."],
        ["{e} sold the old car and now drives {v}.", "{e} replaced {old} with {v}."],
        [],
        [],
        ["What car do I drive now?", "Which car do I have?", "What's my current car?"],
        ["What car did I have before {v}?", "What did I drive before?"],
        [
            "a 2014 Golf",
            "a Skoda Octavia estate",
            "a used Tesla Model 3",
            "a Toyota Yaris hybrid",
            "a Renault Zoe",
        ],
    ),
    Slot(
        "run",
        ["{e} is training for {v}.", "Running goal for {e}: {v}."],
        ["{e} signed up for {v} instead.", "New race for {e}: {v}."],
        [],
        [],
        [
            "Which race am I training for now?",
            "What's my current running goal?",
            "What race am I training for?",
        ],
        ["Which race was I training for before {v}?", "What was my original running goal?"],
        [
            "the Lisbon half marathon",
            "a 10k in Porto",
            "the Berlin marathon",
            "a trail 25k in Sintra",
            "the parkrun 5k PB",
        ],
    ),
    Slot(
        "restaurant",
        ["{e}'s favourite restaurant is {v}.", "For date nights {e} likes {v}."],
        ["{e}'s new favourite is {v}.", "{e} goes to {v} now; {old} changed chefs."],
        [],
        [],
        [
            "Where should I book for date night now?",
            "What's my favourite restaurant these days?",
            "Which restaurant do I like best?",
        ],
        ["What was my favourite restaurant before {v}?", "Where did I use to go for date nights?"],
        [
            "Taberna da Rua",
            "Cervejaria Ramiro",
            "Ponto Final",
            "the ramen place on Rua Augusta",
            "Prado",
            "O Velho Eurico",
        ],
    ),
    Slot(
        "bedtime",
        ["{e} wants no notifications after {v}.", "Quiet hours for {e} start at {v}."],
        ["Quiet hours now start at {v}.", "{e} moved quiet hours to {v}."],
        [],
        [],
        [
            "When do my quiet hours start now?",
            "After what time should you stop notifying me?",
            "When do my quiet hours begin?",
        ],
        ["When did quiet hours start before?", "What were my old quiet hours?"],
        ["21:00", "22:00", "22:30", "23:00", "20:30"],
    ),
]
BOOKINGS = [
    ("hotel in Porto for the long weekend", "booking ref"),
    ("flight to Berlin for Maya's birthday", "flight"),
    ("car rental in Sintra", "reservation"),
    ("train to Madrid", "ticket"),
    ("dinner at Prado for the anniversary", "reservation"),
    ("Airbnb in Lagos for August", "confirmation code"),
    ("travel insurance", "policy number"),
    ("concert tickets for Dana and me", "order number"),
    ("kids' swim lessons", "membership id"),
    ("home internet contract", "account number"),
    ("museum passes for the kids", "booking ref"),
    ("ferry to Tróia", "ticket"),
    ("vet appointment for the dog", "reference"),
    ("parking permit renewal", "permit number"),
    ("cooking class with Dana", "booking ref"),
    ("rental van for Tim's move", "reservation"),
]
CHORES = [
    "Ordered new school shoes for {p}.",
    "Reminded the user to call {p} back about the weekend.",
    "Paid the water bill; next one is due in two months.",
    "The user watered the plants and asked for a reminder every Sunday.",
    "Drafted a thank-you note to {p} for the dinner.",
    "Picked a birthday card design for {p}; not sent yet.",
    "The user asked to move the grocery delivery to Saturday morning this week.",
    "Added milk, eggs and coffee filters to the shopping list.",
    "The user wants to plan a weekend trip with {p} sometime in spring.",
    "Renewed the library books online.",
    "The user said {p} might visit next month; nothing booked.",
    "Booked a haircut for the user on Friday afternoon.",
    "The user forgot the umbrella at {p}'s place.",
    "Set a reminder to check the tyre pressure.",
    "The user liked the podcast episode {p} recommended.",
]


def restated(slots: list[Slot]) -> list[Slot]:
    """*slots* whose updates read like first statements ("Bob works at Datadog." after
    "Bob works at Stripe."): what an extractor that states facts writes (ADR 0094)."""
    return [replace(s, updates=list(s.states)) if s.updates else s for s in slots]


def build(restate: bool = False) -> Builder:
    """The personal set; with *restate*, its updates say nothing of replacing
    (``personal-restated``, a seed of its own)."""
    name, seed = ("personal-restated", SEED + 1) if restate else ("personal", SEED)
    person_slots = restated(PERSON_SLOTS) if restate else PERSON_SLOTS
    user_slots = restated(USER_SLOTS) if restate else USER_SLOTS
    b = Builder(name=name, seed=seed, as_of=AS_OF, prefix="r" if restate else "p")
    rng = b.rng
    for person in PEOPLE:
        for slot in rng.sample(person_slots, 6):
            changes = rng.choices([0, 1, 2], weights=[0.5, 0.38, 0.12])[0] if slot.mutable else 0
            values = rng.sample(slot.values, changes + 1)
            linked = changes > 0 and rng.random() < 0.4
            ids = b.chain(person, slot, values, rng.uniform(150, 240), linked, [person.key])
            b.ask_chain(person, slot, values, ids, linked)
    for slot in user_slots:
        changes = rng.choices([1, 2], weights=[0.6, 0.4])[0]
        values = rng.sample(slot.values, changes + 1)
        linked = rng.random() < 0.4
        ids = b.chain(ME, slot, values, rng.uniform(150, 240), linked, ["user"])
        b.ask_chain(ME, slot, values, ids, linked)
    _bookings(b)
    _multi_hop(b)
    _chores(b)
    return b


def _code(b: Builder) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return b.unique(lambda: "".join(b.rng.choice(alphabet) for _ in range(6)))


def _bookings(b: Builder) -> None:
    rng = b.rng
    for what, label in BOOKINGS:
        code = _code(b)
        text = rng.choice(
            [
                f"{label.capitalize()} for the {what}: {code}.",
                f"Booked the {what} — {label} {code}.",
                f"Saved the {label} {code} ({what}).",
            ]
        )
        topic = f"booking:{code}"
        mid = b.memory(text, rng.uniform(5, 120), ["bookings"], topic=topic)
        b.question(
            rng.choice([f"What is {code} for?", f"Which booking has the {label} {code}?"]),
            "keyword",
            [mid],
            topic,
        )
        # a look-alike: the same kind of booking for someone else, never asked about
        other = rng.choice(PEOPLE).key
        b.memory(
            f"{label.capitalize()} for {other}'s {what.split(' for ')[0]}: {_code(b)}.",
            rng.uniform(5, 120),
            ["bookings"],
        )
        if rng.random() < 0.5:
            b.question(f"What's the {label} for my {what}?", "distractor", [mid], topic)


def _multi_hop(b: Builder) -> None:
    """A person introduced by relation in one note and described in another."""
    pairs = [
        (
            "Dana's partner is called Ines.",
            "Ines is a nurse at the city hospital and works night shifts.",
            "What does Dana's partner do for work?",
        ),
        (
            "Sam's climbing gym is Bloc Lab in Alcântara.",
            "Bloc Lab closes at 22:00 on weekdays and 18:00 on Sundays.",
            "Until when is Sam's climbing gym open on a Sunday?",
        ),
        (
            "Leo's football coach is Mr. Duarte.",
            "Mr. Duarte asked parents to bring shin guards to every training.",
            "What did Leo's coach ask parents to bring?",
        ),
        (
            "Zoe's best friend at school is Alma.",
            "Alma's mum is Teresa; she drives the Wednesday school run.",
            "Who drives the Wednesday school run for Zoe's best friend?",
        ),
        (
            "Grandma Rose's GP is Dr. Silva at the Estrela clinic.",
            "The Estrela clinic moved its phone line to 21 555 0199.",
            "What number do I call for Grandma Rose's doctor's clinic?",
        ),
        (
            "Tom's band is called The Late Trains.",
            "The Late Trains play at Musicbox on 6 December.",
            "When is Tom's band playing next?",
        ),
    ]
    for first, second, question in pairs:
        a = b.memory(first, b.rng.uniform(60, 200), ["people"])
        c = b.memory(second, b.rng.uniform(5, 60), ["people"])
        b.question(question, "multi-hop", [a, c], f"hop:{a}")


def _chores(b: Builder) -> None:
    """Day-to-day notes: most of what a personal assistant stores, none asked about."""
    rng = b.rng
    for _ in range(150):
        text = rng.choice(CHORES).format(p=rng.choice(PEOPLE).aliases[0])
        b.memory(text, rng.uniform(1, 240), ["notes"])


def write(restate: bool = False) -> Path:
    return build(restate).write()
