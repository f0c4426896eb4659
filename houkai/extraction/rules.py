"""The no-LLM extractor: what the user states about themselves and their work.

It reads only the user's messages (an assistant's reply restates, guesses or pads) and
keeps, sentence by sentence:

- **preferences**: "I prefer/like/love/hate/can't stand …", "my favourite X is Y",
  "I'm allergic to …", "I'd rather …";
- **decisions**: "we decided/agreed to …", "let's use/go with …", "we'll use …",
  "from now on …", "the plan is …";
- **dated events**: a first-person statement with a date or a relative day ("yesterday",
  "last Friday", "on 3 May", "2024-05-03"), dated from the message's own time;
- **facts**: first-person statements ("I live in …", "I work at …", "my name is …",
  "I'm a …", "I have …", "we use …"), and anything after "remember that …".

It drops greetings, thanks, acknowledgements, questions, requests to the assistant
("can you …", "write a …") and hedges ("I think", "I'm not sure"). The text is turned
into a self-contained statement about the user ("I moved to Berlin" → "User moved to
Berlin"; the message's ``name`` is used when set). A fact about a single-valued slot
(where the user lives, works, their name, a favourite) is tagged ``slot:<name>``, so
reconciliation replaces the old value instead of keeping both.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from .base import Candidate, ChatMessage, Decision, ExtractResult, Neighbour, Usage

# ----------------------------------------------------------------------------- sentences
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|mr|mrs|ms|dr|st|no|approx)\.", re.IGNORECASE)
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+|(?<=[.!?])(?=[A-Z])")
_DOT = "\x00"


def sentences(text: str) -> list[str]:
    """*text* cut into sentences (abbreviations and decimals are not cuts)."""
    guarded = _ABBREV.sub(lambda m: m.group(0).replace(".", _DOT), text)
    guarded = re.sub(r"(\d)\.(\d)", rf"\1{_DOT}\2", guarded)
    parts = [p.replace(_DOT, ".").strip() for p in _SPLIT.split(guarded)]
    return [p for p in parts if p]


_FILLER = re.compile(
    r"^(hi|hey|hello|yo|howdy|good (morning|afternoon|evening|night)|thanks?( you)?( so much)?"
    r"|thank you|thx|ty|cheers|ok(ay)?|k|sure|yes|yeah|yep|yup|no|nope|nah|cool|great|nice"
    r"|awesome|perfect|got it|i see|makes sense|sounds good|alright|all right|lol|haha+|hmm+"
    r"|bye|goodbye|see you|ttyl|np|no problem|you're welcome|welcome|wow|oh|ah|uh|um"
    r"|exactly|right|correct|indeed|fine|done|please|sorry|oops|good|ok thanks|thanks again"
    r"|that's (great|perfect|helpful|right|it|all)|this is (great|helpful)|you('re| are) (right|"
    r"great|the best|awesome)|never ?mind|nvm)\b[\s!.,:)(;-]*$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z0-9À-ÿ']+")


def is_filler(sentence: str) -> bool:
    """Greeting, thanks, acknowledgement, laughter or too short to say anything."""
    text = sentence.strip().strip("*_~`\"' ")
    if not _WORD.search(text):
        return True  # emoji, punctuation
    if _FILLER.match(text):
        return True
    return len(_WORD.findall(text)) < 3


_QUESTION_START = re.compile(
    r"^(what|what's|whats|who|whom|whose|when|where|why|how|which|is|are|am|was|were|do|does"
    r"|did|can|could|would|will|shall|should|may|might|have|has|had|isn't|aren't|don't"
    r"|doesn't|didn't|won't|wouldn't|can't|couldn't|shouldn't|any idea|any chance)\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"^(please\s+)?(write|make|create|generate|give|show|tell|explain|help|find|list|draft"
    r"|summari[sz]e|translate|fix|debug|check|review|compare|suggest|recommend|convert"
    r"|rewrite|improve|describe|calculate|book|send|search|look up|remind)\b"
    r"|^(can|could|would|will) you\b|^i (want|need|would like|'d like) (you|to know|help)\b"
    r"|^i(?:'d| would) like (?:a|an|the|some|to see|to get|to have)\b|^i want (?:a|an|the|some)\b"
    r"|^(let me|lemme) (know|see|think|check)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"^(i\s*(think|guess|suppose|wonder|believe|feel like|assume|imagine|hope|mean|see|know"
    r"|understand|agree|forgot|can't remember|don't know|don't remember|'m not sure|am not sure"
    r"|'m wondering|am wondering|'m curious|am curious|'m trying|am trying|'m looking|am looking"
    r"|'m just|am just|'m fine|am fine|'m good|am good|'m ok|'m okay|'m back|'m here"
    r"|'m sorry|am sorry|'m confused|am confused|was wondering|was just|'ll try|will try"
    r"|'ll check|will check|have a question|got a question|meant|said|asked|was asking"
    r"|was talking about|don't think|do not think|don't understand|don't get|don't see"
    r"|don't care|don't mind|don't know|can't find|can't get|can't figure)|maybe|perhaps"
    r"|probably)\b",
    re.IGNORECASE,
)
_REMEMBER = re.compile(
    r"^(please\s+)?(remember|note|keep in mind|don't forget|do not forget|fyi|for the record"
    r"|for your information|just so you know|btw|by the way)\b[\s,:]*(that\s+)?",
    re.IGNORECASE,
)


#: talk about the task at hand (an error, this file) rather than about the user
_TRANSIENT = re.compile(
    r"\b(?:error|exception|traceback|stack ?trace|bug|crash(?:es|ed)?|throws?|segfault"
    r"|doesn't work|does not work|not working|won't compile|fails?|failing|keyerror"
    r"|typeerror|valueerror|\w+error)\b|\b(?:this|that) (?:file|function|line|code|snippet"
    r"|script|output|one)\b",
    re.IGNORECASE,
)


def is_question(sentence: str) -> bool:
    text = sentence.strip()
    return text.endswith("?") or bool(_QUESTION_START.match(text))


# ----------------------------------------------------------------------------- kinds
_NEG = r"(?:don't|do not|dont|no longer|never|can't|cannot|can not|won't)"
_PREFER_POS = re.compile(
    r"\b(?:i|we)(?:\s+|(?='))(?:really |absolutely |totally |definitely |generally |usually "
    r"|do |also )*"
    r"(love|like|prefer|enjoy|adore|'d rather|would rather|'m (?:a )?(?:big )?fan of|am (?:a )?"
    r"(?:big )?fan of|'m into|am into|always use|tend to use|want)\b",
    re.IGNORECASE,
)
_PREFER_NEG = re.compile(
    r"\b(?:i|we)(?:\s+|(?='))(?:really |absolutely |totally |also )*"
    r"(hate|dislike|detest|avoid|can't stand|cannot stand"
    rf"|{_NEG} (?:really |much )?(?:like|love|enjoy|want|eat|drink|use)"
    r"|'m not (?:a )?fan of|am not (?:a )?fan of|'m allergic to|am allergic to)\b",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"\b(?:my|our) (?:all[- ]time |absolute )?favou?rite ([a-z][a-z ]{1,30}?) (?:is|are|was)\b",
    re.IGNORECASE,
)
_DIET = re.compile(
    r"\b(?:i(?:'m| am)|we(?:'re| are)) (?:a |both )?(vegetarian|vegan|pescatarian"
    r"|lactose intolerant|gluten[- ]free|teetotal|kosher|halal|allergic to [a-z ]+)\b",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:(?:we|i)(?:'ve| have)? (?:just |finally |also )?(?:decided|agreed|chose|chosen|picked"
    r"|settled on|committed to|opted)|(?:we|i)(?:'re| are| am|'m) (?:going (?:to go )?with"
    r"|switching to|moving to|sticking with|standardi[sz]ing on)|(?:we|i)(?:'ll| will| shall)"
    r" (?:use|go with|stick with|switch to|adopt|migrate to|keep)|let'?s (?:use|go with|stick"
    r" with|switch to|keep|adopt|migrate to|pick|do|make|not)|from now on|going forward"
    r"|the plan is|the decision is|it's decided|decision:)",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(
    r"^(?:(?:also|and|but|so|actually|oh|well|anyway|btw|honestly|frankly|basically|yeah"
    r"|yes|no|ok|okay|by the way),? )*"
    r"(i|i'm|i've|i'd|i'll|im|ive|my|mine|we|we're|we've|our|me)\b",
    re.IGNORECASE,
)

# ----------------------------------------------------------------------------- dates
_WEEKDAYS = [d.lower() for d in calendar.day_name]
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_RELDAY = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|this morning|last night|the day before yesterday)\b",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(r"\b(last|this|next|on)\s+(" + "|".join(_WEEKDAYS) + r")\b", re.IGNORECASE)
_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|ten)\s+(day|week|month|year)s?\s+ago\b",
    re.IGNORECASE,
)
_LAST = re.compile(r"\b(last|next)\s+(week|month|year|weekend)\b", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(
    r"\b(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(_MONTHS) + r")\b"
    r"|\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
_IN_YEAR = re.compile(r"\b(?:in|since|back in)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "ten": 10}  # fmt: skip
_SPAN_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365, "weekend": 7}


def event_time(sentence: str, now: float) -> float | None:
    """When a dated sentence says something happened (UTC day), or None: undated."""
    base = dt.datetime.fromtimestamp(now, dt.UTC)
    day = base.replace(hour=12, minute=0, second=0, microsecond=0)
    if m := _ISO.search(sentence):
        try:
            return dt.datetime(int(m[1]), int(m[2]), int(m[3]), 12, tzinfo=dt.UTC).timestamp()
        except ValueError:
            return None
    if m := _RELDAY.search(sentence):
        word = m[1].lower()
        offset = {"yesterday": -1, "last night": -1, "the day before yesterday": -2,
                  "tomorrow": 1}.get(word, 0)  # fmt: skip
        return (day + dt.timedelta(days=offset)).timestamp()
    if m := _WEEKDAY.search(sentence):
        target = _WEEKDAYS.index(m[2].lower())
        delta = (target - day.weekday()) % 7
        if m[1].lower() == "last" or (m[1].lower() in ("on", "this") and _past(sentence)):
            delta = delta - 7 if delta > 0 else -7
        elif m[1].lower() == "next" and delta == 0:
            delta = 7
        return (day + dt.timedelta(days=delta)).timestamp()
    if m := _AGO.search(sentence):
        n = int(m[1]) if m[1].isdigit() else _NUMBERS[m[1].lower()]
        return (day - dt.timedelta(days=n * _SPAN_DAYS[m[2].lower()])).timestamp()
    if m := _LAST.search(sentence):
        sign = -1 if m[1].lower() == "last" else 1
        return (day + dt.timedelta(days=sign * _SPAN_DAYS[m[2].lower()])).timestamp()
    if m := _DAY_MONTH.search(sentence):
        d, month = (m[1], m[2]) if m[1] else (m[4], m[3])
        try:
            when = day.replace(month=_MONTHS[month.lower()], day=int(d))
        except ValueError:
            return None
        return when.timestamp()
    if m := _IN_YEAR.search(sentence):
        return dt.datetime(int(m[1]), 7, 1, tzinfo=dt.UTC).timestamp()
    return None


def _relative(sentence: str) -> bool:
    """The sentence dates itself relative to when it was said ("yesterday", "last week")."""
    return any(p.search(sentence) for p in (_RELDAY, _WEEKDAY, _AGO, _LAST))


def _past(sentence: str) -> bool:
    return bool(re.search(r"\b(was|were|had|did|went|got|met|saw|\w+ed)\b", sentence, re.I))


# ----------------------------------------------------------------------------- slots
_SLOTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("home", re.compile(r"\b(?:i|we) (?:now |currently |still )?(?:live|am living|'m living"
                        r"|reside|moved|relocated|am based|'m based|'m moving|am moving"
                        r"|have moved|'ve moved)\b(?: back)? (?:in|to|at|out to)\b", re.I)),
    ("employer", re.compile(r"\b(?:i|we) (?:now |currently |still )?(?:work|am working"
                            r"|'m working|started working)(?: \w+)? (?:at|for)\b|\b(?:i|we)"
                            r" (?:just |have |'ve )?joined\b|\bi(?:'m| am) employed (?:at|by)\b",
                            re.I)),
    ("job", re.compile(r"\bi (?:now |currently )?work(?: \w+)? as\b|\bmy (?:job|role|title"
                       r"|position) is\b", re.I)),
    ("name", re.compile(r"\bmy name is\b|\bcall me\b|\bi go by\b", re.I)),
    ("age", re.compile(r"\bi(?:'m| am) (\d{1,3}) (?:years? old|yo)\b|\bi turned \d{1,3}\b",
                       re.I)),
)  # fmt: skip
_MY_SLOT = re.compile(
    r"\bmy ((?:[a-z]+ ){0,2}?(?:email|phone(?: number)?|address|birthday|number|username"
    r"|handle|timezone|time zone|website|partner|wife|husband|boss|manager|dog|cat"
    r"|team|editor|ide|laptop|car|budget|deadline|goal|salary))(?:'s name)? (?:is|are)\b",
    re.IGNORECASE,
)


def slot_of(sentence: str) -> str | None:
    """The single-valued attribute a sentence sets, if any (``home``, ``favourite:tea``)."""
    for name, pattern in _SLOTS:
        if pattern.search(sentence):
            return name
    if m := _FAVOURITE.search(sentence):
        return "favourite:" + _norm(m[1])
    if m := _MY_SLOT.search(sentence):
        return "my:" + _norm(m[1])
    return None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


_PREF_OBJECT = re.compile(
    r"^(?:to |using |eating |drinking |playing |watching |working with )?"
    r"(?:the |a |an |my |some )?([a-z0-9][a-z0-9 +#.-]{0,40}?)"
    r"(?:\s+(?:anymore|any more|now|these days|so much|a lot|very much|at all|too|either"
    r"|as well|over .*|more than .*|to .*|than .*|because .*|since .*|when .*|but .*|and .*))?"
    r"[\s.!,;]*$",
    re.IGNORECASE,
)


def preference_slot(sentence: str, match: re.Match[str]) -> str | None:
    """``pref:<object>`` for a short "I like/hate X" sentence, so "I don't like X anymore"
    replaces "I love X"."""
    m = _PREF_OBJECT.match(sentence[match.end() :].strip())
    if not m:
        return None
    obj = _norm(m[1])
    return f"pref:{obj}" if obj and len(obj.split("-")) <= 4 else None


# ----------------------------------------------------------------------------- rewriting
_IRREGULAR = {"am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "go": "goes",
              "was": "was", "'d": "would", "'ll": "will", "can": "can", "will": "will",
              "would": "would", "should": "should", "must": "must", "might": "might",
              "could": "could", "had": "had", "did": "did", "don't": "doesn't",
              "do not": "does not", "can't": "can't", "won't": "won't", "didn't": "didn't",
              "haven't": "hasn't", "wasn't": "wasn't", "'m not": "is not",
              "am not": "is not"}  # fmt: skip


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _PAST:
        return verb
    if (low.endswith("ed") and not low.endswith("eed")) or not low.isalpha():
        return verb
    if re.search(r"(s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


_LEAD = re.compile(r"^(?:also,? |and |but |so |actually,? |oh,? |well,? |anyway,? |btw,? "
                   r"|honestly,? |frankly,? |basically,? |yeah,? |yes,? |no,? |ok,? |okay,? "
                   r"|hmm+,? |by the way,? )+", re.IGNORECASE)  # fmt: skip
_ADVERBS = (
    r"(?:really|also|absolutely|totally|just|still|now|usually|always|never|often"
    r"|actually|definitely|generally|finally|recently|already|mostly|only|even"
    r"|sometimes|rarely|honestly|literally|basically|currently|officially)"
)
_I_VERB = re.compile(
    rf"^i(?:\s+(am not|do not|'m not)|('m|'ve|'d|'ll|m\b)|((?:\s+{_ADVERBS})*)\s+(\w+(?:'t)?))",
    re.IGNORECASE,
)
#: past tenses that do not end in -ed: they stay as they are
_PAST = frozenset(
    "went got met saw had did was were made took came bought found left lost paid sold sent"
    " spent told thought felt began became ate drank ran wrote broke chose drove flew forgot"
    " gave grew knew led won wore sang slept spoke stood swam taught threw understood woke"
    " built caught fell fought heard held hurt kept lent meant quit rode rang rose said sat"
    " shot shut stole stuck swore tore bit fed fled froze hid hung brought dealt dug sold"
    " put set cut let read hit".split()
)
_PRONOUNS = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "{their}"),
    (re.compile(r"\bmine\b", re.I), "{their_own}"),
    (re.compile(r"\bme\b", re.I), "{them}"),
    (re.compile(r"(?<![\w'])i(?:'m|m)\b", re.I), "{who} is"),
    (re.compile(r"(?<![\w'])i've\b", re.I), "{who} has"),
    (re.compile(r"(?<![\w'])i'd\b", re.I), "{who} would"),
    (re.compile(r"(?<![\w'])i'll\b", re.I), "{who} will"),
    (re.compile(r"(?<![\w'])i\b"), "{who}"),
)


def rewrite(sentence: str, who: str = "User") -> str:
    """A first-person sentence as a statement about *who* ("I moved to Berlin" →
    "User moved to Berlin"); other sentences keep their words."""
    text = _LEAD.sub("", sentence.strip()).strip()
    text = re.sub(r"^(im|ive)\b", lambda m: {"im": "I'm", "ive": "I've"}[m[1].lower()], text,
                  flags=re.I)  # fmt: skip
    if m := _I_VERB.match(text):
        if m.group(4):  # "I really hate" → "User really hates"
            adverbs = (m.group(3) or "").strip()
            verb = _third_person(m.group(4))
            text = f"{who} {adverbs + ' ' if adverbs else ''}{verb}{text[m.end() :]}"
        else:
            verb = m.group(1) or m.group(2)
            text = f"{who} {_third_person(verb)}{text[m.end() :]}"
    elif re.match(r"^my\b", text, re.I):
        text = f"{who}'s" + text[2:]
    possessive = f"{who}'s" if who != "User" else "the user's"
    for pattern, repl in _PRONOUNS:
        text = pattern.sub(
            repl.format(who=who if who != "User" else "the user", their=possessive,
                        their_own=possessive, them=who if who != "User" else "the user"),
            text,
        )  # fmt: skip
    text = re.sub(r"[\s,]*\b(?:btw|lol|haha+|tbh|fyi|though|anyway)\b[\s!.?]*$", "", text,
                  flags=re.I)  # fmt: skip
    text = re.sub(r"[\s!.,;:-]+$", "", text)
    if text:
        text += "."
    return text[0].upper() + text[1:] if text else text


# ----------------------------------------------------------------------------- clauses
_CLAUSE = re.compile(r"(?:,\s*|\s+)(?:and|but|so)\s+(?=(?:i|i'm|i've|my|we|we're|our)\b)"
                     r"|;\s+", re.IGNORECASE)  # fmt: skip


def clauses(sentence: str) -> list[str]:
    """A sentence cut where a new first-person statement starts ("… and I work at …")."""
    return [c.strip() for c in _CLAUSE.split(sentence) if c and c.strip()]


@dataclass
class _Found:
    kind: str
    polarity: int = 0
    slot: str | None = None
    importance: float = 0.6


def classify(sentence: str, *, told: bool = False) -> _Found | None:
    """What a user sentence is worth keeping as, or None (``told``: after "remember that")."""
    text = sentence.strip()
    if is_filler(text) or (not told and (is_question(text) or _REQUEST.match(text))):
        return None
    if not told and (_HEDGE.match(_LEAD.sub("", text)) or _TRANSIENT.search(text)):
        return None
    if m := _PREFER_NEG.search(text):
        return _Found("preference", -1, preference_slot(text, m), 0.6)
    if _DECISION.search(text):
        return _Found("decision", 0, None, 0.7)
    if m := _PREFER_POS.search(text):
        return _Found("preference", 1, slot_of(text) or preference_slot(text, m), 0.6)
    if _FAVOURITE.search(text) or _DIET.search(text):
        return _Found("preference", 1, slot_of(text), 0.6)
    first_person = bool(_FIRST_PERSON.match(text))
    if first_person and event_time(text, 0.0) is not None and _past(text):
        return _Found("event", 0, None, 0.5)
    if first_person or told:
        return _Found("fact", 0, slot_of(text), 0.8 if told else 0.6)
    return None


class RulesExtractor:
    """The no-LLM default: see the module docstring. Never decides reconciliation."""

    spec = "rules"

    def __init__(self, *, assistant: bool = False, min_words: int = 3) -> None:
        self.assistant = assistant  # also read assistant messages (off: they restate)
        self.min_words = min_words

    def extract(self, messages: Sequence[ChatMessage], *, summary: str = "") -> ExtractResult:
        out: list[Candidate] = []
        seen: set[str] = set()
        for message in messages:
            if message.role != "user" and not (self.assistant and message.role == "assistant"):
                continue
            who = message.name.strip() if message.name and message.name.strip() else "User"
            for candidate in self._from_message(message, who):
                key = candidate.text.lower()
                if key not in seen:
                    seen.add(key)
                    out.append(candidate)
        return ExtractResult(candidates=out, usage=Usage(provider="rules", model="rules"))

    def _from_message(self, message: ChatMessage, who: str) -> list[Candidate]:
        now = message.ts if message.ts else time.time()
        out = []
        for sentence in sentences(message.content):
            told = False
            if m := _REMEMBER.match(sentence):
                rest = sentence[m.end() :].strip()
                if len(_WORD.findall(rest)) >= self.min_words:
                    sentence, told = rest, True
            for clause in clauses(sentence):
                if len(_WORD.findall(clause)) < self.min_words:
                    continue
                found = classify(clause, told=told)
                if found is None:
                    continue
                when = event_time(clause, now)
                kind = found.kind
                slot = found.slot or slot_of(clause)
                tags = [kind] + ([f"slot:{slot}"] if slot else [])
                text = rewrite(clause, who)
                if kind == "event" and when is not None and _relative(clause):
                    day = dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m-%d")
                    text = f"{text[:-1]} (on {day})." if text.endswith(".") else text
                out.append(
                    Candidate(
                        text=text,
                        kind=kind,
                        type="episodic" if kind == "event" else "semantic",
                        importance=found.importance,
                        tags=tuple(tags),
                        message_ids=(message.id,),
                        event_ts=when if kind == "event" else None,
                        polarity=found.polarity,
                    )
                )
        return out

    def decide(
        self, candidate: Candidate, neighbours: Sequence[Neighbour]
    ) -> tuple[Decision | None, Usage]:
        """Never: the similarity and polarity rules decide."""
        return None, Usage(provider="rules", model="rules")


def make_rules_extractor(**options: object) -> RulesExtractor:
    """The registry's factory for ``rules`` (options: ``assistant``, ``min_words``)."""
    assistant = bool(options.pop("assistant", False))
    min_words = options.pop("min_words", 3)
    if options:
        from ..domain.model import ValidationError

        raise ValidationError(f"unknown option(s) for the rules extractor: {sorted(options)}")
    if isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 1:
        from ..domain.model import ValidationError

        raise ValidationError("min_words must be an integer >= 1")
    return RulesExtractor(assistant=assistant, min_words=min_words)
