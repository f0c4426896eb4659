"""Two recall stages for memories agents write (ADR 0078): ``current`` and ``entity``.

Agents keep facts that change ("billing-api runs on Postgres 14", months later "migrated
billing-api to Postgres 16"), often without a supersede link, and near-identical facts
about other people and projects ("Tim is allergic to cats" beside "Tom is allergic to
shellfish"). The blend ranks both by how much they sound like the question; neither
knows which is the newer or whose it is.

* **entity**: the question's named things (runs of capitalised names, identifiers like
  ``checkout-web`` or ``E1042``) that some memory of the collection mentions. A
  candidate's *coverage* (:func:`coverage`): per thing, its rarest word held counts in
  full and a commoner one by its IDF; a candidate missing what the best-covering one
  holds loses ``score × entity · (best − coverage) / best``. Names most memories use (a
  chat's speakers, more than :data:`~houkai.recall.coverage.COMMON_NAME_SHARE`) tell
  nothing and are left out. A tag of several words whose first word the question holds
  in lower case ("the billing API" for ``billing-api``) is a named thing too
  (:func:`~houkai.recall.coverage.tag_things`).
* **current**: the question's intent: *present* (no past tense, or "now / currently /
  these days / latest"), *past* ("originally", "used to", "previous", "before …" with a
  past verb) or neither (a past-tense question, a time window). Among the
  :attr:`~houkai.recall.stages.params.StageParams.current_top` best candidates, two
  memories are on one topic when they hold the same share of the question's named things
  and

  - their cosine is ≥ ``current_similarity`` and they share a *topic word* of the question
    (:func:`topic_words`: one few candidates hold, not part of a named thing), or the newer
    says it is an update ("now", "moved", "no longer":
    :data:`~houkai.recall.statements.UPDATE_WORDS`); sharing only the named thing makes
    "CI for search-indexer is Buildkite" and "the search indexer uses FastAPI" siblings,
    not one topic (ADR 0088);
  - or their cosine is ≥ ``current_shared`` and both repeat a value the question does not
    name (a name, a number, a word no third top candidate holds) while both hold a word
    the question asks (ADR 0085): one beyond its named things unless the newer says it is
    an update ("card" in two notes on Grandma Rose is no topic, ADR 0088); or the newer
    says it is an update and both hold a topic word (ADR 0086); or the newer gives a new
    value of what the older gave, under the same opening words ("quayside/infra:
    Terraform 1.7.4" after "quayside/infra uses Terraform 1.5.7":
    :func:`~houkai.recall.statements.restates`, ADR 0099);
  - or the question names a thing and asks a slot of it ("cart-api deploy target"), both
    hold every question word a top candidate holds, and their cosine is ≥
    ``current_similarity`` (``current_shared`` when the newer says it is an update): a
    service's deploy target set six times in a year, worded six ways ("cart-api deploy
    target is GKE", "Updated the deploy target for cart-api: Cloud Run", "Bumped …"), is
    one topic, though every candidate on deploy targets holds those words. A word every
    candidate naming the thing holds is part of its name, no slot ("work" in every note on
    "Mia from work", ADR 0114).

  Two candidates holding different shares of the named things ("the notification
  service" beside "notify-service") link only the second way, and only when both hold some,
  or when the newer holds none and plainly restates the older's value ("web-dashboard:
  `.nvmrc` is 20.11.1" after "web-dashboard needs Node 18 (`.nvmrc` says 18.19.0)" for
  "What Node version do I need for the dashboard?", ADR 0102).
  Nor do two that open with different code names, one the question asks and the other an
  identifier it does not ask ("notifier deploys to EKS" beside "shipments-api deploys to
  EKS now, same Argo CD setup as billing", ADR 0098): a service written in lower case is
  no named thing, yet it is the subject. Nor, unless the newer says it is an update, do two
  that open with two owners' facts ("Theo's primary care doctor is …" beside "User's
  primary care doctor is …", ADR 0103).

  The stage also reaches below its top candidates (:data:`PULL_REACH`) for updates
  worded away from the question ("the ledger worker switched its linter to biome" for
  "what's ledger-worker's current formatter?"): up to :data:`PULL_MOST` memories that
  say they are an update, are newer than a top candidate,
  repeat a value or rare word of it, share a word of the question with it and a cosine ≥
  ``current_shared`` join the grouping (ADR 0088).

  Memories each linked to every other form a group; an update that repeats a value of
  the group's newest and links to it joins too (a chain of replacements: Python 3.10 →
  Go 1.21 → Java 17, ADR 0089). For a present question the group's newest must be its
  update: it holds every question word another member holds (one may be missing when it
  says it is an update or plainly restates a member's value,
  :func:`~houkai.recall.statements.restates_plainly`, or when the question asks whether
  a state holds on: "Do I still eat fish?" and "User is vegetarian, no fish either.",
  ADR 0108; "closes at 6pm" beside "opens at
  8am" is a sibling; any number of a topic's words when it says it is an update, names all
  the question names and repeats the value it replaces: "notify-service moved to Express;
  the chi app factory is gone", ADR 0089), and it does not tell of an event ("the build
  was failing on CI") unless it says it is an update or repeats the old value ("it was
  10:00 until March"); a note of one day ("ran 25 minutes today") tells of an event too
  (ADR 0097). When it fails, the rest still stand if their newest says it is an update
  (ADR 0088), or, for a question that asks when, if the newest that failed states no time
  beside dated members (ADR 0108). A newest written at the same instant as the next updates
  nothing, and one within ``current_gap`` (one sitting, one batch in its order) only when
  it says it is an update or restates a member's value (ADR 0092, 0093, 0099), or a present
  question asks whether a state holds on (ADR 0108). The update takes the group's best
  score slot for a present question, its last for a past one; the others keep their
  order in the slots left. A past question that says which member it wants gets it
  first: the oldest for "originally" or "start with" (ADR 0114), the one just before
  the member naming X for "before X" (ADR 0088). When no group ranked the memory naming X
  ("Maya is based in Toronto." and "My sister Maya is based in Denver." share no word of
  "Where did Maya live before Toronto?"), the point pairs them itself
  (:func:`~houkai.recall.reference.state_before`, ADR 0095). Other candidates keep their
  scores and ranks, and so do the turns of a recorded conversation (memories that ``follow``
  another): a later turn on a topic carries the talk on rather than replacing what was
  said. The question's pronouns ("remind **me**", "work with **us**") are no question
  words.

Both cost no I/O: the words' frequencies are those the lexical leg read, the vectors those
the candidate search returned.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..domain.text import stem_tokens
from .asking import StateQuery, answers_as_well
from .candidates import previous_turn, stacked
from .coverage import coverage
from .query import STARTED_WITH, states_time
from .reference import naming, put_first, state_before
from .slots import deal
from .statements import (
    CHANGE_WORDS,
    change_speaks_of,
    content_words,
    opening_code_name,
    opening_owner,
    restates,
    restates_plainly,
    says_update,
    stated_values,
)

if TYPE_CHECKING:
    from .candidates import Candidate

#: A word at most this many of the ``current`` stage's top candidates hold (and the
#: question does not) is one an update repeats of the fact it replaces: the old fact and
#: its update.
ECHO_MOST = 2

#: How a memory tells of an event rather than a state ("the build **was** failing …",
#: "standup ran 25 minutes **today**", ADR 0097).
_EVENT = re.compile(
    r"\b(?:did|was|were|had|today|yesterday|tonight|last night"
    r"|this (?:morning|afternoon|evening))\b",
    re.I,
)
#: A past question asking for the first state ("What was its original port?").
_ORIGINAL = re.compile(
    r"\b(?:originally|original|at first|initially|" + STARTED_WITH + r")\b", re.I
)
#: How far below its top candidates the ``current`` stage looks for their updates, and how
#: many it brings up (ADR 0088).
PULL_REACH = 10
PULL_MOST = 3


def _content_words(text: str, asked: frozenset[str]) -> frozenset[str]:
    return content_words(text) - asked


def _distinct(top: list[Candidate], asked: frozenset[str], most: int) -> list[set[str]]:
    """Per candidate of *top*, its words that at most *most* of *top* hold and the
    question does not: what an update repeats of the fact it replaces ("chi" in "moved
    to Express; the chi app factory is gone" beside "uses chi for its web framework").
    A candidate brought up from below counts as a holder like any other: a word three of
    them hold is no echo, whichever ranked where. Nor is a word of change: two updates of
    different facts both say "moved" (ADR 0097)."""
    words = [_content_words(c.memory.text, asked) for c in top]
    holders = Counter(w for ws in words for w in ws)
    return [{w for w in ws if holders[w] <= most and w not in CHANGE_WORDS} for ws in words]


def _groups(
    top: list[Candidate],
    similarity: float,
    cover: dict[str, float],
    shared: float,
    values: Sequence[frozenset[str]],
    held: Sequence[frozenset[str]],
    terms: frozenset[str],
    updates: Sequence[bool],
    ages: Sequence[float],
    named: frozenset[str] = frozenset(),
    topical: set[str] | None = None,
) -> list[list[int]]:
    """Groups of *top* (indices, best first) on one topic (the module docstring says when
    two are): *held* are the question's words (*terms*) each holds, *values* the values
    and rare words each names that the question does not, *updates* which say they are
    one, *ages* their recency basis, *named* the words of the question's named things,
    *topical* its topic words (:func:`topic_words`, read here when not given). A
    candidate joins the first group it fits whole. Two candidates holding a partial share
    of the named things link only by an echo ("the notification service" beside
    "notify-service"), or when the newer holds none of them and plainly restates the
    older's value."""
    if topical is None:
        topical = topic_words(held, named)
    leads = [opening_code_name(c.memory.text) for c in top]
    # every question word some candidate holds: the thing the question names and a slot of
    # it ("cart-api" + "deploy target"), when some candidate naming the thing lacks a word
    # of the slot (every note on "Mia from work" holds "work": that is her name)
    asked_all = frozenset().union(*held)
    naming = [words for words in held if named and named <= words]
    slot = len(naming) > 1 and bool(asked_all - frozenset.intersection(*naming))
    # an identifier the question asks (an order number, a ticket) names one thing alone: a
    # note holding none of it is another order's, whatever it restates (ADR 0115)
    numbered = any(word.isdigit() for word in named)
    owners = [opening_owner(c.memory.text) for c in top]

    def other_subject(i: int, j: int) -> bool:
        """*i* opens with a code name the question asks, *j* with an identifier it does not
        ask (neither name part of the other: "web-dashboard" is "the dashboard"):
        "notifier deploys to EKS" and "shipments-api deploys to EKS now, same Argo CD setup
        as billing" are two services' facts, not a fact and its update (ADR 0098)."""
        (ni, _), (nj, identifier) = leads[i], leads[j]
        if not ni or not identifier or not ni <= terms or nj <= terms:
            return False
        return not (ni <= nj or nj <= ni)

    least = min(shared, similarity)  # no link below it, whatever the words say

    def linked(i: int, j: int) -> bool:
        vi, vj = top[i].vector, top[j].vector
        if vi is None or vj is None:
            return False
        cos = float(np.dot(vi, vj))
        if cos < least or other_subject(i, j) or other_subject(j, i):
            return False
        newer = i if (ages[i], top[i].memory.id) > (ages[j], top[j].memory.id) else j
        update = updates[newer]
        if owners[i] and owners[j] and owners[i] != owners[j] and not update:
            return False  # Theo's doctor is no update of the user's
        both = held[i] & held[j]
        asked = bool(both - named) or (update and bool(both))
        echo = bool(values[i] & values[j]) and (not terms or asked)
        if not echo:
            echo = update and bool(both & topical)
        new_text, old_text = top[newer].memory.text, top[j if newer == i else i].memory.text
        ci, cj = cover.get(top[i].memory.id, 1.0), cover.get(top[j].memory.id, 1.0)
        shares_differ = abs(ci - cj) > 1e-9 and not (echo and ci > 0 and cj > 0)
        # then only a newer that names none of what the question names and restates the
        # older's value plainly (".nvmrc is 20.11.1" after "needs Node 18 (.nvmrc says
        # 18.19.0)"); not "Office seating: Ben's desk is now in room 14" after Anna's
        if shares_differ and (
            (ci if newer == i else cj) > 1e-9
            or numbered
            or not restates_plainly(new_text, old_text)
        ):
            return False
        if cos >= shared and echo:
            return True
        if cos >= shared and restates(new_text, old_text):
            return True
        if slot and held[i] == held[j] == asked_all and cos >= (shared if update else similarity):
            return True  # two values of one slot: "cart-api deploy target = Nomad" (ADR 0114)
        return cos >= similarity and (update or not terms or bool(both & topical))

    def extends(i: int, group: list[int]) -> bool:
        """An update of the group's newest joins though it shares nothing with the older
        members: Python 3.10 → Go 1.21 → Java 17 is one chain of replacements."""
        head = max(group, key=lambda j: (ages[j], top[j].memory.id))
        newer = (ages[i], top[i].memory.id) > (ages[head], top[head].memory.id)
        return updates[i] and newer and bool(values[i] & values[head]) and linked(i, head)

    groups: list[list[int]] = []
    for i in range(len(top)):
        for group in groups:
            if all(linked(i, j) for j in group):
                group.append(i)
                break
        else:
            groups.append([i])
    # then the chains, oldest link first, whatever the ranks: a candidate on its own joins
    # the group whose newest it updates (Java 17 may rank above the Go 1.21 it replaced)
    for i in sorted(range(len(top)), key=lambda j: (ages[j], top[j].memory.id)):
        alone = next((g for g in groups if g == [i]), None)
        if alone is None:
            continue
        home = next((g for g in groups if g is not alone and len(g) > 1 and extends(i, g)), None)
        if home is not None:
            home.append(i)
            groups.remove(alone)
    return [sorted(g) for g in groups if len(g) > 1]


def topic_words(held: Sequence[frozenset[str]], named: frozenset[str]) -> set[str]:
    """The question's words that name its topic among the candidates (*held*: the question
    words each holds): few of them hold it (the old fact, its update, one more; "daily" in
    "When do I get my daily summary?"), and it is no part of what the question names: not
    a word of a named thing, nor one every candidate naming it holds ("work" in every note
    about "Mia from work")."""
    holders = Counter(w for words in held for w in words)
    few = max(ECHO_MOST, len(held) // 3)
    topical = {w for w, n in holders.items() if n <= few} - named
    naming = [words for words in held if words & named]
    if len(naming) > 1:
        topical -= naming[0].intersection(*naming[1:])
    return topical


def _members_and_update(
    group: list[int],
    top: list[Candidate],
    held: Sequence[frozenset[str]],
    updates: Sequence[bool],
    ages: Sequence[float],
    intent: str,
    values: Sequence[frozenset[str]],
    topical: set[str],
    subject: Sequence[bool],
    when: bool = False,
    persists: bool = False,
    words: Sequence[frozenset[str]] = (),
) -> tuple[list[int], int]:
    """The group's members and its update (the newest), for a present question only where
    the update answers what the others answered (:func:`~.asking.answers_as_well`) and does not
    tell of an event ("the build **was** failing on CI …" is no new state of "builds on
    Buildkite"; "it **was** 10:00 until March" repeats the old value, so it is one); an
    empty group when none does. A newest that fails is a sibling fact ("INV-0457 to
    Pemberton, €15,000" beside two due dates); the rest still stand when their newest says
    it is an update ("Pemberton's due date is **now** 15 January"), or when the one that
    failed states no time beside dated members and the question asks when (ADR 0108).
    *values*, *topical*: as :func:`_groups` and :func:`topic_words` read them; *subject*:
    per candidate, does it name all the question names (an update that does may reword the
    attribute); *persists*: the question asks whether a state holds on ("Do I still eat
    fish?"), so the newest may lack one of its words ("User is vegetarian, no fish
    either.", ADR 0108); *words*: the terms of each value the question names
    (:func:`~.asking.answers_as_well`)."""

    def newest(members: list[int]) -> int:
        return max(members, key=lambda i: (ages[i], top[i].memory.id))

    def timeless(members: list[int], at: int) -> bool:
        """A question that asks when, and member *at* states no time beside dated members
        nor says it is an update: no state of the topic (ADR 0101)."""
        return when and not updates[at] and _timeless_among_times(top, members, at)

    def updates_the_rest(members: list[int], at: int) -> bool:
        # an update may tell the old value in the past ("it was 10:00 until March"): it
        # repeats a name or number of a member that states a fact, not of another event
        said = stated_values(top[at].memory.text)
        echoes = any(
            said & stated_values(top[i].memory.text)
            for i in members
            if i != at and not _EVENT.search(top[i].memory.text)
        )
        event = not updates[at] and not echoes and _EVENT.search(top[at].memory.text)
        if event:
            return False
        if updates[at] and subject[at] and any(values[at] & values[i] for i in members if i != at):
            # it names the subject and the value it replaces ("notify-service moved to
            # Express; the chi app factory is gone"): it may word the attribute its own way
            lacks = set().union(*(held[i] for i in members)) - held[at]
            if lacks <= topical:
                return True
        if timeless(members, at):
            # "SLA tier: Priority, thrown into the renewal" beside two dates; one that says
            # it is an update keeps its place ("Renewal moved to mid-September": a date in words
            # `states_time` does not read)
            return False
        # its word of change counts for the members holding a question word it lacks only
        # where it speaks of them (ADR 0101)
        lacked = [i for i in members if i != at and held[i] - held[at]]
        changed = updates[at] and all(
            change_speaks_of(top[at].memory.text, content_words(top[i].memory.text)) for i in lacked
        )
        slack = 1 if changed or persists or _restated(top, members, at, plainly=True) else 0
        return answers_as_well([held[i] for i in members], members.index(at), slack, words)

    at = newest(group)
    if intent != "present" or updates_the_rest(group, at):
        return group, at
    rest = [i for i in group if i != at]
    # a newest that is no state of the topic leaves the rest to stand on their own, once
    # (ADR 0108)
    judged_alone = timeless(group, at)
    while len(rest) > 1:
        at = newest(rest)
        if not (updates[at] or judged_alone):
            break
        judged_alone = False
        if updates_the_rest(rest, at):
            return rest, at
        rest = [i for i in rest if i != at]
    return [], at


def _timeless_among_times(top: list[Candidate], members: list[int], at: int) -> bool:
    """Does member *at* state no time while another member does? For a question that asks
    when, such a newest is a sibling fact on the topic, not its new date (ADR 0101)."""
    if states_time(top[at].memory.text):
        return False
    return any(states_time(top[i].memory.text) for i in members if i != at)


def _restated(top: list[Candidate], members: list[int], at: int, plainly: bool = False) -> bool:
    """Does member *at* give a new value of what another member gave
    (:func:`~houkai.recall.statements.restates`; *plainly*: saying nothing new of what the
    value is of, :func:`~houkai.recall.statements.restates_plainly`)?"""
    said = restates_plainly if plainly else restates
    text = top[at].memory.text
    return any(said(text, top[i].memory.text) for i in members if i != at)


def _when(c: Candidate, state: StateQuery) -> float:
    """The blend's recency basis: created, or last access."""
    return c.memory.last_accessed if state.accessed else c.memory.created_at


def _later_updates(
    top: list[Candidate],
    below: list[Candidate],
    values: Sequence[frozenset[str]],
    held: Sequence[frozenset[str]],
    ages: Sequence[float],
    state: StateQuery,
    shared: float,
    gap: float,
) -> list[Candidate]:
    """Up to :data:`PULL_MOST` candidates of *below* that say they update one of *top*
    ("Bumped billing-api from Go 1.21 to Java 17" below "billing-api now requires Go
    1.21"): newer than it (by *gap* or more when ages are last reads, as
    :func:`_left_alone` has it), a cosine of *shared* or more to it, repeating one of its
    values or rare words, and holding a question word it holds. An update worded away from
    the question ranks low, yet it is the answer. *values*, *held*, *ages*: per top
    candidate, as :func:`_groups` reads them. The cheap tests go first: one matrix product
    of cosines, the ages, the update's words."""
    old = [(i, v) for i, c in enumerate(top) if (v := c.vector) is not None]
    new = [(c, v) for c in below if (v := c.vector) is not None]
    if not old or not new:
        return []
    olds, news = [i for i, _ in old], [c for c, _ in new]
    cosines = stacked([v for _, v in new]) @ stacked([v for _, v in old]).T
    newer = np.array([_when(c, state) for c in news])[:, None] - np.array([ages[i] for i in olds])
    later = newer >= gap if state.accessed else newer > 0  # a read is no write
    fits = (cosines >= shared) & later  # close to and newer than that candidate
    out: list[Candidate] = []
    for row in np.flatnonzero(fits.any(axis=1)):
        c = news[row]
        if not says_update(c.memory.text):
            continue
        text = c.memory.text
        mine = (stated_values(text) - state.asked) | _content_words(text, state.asked)
        asks = state.asked_terms & frozenset(stem_tokens(text))
        if any(mine & values[olds[j]] and asks & held[olds[j]] for j in np.flatnonzero(fits[row])):
            out.append(c)
            if len(out) >= PULL_MOST:
                break
    return out


def _asked_for(
    group: list[int],
    top: list[Candidate],
    held: Sequence[frozenset[str]],
    ages: Sequence[float],
    question: str,
    words: Sequence[frozenset[str]] = (),
) -> int | None:
    """The member a past question asks for, when it says which: the oldest for "originally"
    / "at first" / "start with", the one just before the member that names the question's
    reference point for "before X" ("Who owned the billing service before Ravi?": the owner
    Ravi took over from, not the first one). Only a member that answers what the others
    answer (all but one word) qualifies: a sibling fact in the group is never the state
    asked for. None: the question does not say, or names no member (the newest then goes
    last)."""
    by_age = sorted(group, key=lambda i: (ages[i], top[i].memory.id))
    members = [held[j] for j in group]
    answering = [i for i in by_age if answers_as_well(members, group.index(i), 1, words)]
    if _ORIGINAL.search(question):
        return answering[0] if answering else None
    named = naming(question, [top[i].memory.text for i in by_age])
    if not named:
        return None
    older = set(by_age[: named[0]])
    before = [i for i in answering if i in older]
    return before[-1] if before else None


def _left_alone(apart: float, says_update: bool, gap: float, accessed: bool) -> str | None:
    """Why a memory *apart* seconds newer than another on its topic is not its update, or
    None when it may be. Written at the same instant, neither is newer. Within *gap* (one
    sitting: an agent's session, a batch or an import that replays a history in its
    order) only one that says it is an update does ("the linter is biome now"); a note
    written minutes after another is as likely its sibling. By last access (*accessed*)
    the ages are reads, and a read seconds ago wrote nothing: the whole *gap* holds.
    Beyond *gap* the newer is the update when the topic rules say so (ADR 0092, 0093)."""
    if apart >= gap:
        return None
    if accessed:
        return "read within the hour"
    if apart <= 0:
        return "same instant"
    return None if says_update else "within the hour, no update word"


def newest_first(
    cands: list[Candidate],
    state: StateQuery,
    similarity: float,
    top_n: int,
    cover: dict[str, float],
    shared: float = 1.0,
    gap: float = 3600.0,
) -> None:
    """Deal each topic group's score slots out by age (see the module docstring)."""
    if state.intent not in ("present", "past") or top_n < 2 or len(cands) < 2:
        return
    # A turn of a recorded exchange (it ``follows`` another) is what was said then: a
    # later turn on its topic carries on the talk and does not replace it.
    best = sorted(cands, key=lambda c: (-c.score, c.memory.id))[: top_n + PULL_REACH]
    top = [c for c in best[:top_n] if previous_turn(c.memory) is None]
    below = [c for c in best[top_n:] if previous_turn(c.memory) is None]
    asked, terms = state.asked, state.asked_terms

    def features(
        cands: list[Candidate],
    ) -> tuple[list[frozenset[str]], list[frozenset[str]], list[float]]:
        """Per candidate: the values and rare words it names, the question words it holds,
        its age."""
        rare = _distinct(cands, asked, ECHO_MOST)
        values = [
            (stated_values(c.memory.text) - asked) | d for c, d in zip(cands, rare, strict=True)
        ]
        held = [terms & frozenset(stem_tokens(c.memory.text)) for c in cands]
        return values, held, [_when(c, state) for c in cands]

    values, held, ages = features(top)
    pulled = _later_updates(top, below, values, held, ages, state, shared, gap)
    if pulled:
        top += pulled
        values, held, ages = features(top)
    if state.words and not cover:
        cover = {c.memory.id: coverage(c, state.words, state.stemmed) for c in top}
    updates = [says_update(c.memory.text) for c in top]
    named = frozenset(stem_tokens(" ".join(state.entities)))
    topical = topic_words(held, named)
    groups = _groups(
        top, similarity, cover, shared, values, held, terms, updates, ages, named, topical
    )
    # names all the question names (it names something): the update's subject is known
    subject = [bool(state.words) and cover.get(c.memory.id, 0.0) >= 1.0 - 1e-9 for c in top]
    answered = False  # a group gave the past question the member it asks for
    dealt: set[int] = set()  # the candidates groups ranked
    # a present question whether a state holds on expects a change: the newest may lack a
    # question word, and may be written within one sitting (ADR 0108)
    expects = state.persists and state.intent == "present"
    for group in groups:
        group, at = _members_and_update(
            group, top, held, updates, ages, state.intent, values, topical, subject,
            state.when, expects, state.words_asked,
        )  # fmt: skip
        if len(group) < 2:
            continue
        newest_two = sorted((ages[i] for i in group), reverse=True)[:2]
        said = updates[at] or expects or _restated(top, group, at)
        left = _left_alone(newest_two[0] - newest_two[1], said, gap, state.accessed)
        if left is not None:
            for i in group:  # explain why an update the caller expected did not move
                top[i].explain.setdefault("stages", {})["current_left"] = left
            continue
        members, newest = [top[i] for i in group], top[at]
        rest = [
            c for c in sorted(members, key=lambda c: (-c.score, c.memory.id)) if c is not newest
        ]
        order = [newest, *rest] if state.intent == "present" else [*rest, newest]
        if state.intent == "past":
            was = _asked_for(group, top, held, ages, state.question, state.words_asked)
            if was is not None:
                answered = True
                order = [top[was], *(c for c in order if c is not top[was])]
        deal(order)
        dealt.update(group)
    if state.intent == "past" and not answered:
        found = state_before(
            top, ages, subject, state.question, similarity, shared, frozenset(dealt)
        )
        # the question says the point replaced the state, so any time apart will do,
        # unless the ages are last reads
        if found is not None:
            was, topic = found
            if _left_alone(ages[topic[0]] - ages[was], True, gap, state.accessed) is None:
                put_first(top, was, topic)
