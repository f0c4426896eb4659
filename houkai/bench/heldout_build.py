# ruff: noqa: E501  (hand-written data tables)
"""Builds ``data/heldout.json``, the held-out retrieval set (run once; the JSON is committed).

Written before any recall stage was tuned and never tuned on: it checks that
what LoCoMo taught does not cost an agent's ordinary memories. Five query
kinds, each against hand-written facts plus templated distractors:

* ``keyword``: a ticket/run id or code identifier buried among look-alikes;
* ``paraphrase``: the question shares almost no words with the fact;
* ``temporal``: the same topic at several dates, asked with a time expression
  ("yesterday", "last week", "in March 2026", "latest", "first");
* ``multi-hop``: the answer needs two memories joined by an entity, or an
  exchange written in sequence (a question turn, then its answer turn);
* ``distractor``: near-duplicates that differ in the one detail asked about.

``python -m houkai.bench.heldout_build`` rewrites the JSON deterministically.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

AS_OF = "2026-06-01T12:00:00+00:00"
OUT = Path(__file__).with_name("data") / "heldout.json"

PEOPLE = [
    "Priya", "Tomas", "Aiko", "Marcus", "Lena", "Diego", "Fatima", "Oskar", "Mei", "Jonah",
    "Ingrid", "Ravi", "Sofia", "Kwame", "Elif", "Bruno", "Hana", "Nikolai", "Zara", "Felix",
]  # fmt: skip
PROJECTS = [
    "Atlas", "Beacon", "Cobalt", "Drift", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
    "Kestrel", "Lumen", "Meridian", "Nimbus", "Onyx", "Pioneer", "Quartz", "Relay", "Sierra", "Tundra",
]  # fmt: skip

# (fact, paraphrased question): the question avoids the fact's content words.
PARAPHRASES = [
    ("The team prefers tabs over spaces in Go files.", "Which indentation style do we use for golang?"),
    ("Deploys are frozen every Friday after 3pm.", "When are we not allowed to ship to production?"),
    ("The staging database is restored from a snapshot every night.", "How often does the pre-production DB get reset?"),
    ("Customer invoices are generated on the first business day of the month.", "At what point in the month do clients get billed?"),
    ("The mobile app crashes when the user rotates the screen during login.", "What makes the phone client fall over while signing in?"),
    ("Our on-call rotation hands over every Monday at 10am.", "When does the pager duty switch to the next engineer?"),
    ("Unit tests must finish in under five minutes on CI.", "What is the time budget for the automated test suite?"),
    ("The marketing site is hosted on a static CDN, not on our servers.", "Where does the public web page live?"),
    ("Passwords are hashed with argon2id and a per-user salt.", "How do we store user credentials securely?"),
    ("The quarterly planning offsite is in Lisbon this year.", "Which city hosts the team retreat for roadmap planning?"),
    ("Alice is allergic to peanuts, so team lunches avoid them.", "What food should we keep away from Alice?"),
    ("The office coffee machine is descaled on Wednesdays.", "When is the espresso maker cleaned?"),
    ("Logs older than thirty days are moved to cold storage.", "What happens to old log files after a month?"),
    ("The design system uses an 8-pixel spacing grid.", "What is the base unit for layout gaps in the UI kit?"),
    ("New hires get a laptop and a mentor on their first day.", "What does someone joining the company receive at the start?"),
    ("The API rate limit is 600 requests per minute per key.", "How many calls can a client make before being throttled?"),
    ("Our biggest customer renews their contract every October.", "When does the largest account's agreement come up again?"),
    ("The search service is written in Rust for predictable latency.", "Which language did we pick for the lookup backend and why?"),
    ("Backups are encrypted with a key kept in the hardware security module.", "How is the archive data protected at rest?"),
    ("The user prefers short answers with code examples first.", "How does the person like replies to be formatted?"),
    ("The team stand-up happens at 9:30 in the small meeting room.", "Where and when is the daily sync?"),
    ("Feature flags are cleaned up two sprints after a full rollout.", "When do we remove toggles that are fully launched?"),
    ("The data warehouse refreshes its dashboards every hour.", "How current are the analytics charts?"),
    ("Support tickets in Japanese are routed to the Osaka team.", "Who handles help requests written in Japanese?"),
    ("The user's dog is called Biscuit and is afraid of thunder.", "What is the name of the pet that fears storms?"),
    ("We sunset the legacy SOAP endpoints at the end of last year.", "What happened to the old XML web services?"),
    ("Dark mode is the default theme in the desktop app.", "Which colour scheme does the computer client start with?"),
    ("Interns pair with a senior engineer for their first project.", "How are students supported on their initial assignment?"),
    ("The load balancer drains connections for thirty seconds before a restart.", "How long does traffic wind down before a node reboots?"),
    ("Our privacy policy forbids storing raw location data.", "Are we allowed to keep exact GPS coordinates?"),
    ("The user is learning Portuguese before moving to Brazil.", "Which language is the person studying for their relocation?"),
    ("Code review needs two approvals for changes to billing.", "How many sign-offs does a payments change require?"),
    ("Release notes are drafted by the product manager.", "Who writes the changelog for customers?"),
    ("The GPU cluster is reserved for model training on weekends.", "When can the accelerators be used for fitting networks?"),
    ("The user's favourite editor is Neovim with a minimal config.", "Which text editor does the person like to work in?"),
    ("Every incident gets a blameless postmortem within five days.", "How quickly do we write up outages?"),
    ("The cafeteria closes early on Fridays at 2pm.", "When does the canteen shut at the end of the week?"),
    ("Our docs site is generated from Markdown with MkDocs.", "What tool builds the documentation pages?"),
    ("Secrets are rotated every ninety days.", "How often do credentials get replaced?"),
    ("The user runs marathons and trains on Sunday mornings.", "When does the person do their long runs?"),
]  # fmt: skip

TOPICS = [
    ("the billing service", "billing"),
    ("the search cluster", "search"),
    ("the mobile release", "mobile"),
    ("the data pipeline", "pipeline"),
    ("the auth gateway", "auth"),
    ("the recommendation model", "recsys"),
    ("the payment provider migration", "payments"),
    ("the onboarding flow", "onboarding"),
]
STATUS_OLD = "was still failing its load test"
STATUS_MID = "passed the load test but needed a config fix"
STATUS_NEW = "shipped to all users without incident"

DISTRACTORS = [
    # (relevant fact, distractor facts, question)
    ("Alice's dog is named Pepper.", ["Alice's cat is named Miso.", "Bob's dog is named Rocket."], "What is the name of Alice's dog?"),
    ("The Berlin office opens at 8am.", ["The Berlin office closes at 6pm.", "The Paris office opens at 9am."], "What time does the Berlin office open?"),
    ("Priya's laptop is a ThinkPad X1.", ["Priya's phone is a Pixel 8.", "Tomas's laptop is a MacBook Air."], "Which laptop does Priya use?"),
    ("The production database runs PostgreSQL 16.", ["The analytics database runs ClickHouse.", "The staging database runs PostgreSQL 15."], "Which version of PostgreSQL is in production?"),
    ("Marcus takes his coffee black.", ["Marcus takes his tea with milk.", "Lena takes her coffee with oat milk."], "How does Marcus drink his coffee?"),
    ("The frontend is deployed with Vercel.", ["The backend is deployed with Kubernetes.", "The docs are deployed with Netlify."], "Where is the frontend deployed?"),
    ("Aiko's birthday is on 14 February.", ["Aiko's work anniversary is on 3 March.", "Hana's birthday is on 9 July."], "When is Aiko's birthday?"),
    ("The user's preferred language for scripts is Python.", ["The user's preferred language for services is Go.", "The team's preferred language for data is SQL."], "Which language does the user prefer for scripts?"),
    ("Diego is allergic to shellfish.", ["Diego is allergic to cats.", "Fatima is allergic to shellfish."], "What food is Diego allergic to?"),
    ("The EU region is served from Frankfurt.", ["The US region is served from Virginia.", "The EU backups are stored in Dublin."], "Where is the EU region served from?"),
    ("Sprint reviews happen on Thursday afternoons.", ["Sprint planning happens on Monday mornings.", "Retrospectives happen on Thursday mornings."], "When do sprint reviews happen?"),
    ("The user's home city is Valencia.", ["The user's favourite city is Kyoto.", "The user's office city is Madrid."], "Where does the user live?"),
    ("Oskar manages the platform team.", ["Oskar used to manage the mobile team.", "Ingrid manages the data team."], "Which team does Oskar manage now?"),
    ("The cache TTL for product pages is ten minutes.", ["The cache TTL for search results is one minute.", "The cookie TTL for sessions is one day."], "How long are product pages cached?"),
    ("Mei's favourite band is Radiohead.", ["Mei's favourite film is Spirited Away.", "Jonah's favourite band is Daft Punk."], "Which band does Mei like best?"),
    ("The iOS app is built with Swift.", ["The Android app is built with Kotlin.", "The iOS widget is built with SwiftUI previews."], "What language is the iOS app built with?"),
    ("Invoices are paid by bank transfer.", ["Refunds are paid by card.", "Salaries are paid by bank transfer on the 25th."], "How are invoices paid?"),
    ("The user wants meetings only in the afternoon.", ["The user wants focus time in the morning.", "The team wants meetings before lunch."], "When does the user want meetings?"),
    ("Ravi is the security champion for the payments team.", ["Ravi is the release manager for the web team.", "Sofia is the security champion for the mobile team."], "Who is the security champion for payments?"),
    ("The weekly report goes out on Friday at noon.", ["The monthly report goes out on the first Monday.", "The weekly newsletter goes out on Tuesday."], "When does the weekly report go out?"),
    ("Kwame's team uses Linear for issue tracking.", ["Kwame's team uses Notion for documentation.", "Elif's team uses Jira for issue tracking."], "Which issue tracker does Kwame's team use?"),
    ("The staging cluster has three nodes.", ["The production cluster has twelve nodes.", "The staging cluster has two load balancers."], "How many nodes does the staging cluster have?"),
    ("Bruno prefers to be contacted on Slack.", ["Bruno prefers not to be contacted by phone.", "Hana prefers to be contacted by email."], "How does Bruno like to be contacted?"),
    ("The user's tea of choice is green sencha.", ["The user's coffee of choice is a flat white.", "The user's partner's tea of choice is earl grey."], "What tea does the user like?"),
    ("The Zurich team works on fraud detection.", ["The Zurich team used to work on checkout.", "The Vienna team works on fraud reporting."], "What does the Zurich team work on?"),
    ("Nikolai's parking spot is B12.", ["Nikolai's desk is D4.", "Zara's parking spot is B14."], "Where does Nikolai park?"),
    ("Our SLA for P1 incidents is a 15-minute response.", ["Our SLA for P2 incidents is a 2-hour response.", "Our SLO for P1 resolution is 4 hours."], "What is the response SLA for P1 incidents?"),
    ("Felix's favourite sport is climbing.", ["Felix's favourite food is ramen.", "Elif's favourite sport is climbing."], "Which sport does Felix love most?"),
    ("The design review needs sign-off from Lena.", ["The architecture review needs sign-off from Marcus.", "The design review is held on Tuesdays."], "Who signs off on the design review?"),
    ("The user's daughter is called Nora and is seven.", ["The user's niece is called Nora and is four.", "The user's son is called Leo and is nine."], "How old is the user's daughter?"),
]  # fmt: skip

CODE_IDS = [
    ("parse_invoice_lines", "drops the last line when the CSV has no trailing newline"),
    ("retryWithBackoff", "caps the delay at thirty seconds"),
    ("UserSession.refresh", "must be called before any billing request"),
    ("build_search_index", "takes about forty minutes on the full catalogue"),
    ("normalizePhoneNumber", "fails on numbers with extensions"),
    ("export_to_parquet", "needs pyarrow 15 or newer"),
    ("RateLimiter.acquire", "blocks forever if the bucket size is zero"),
    ("load_feature_flags", "reads from the config service at startup only"),
    ("computeTaxForRegion", "is wrong for Quebec because of the harmonised rate"),
    ("sync_calendar_events", "duplicates recurring meetings across time zones"),
]


def _ticket(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.randint(1000, 9999)}"


def build(seed: int = 20261130) -> dict[str, Any]:
    """Deterministic: the same seed always writes the same set."""
    rng = random.Random(seed)
    memories: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []

    def add(text: str, days_ago: float = 30.0, tags: list[str] | None = None, **extra: Any) -> str:
        mid = f"m{len(memories):04d}"
        memories.append(
            {"id": mid, "text": text, "days_ago": days_ago, "tags": tags or [], **extra}
        )
        return mid

    def ask(text: str, kind: str, relevant: list[str]) -> None:
        queries.append({"text": text, "kind": kind, "relevant": relevant})

    # keyword: ticket ids among look-alike tickets on the same component
    components = ["checkout", "search", "login", "export", "billing", "sync", "upload", "reports"]
    problems = [
        "times out under load", "returns a 500 for empty carts", "leaks a database connection",
        "shows stale prices", "double-charges on retry", "loses the cursor position",
        "rejects valid unicode names", "ignores the locale setting",
    ]  # fmt: skip
    seen: set[str] = set()
    for i in range(30):
        prefix = rng.choice(["ORN", "PLAT", "WEB", "OPS", "DATA"])
        ticket = _ticket(rng, prefix)
        while ticket in seen:
            ticket = _ticket(rng, prefix)
        seen.add(ticket)
        comp = components[i % len(components)]
        prob = problems[(i * 3) % len(problems)]
        owner = PEOPLE[i % len(PEOPLE)]
        mid = add(
            f"Ticket {ticket}: the {comp} service {prob}; {owner} is looking into it.",
            days_ago=rng.uniform(1, 90),
            tags=["ticket", comp],
        )
        if i < 25:
            ask(f"What is the status of {ticket}?", "keyword", [mid])
    for name, detail in CODE_IDS:
        mid = add(f"Note: {name} {detail}.", days_ago=rng.uniform(1, 60), tags=["code"])
        ask(f"What do we know about {name}?", "keyword", [mid])

    # paraphrase
    for fact, question in PARAPHRASES:
        mid = add(fact, days_ago=rng.uniform(1, 120))
        ask(question, "paraphrase", [mid])

    # temporal: one topic at three dates; ask by date, by relative time, latest and first
    as_of_days = {"old": 75.0, "mid": 20.0, "new": 1.0}
    for label, topic in TOPICS:
        ids = {
            "old": add(
                f"Status of {label}: it {STATUS_OLD}.", as_of_days["old"], ["status", topic]
            ),
            "mid": add(
                f"Status of {label}: it {STATUS_MID}.", as_of_days["mid"], ["status", topic]
            ),
            "new": add(
                f"Status of {label}: it {STATUS_NEW}.", as_of_days["new"], ["status", topic]
            ),
        }
        ask(f"What was the status of {label} yesterday?", "temporal", [ids["new"]])
        ask(f"What was the latest status of {label}?", "temporal", [ids["new"]])
        ask(f"How was {label} doing three weeks ago?", "temporal", [ids["mid"]])
        ask(f"What was the first status update on {label}?", "temporal", [ids["old"]])
        ask(f"What was the status of {label} in March 2026?", "temporal", [ids["old"]])

    # multi-hop: person -> project -> blocker, and a question turn followed by its answer
    blockers = [
        "the vendor contract", "a missing security review", "the database migration",
        "hiring a second designer", "the new GDPR guidance", "flaky integration tests",
        "the budget freeze", "an API change upstream", "the legal sign-off", "hardware delays",
    ]  # fmt: skip
    for i in range(20):
        person, project = PEOPLE[i], PROJECTS[i]
        lead = add(f"{person} leads the {project} project.", rng.uniform(5, 100), ["org"])
        block = add(
            f"The {project} project is blocked on {blockers[i % len(blockers)]}.",
            rng.uniform(1, 30),
            ["blocker"],
        )
        ask(f"What is blocking the project that {person} leads?", "multi-hop", [lead, block])
    exchanges = [
        ("Which database should we use for the analytics events?", "We went with ClickHouse; it handles the event volume best.", "Which database was picked for analytics events?"),
        ("Where should the team offsite be held in autumn?", "Porto won the vote, close to the beach and cheap flights.", "Where is the autumn offsite going to be?"),
        ("What should we name the new internal CLI?", "Everyone liked 'hoist', so that is the name.", "What name did the internal command line tool get?"),
        ("Who can cover the on-call shift during the holidays?", "Kwame volunteered to take the whole week.", "Who is on call over the holidays?"),
        ("Which charting library should the dashboard use?", "ECharts, because it copes with large series.", "What library draws the dashboard charts?"),
        ("What is the budget for the conference trip?", "Two thousand euros per person, travel included.", "How much can each person spend on the conference trip?"),
        ("Should we keep supporting Internet Explorer?", "No, support ends with the next major release.", "Are we dropping the old Microsoft browser?"),
        ("Which cloud region should host the Asia customers?", "Singapore, for latency to most of them.", "Where are Asian customers hosted?"),
        ("How should we version the public API?", "Date-based versions in a request header, like Stripe.", "What API versioning scheme did we choose?"),
        ("What should the default session timeout be?", "Twelve hours, with a refresh on activity.", "How long do sessions last by default?"),
    ]  # fmt: skip
    for i, (question_turn, answer_turn, question) in enumerate(exchanges):
        seq = f"chat-{i}"
        first = add(f"User: {question_turn}", 10.0 + i, ["chat"], sequence=seq)
        second = add(f"Assistant: {answer_turn}", 10.0 + i, ["chat"], sequence=seq)
        ask(question, "multi-hop", [second, first])

    # distractor: near-duplicates that differ in the detail asked about
    for fact, others, question in DISTRACTORS:
        mid = add(fact, rng.uniform(1, 120))
        for other in others:
            add(other, rng.uniform(1, 120))
        ask(question, "distractor", [mid])

    # filler: generic agent memories on the same vocabulary
    verbs = ["reviewed", "updated", "discussed", "benchmarked", "documented", "refactored"]
    things = [
        "the release checklist", "the onboarding guide", "the error budget", "the API docs",
        "the dashboard layout", "the retry policy", "the caching layer", "the test fixtures",
    ]  # fmt: skip
    for _ in range(60):
        person = PEOPLE[rng.randrange(len(PEOPLE))]
        project = PROJECTS[rng.randrange(len(PROJECTS))]
        add(
            f"{person} {rng.choice(verbs)} {rng.choice(things)} for {project}.",
            rng.uniform(1, 120),
            ["log"],
        )
    return {"as_of": AS_OF, "seed": seed, "memories": memories, "queries": queries}


def main() -> None:
    data = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for q in data["queries"]:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    print(f"{len(data['memories'])} memories, {len(data['queries'])} queries: {kinds}")


if __name__ == "__main__":
    main()
