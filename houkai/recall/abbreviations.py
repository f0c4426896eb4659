"""What notes abbreviate and questions spell out: "pull requests" finds "Keep PRs small".

Agents write "PR", "QBR", "ETA", "PTO" in their notes; a question, asked later in other
words, says "pull requests", "business review", "arrival time", "time off". The two
share no word, and a small embedding model links an acronym to its expansion weakly. So
the ``synonyms`` stage also folds an abbreviation into the question words that spell it
out (ADR 0109): each of them counts a note's "PR" as itself, as a synonym counts
(:class:`houkai.store.lexstats.Fold`), and the abbreviation is searched too.

A question spells out an abbreviation where its words stand together as in the expansion
(:meth:`Abbreviation.spelled_out`): "tiny accounts get a business review" spells out QBR
("quarterly business review"); "What day does the trial end?" does not spell out EOD
("end of day"), and "chief officer" no one, since other expansions hold those words
too. Only that direction: a question that says "PR" finds a note that says
"pull request" by meaning alone, since a note's "request" is seldom a pull request.

In a ``recall_synonyms`` file, a line ``short = words of the expansion`` adds one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..domain.model import ValidationError
from ..domain.text import ANY_STOP_WORDS, inflects, stem, tokenize

#: The built-in abbreviations: what notes on software projects, teams, clients and a
#: household commonly write short, from general usage (ADR 0109 says which dev questions
#: had been seen when it was written). An abbreviation notes also write as a word is left
#: out: "it", "am", "us", and "pm" ("3 pm"), "mr", "cd", "os" (``import os``), "hr"
#: (hours), "ml", "sow", "er", "em": a note's token cannot tell the two apart.
BUILT_IN = """
# software projects
pr = pull request
ci = continuous integration
qa = quality assurance
uat = user acceptance testing
api = application programming interface
sdk = software development kit
vm = virtual machine
adr = architecture decision record
rfc = request for comments
prd = product requirements document
etl = extract transform load
sso = single sign on
mfa = multi factor authentication
2fa = two factor authentication
sre = site reliability engineering
rca = root cause analysis
cdn = content delivery network
vpn = virtual private network
dns = domain name system
ui = user interface
ux = user experience
llm = large language model
wip = work in progress
# roles
tl = tech lead
vp = vice president
ceo = chief executive officer
cto = chief technology officer
cfo = chief financial officer
coo = chief operating officer
cmo = chief marketing officer
ciso = chief information security officer
csm = customer success manager
ae = account executive
se = sales engineer
se = solutions engineer
sdr = sales development representative
# teams, clients and contracts
pto = paid time off
ooo = out of office
wfh = work from home
rto = return to office
eod = end of day
eow = end of week
eta = estimated time of arrival
sla = service level agreement
slo = service level objective
kpi = key performance indicator
okr = objectives and key results
roi = return on investment
arr = annual recurring revenue
mrr = monthly recurring revenue
qbr = quarterly business review
crm = customer relationship management
erp = enterprise resource planning
nda = non disclosure agreement
msa = master services agreement
rfp = request for proposal
poc = proof of concept
mvp = minimum viable product
faq = frequently asked questions
asap = as soon as possible
# a household
gp = general practitioner
dob = date of birth
hoa = homeowners association
pta = parent teacher association
bff = best friend
"""


@dataclass(frozen=True)
class Abbreviation:
    """*short* for an expansion whose content words are *words*, joined by the stop words
    *glue* ("of" in "date of birth")."""

    short: str
    words: tuple[str, ...]
    glue: frozenset[str] = frozenset()

    def spelled_out(self, tokens: Sequence[str]) -> Iterator[tuple[list[str], frozenset[str]]]:
        """Each place the question (*tokens*) spells this out: the tokens that do and the
        words of it they hold. A place is a run of its words, each as written or inflected
        ("requests"), at most one stop word apart. Both words of a two-word expansion, in
        their order, joined by nothing or its own stop words ("work from home", not "home
        from work" nor "work to home"); of a longer one, two words or more that stand
        together in it, its last among them ("business review", "arrival time", not
        "software development" for "software development kit")."""
        for run in self._runs(tokens):
            held = [w for _, w in run]
            if self._spells(held, tokens[run[0][0] : run[-1][0] + 1]):
                yield list(dict.fromkeys(tokens[i] for i, _ in run)), frozenset(held)

    def _word(self, token: str) -> str | None:
        return next((w for w in self.words if token == w or inflects(token, w)), None)

    def _runs(self, tokens: Sequence[str]) -> Iterator[list[tuple[int, str]]]:
        run: list[tuple[int, str]] = []
        gap = False
        for i, token in enumerate(tokens):
            word = self._word(token)
            if word is not None:
                run.append((i, word))
                gap = False
            elif run and not gap and token in ANY_STOP_WORDS:
                gap = True
            else:
                if run:
                    yield run
                run, gap = [], False
        if run:
            yield run

    def _spells(self, held: list[str], span: Sequence[str]) -> bool:
        found = set(held)
        if len(self.words) == 2:
            first, second = self.words
            if found != {first, second} or held.index(first) > held.index(second):
                return False
            return all(t in self.glue or self._word(t) for t in span)
        at = sorted(self.words.index(w) for w in found)
        return len(at) >= 2 and at[-1] == len(self.words) - 1 and at[-1] - at[0] == len(at) - 1


def one_word(entry: str, where: str) -> str:
    """*entry* of a synonyms file as the one word the index reads it as; raises
    :class:`ValidationError` naming *where* (the file and line) when it is more than one
    word, or a stop word (recall never searches one)."""
    tokens = list(dict.fromkeys(tokenize(entry)))  # a CJK pair is its own bigram
    if len(tokens) != 1:
        raise ValidationError(
            f"{where}: {entry!r} is not one word as the index splits text "
            f"({' '.join(tokens) or 'no word'}); write one of them"
        )
    if tokens[0] in ANY_STOP_WORDS:
        raise ValidationError(f"{where}: {tokens[0]!r} is a stop word; recall never searches it")
    return tokens[0]


def read_abbreviation(line: str, where: str) -> Abbreviation:
    """The abbreviation of a line ``short = expansion`` (its comment cut off); raises
    :class:`ValidationError` naming *where* when the line holds more than one ``=``, the
    short form is not one word or is a stop word, or the expansion has fewer than two
    words a question would be searched by."""
    if line.count("=") > 1:
        raise ValidationError(f"{where}: one '=' a line: short = what it stands for")
    left, right = line.split("=", 1)
    short = one_word(left.strip(), where)
    tokens = tokenize(right)
    words = tuple(dict.fromkeys(t for t in tokens if t not in ANY_STOP_WORDS))
    if len(words) < 2:
        raise ValidationError(
            f"{where}: an expansion needs two words that are no stop words "
            f"(one word is a synonym: write a group)"
        )
    glue = frozenset(t for t in tokens if t in ANY_STOP_WORDS)
    return Abbreviation(short, words, glue)


class Abbreviations:
    """Abbreviations looked up by a question's words (a word or an inflection of one)."""

    def __init__(self, known: Iterable[Abbreviation] = ()) -> None:
        self.known = tuple(known)
        self._by_stem: dict[str, list[Abbreviation]] = {}
        self._stems = {a: frozenset(stem(w) for w in a.words) for a in self.known}
        for abbreviation in self.known:
            for word in abbreviation.words:
                self._by_stem.setdefault(stem(word), []).append(abbreviation)

    def spelled_out(self, tokens: Sequence[str]) -> dict[str, list[str]]:
        """For each question word (of *tokens*) that spells out an abbreviation with its
        neighbours, the abbreviations it spells out, in the question's order. Words that
        another abbreviation's expansion holds as well spell out neither, unless they are
        all of one's: "chief financial officer" is the CFO, "chief officer" no one, and
        "recurring revenue" neither ARR nor MRR."""
        out: dict[str, list[str]] = {}
        seen: set[Abbreviation] = set()
        for token in tokens:
            for abbreviation in self._by_stem.get(stem(token), ()):
                if abbreviation in seen or abbreviation.short in tokens:
                    continue
                seen.add(abbreviation)
                for words, held in abbreviation.spelled_out(tokens):
                    if self._ambiguous(abbreviation, held):
                        continue
                    for word in words:
                        shorts = out.setdefault(word, [])
                        if abbreviation.short not in shorts:
                            shorts.append(abbreviation.short)
        return out

    def _ambiguous(self, abbreviation: Abbreviation, held: frozenset[str]) -> bool:
        """Do the words *held* of *abbreviation* belong to another's expansion too (by
        stem), while they are not all of its own?"""
        stems = frozenset(stem(w) for w in held)
        if stems == self._stems[abbreviation]:
            return False
        return any(o is not abbreviation and stems <= s for o, s in self._stems.items())
