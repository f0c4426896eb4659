"""LoCoMo retrieval benchmark (Maharana et al., ACL 2024), scored without an LLM judge.

Every dialog turn becomes one memory (one collection per conversation) whose
text carries the session date and the speaker, ``[8 May 2023] Caroline: …``;
the date is also the memory's tag, the turn id its ``source``. Image captions
(the dataset's BLIP descriptions of shared photos) are left out unless asked for
(``captions=True``, ``[shares a photo of …]`` as LoCoMo's own retrieval baseline
writes them): with today's stages they lift multi-hop recall@5 by at most half a
point and cost open-domain three to four (ADR 0064). Each question of
categories 1–4 is recalled, and we score whether its evidence turns come back:
recall@5 and recall@10 over evidence turns, and MRR of the first evidence turn.
Alongside, the definitions peers publish: any-hit R@5/R@10 (one evidence turn in
the top k) and session-level R@5/R@10 (the share of the evidence sessions among the
first k distinct sessions the ranked turns come from). ``categories=ALL_CATEGORIES``
(what ``houkai bench suite`` asks) adds category 5 (adversarial) and keeps the four
questions that list no evidence turn, scored as misses: all 1,986 questions.

Each session is written as one sequence (``remember_many(sequence=True)``:
every turn ``follows`` the one before) and its turns are dated with the
session's time (as an import of old history would date them), so recall's
``context`` and ``query`` stages see what an agent's own conversation log
carries. Questions are asked ``as_of`` a day after the last session.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import statistics
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from ..domain.model import StateConflict, ValidationError
from .modes import LOCOMO_DEFAULT

log = logging.getLogger(__name__)

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: What ``houkai bench locomo`` scores (the figures of ADR 0043 onwards); the suite asks all.
SCORED_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)
ALL_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4, 5)
INGEST_FIELD = "bench_locomo_ingest"  # meta field: fingerprint of the texts a collection holds
#: Bump when :func:`ingest_conversation` writes anything else differently (tags, sources, links,
#: dates): the fingerprint covers the texts, and this stands for the rest.
INGEST_FORMAT = 1
PUBLISHED_ANCHOR = {"recall@5": 0.497, "mrr": 0.414}  # mcp-memory-service, same model


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    when: float
    caption: str = ""  # BLIP description of a photo shared with the turn


@dataclass
class Question:
    text: str
    evidence: list[str]
    category: int


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]


@dataclass
class ModeScore:
    mode: str
    questions: int = 0
    recall_at_5: float = 0.0
    recall_at_10: float = 0.0
    mrr: float = 0.0
    by_category: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: float = 0.0
    peers: dict[str, float] = field(default_factory=dict)  # any-hit and session-level
    p50_ms: float = 0.0
    scored: dict[str, float] = field(default_factory=dict)  # categories 1-4 when 5 is asked

    def to_dict(self) -> dict[str, Any]:
        out = {
            "mode": self.mode,
            "questions": self.questions,
            "recall@5": round(self.recall_at_5, 4),
            "recall@10": round(self.recall_at_10, 4),
            "mrr": round(self.mrr, 4),
            **{name: round(value, 4) for name, value in self.peers.items()},
            "by_category": self.by_category,
            "seconds": round(self.seconds, 1),
            "p50_ms": round(self.p50_ms, 2),
        }
        if self.scored:
            out["categories_1_4"] = self.scored
        return out


def _parse_date(text: str) -> float:
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return time.time()


def _evidence(raw: Any) -> list[str]:
    ids: list[str] = []
    for item in raw if isinstance(raw, list) else [raw]:
        ids += re.findall(r"D\d+:\d+", str(item))
    return ids


def _conversation(
    sample_id: str, data: dict[str, Any], categories: tuple[int, ...] = SCORED_CATEGORIES
) -> Conversation:
    conv = data.get("conversation", data)
    turns: list[Turn] = []
    n = 1
    while f"session_{n}_date_time" in conv or f"session_{n}" in conv:
        when = _parse_date(str(conv.get(f"session_{n}_date_time", "")))
        for turn in conv.get(f"session_{n}") or []:
            text = str(turn.get("text", "")).strip()
            if text:
                turns.append(
                    Turn(
                        dia_id=str(turn["dia_id"]),
                        speaker=str(turn["speaker"]),
                        text=text,
                        when=when,
                        caption=str(turn.get("blip_caption") or "").strip(),
                    )
                )
        n += 1
    questions = [
        Question(
            text=str(qa["question"]),
            evidence=_evidence(qa.get("evidence")),
            category=int(qa.get("category", 0)),
        )
        for qa in data.get("qa", [])
        if int(qa.get("category", 0)) in categories
        and (_evidence(qa.get("evidence")) or categories == ALL_CATEGORIES)
    ]
    return Conversation(sample_id=sample_id, turns=turns, questions=questions)


def load(
    path: str | Path, categories: tuple[int, ...] = SCORED_CATEGORIES
) -> Iterator[Conversation]:
    """Conversations from the released ``locomo10.zip``, a folder of JSON files, or one JSON
    (with the questions of *categories*)."""
    path = Path(path)
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.endswith(".json"))
            for name in names:
                data = json.loads(archive.read(name))
                yield from _from_json(Path(name).stem, data, categories)
        return
    files = sorted(path.glob("**/*.json")) if path.is_dir() else [path]
    for file in files:
        yield from _from_json(file.stem, json.loads(file.read_text()), categories)


def _from_json(
    stem: str, data: Any, categories: tuple[int, ...] = SCORED_CATEGORIES
) -> Iterator[Conversation]:
    if isinstance(data, list):  # locomo10.json: a list of samples
        for i, sample in enumerate(data):
            yield _conversation(str(sample.get("sample_id", f"{stem}-{i}")), sample, categories)
    else:
        yield _conversation(stem, data, categories)


def memory_text(turn: Turn, captions: bool = False) -> str:
    """``[8 May 2023] Caroline: text``: when it was said, who said it, what was said.

    With *captions*, a shared photo's description follows as LoCoMo's own retrieval
    baseline writes it (``[shares a photo of …]``).
    """
    text = f"[{datetime.fromtimestamp(turn.when, UTC):%-d %B %Y}] {turn.speaker}: {turn.text}"
    if captions and turn.caption:
        text += f" [shares {turn.caption}]"
    return text


def _fingerprint(conv: Conversation, captions: bool) -> str:
    """What a kept collection must have been written from to be reused."""
    digest = hashlib.sha256(f"format {INGEST_FORMAT}\n".encode())
    for t in conv.turns:
        digest.update(f"{t.dia_id}\t{memory_text(t, captions)}\n".encode())
    return digest.hexdigest()[:16]


def ingested(store: Any, conv: Conversation, captions: bool) -> bool:
    return (
        store.count() == len(conv.turns)
        and store.client.hget(store.keys.meta, INGEST_FIELD)
        == _fingerprint(conv, captions).encode()
    )


PEER_METRICS: tuple[str, ...] = ("any@5", "any@10", "session@5", "session@10")


def score_ranks(ranked_sources: list[str], evidence: list[str]) -> tuple[float, ...]:
    """recall@5, recall@10, MRR, then :data:`PEER_METRICS`: any evidence turn in the top
    5/10, and the share of evidence sessions (``D3`` of ``D3:12``) among the first 5/10
    distinct sessions of the ranking. No evidence: all zero (a miss)."""
    wanted = set(evidence)
    if not wanted:
        return (0.0,) * 7
    r5 = len(wanted & set(ranked_sources[:5])) / len(wanted)
    r10 = len(wanted & set(ranked_sources[:10])) / len(wanted)
    rr = next((1.0 / i for i, s in enumerate(ranked_sources, start=1) if s in wanted), 0.0)
    sessions = list(dict.fromkeys(s.split(":")[0] for s in ranked_sources if s))
    needed = {e.split(":")[0] for e in wanted}
    any5 = 1.0 if wanted & set(ranked_sources[:5]) else 0.0
    any10 = 1.0 if wanted & set(ranked_sources[:10]) else 0.0
    s5 = len(needed & set(sessions[:5])) / len(needed)
    s10 = len(needed & set(sessions[:10])) / len(needed)
    return r5, r10, rr, any5, any10, s5, s10


# Each recall stage added in turn to today's plain blend, then the shipped defaults.
MODES: dict[str, dict[str, Any]] = {
    "semantic": {"mode": "semantic"},
    "plain": {"mode": "hybrid", "stages": ()},
    "+query": {"mode": "hybrid", "stages": ("query",)},
    "+context": {"mode": "hybrid", "stages": ("query", "context")},
    "+prf": {"mode": "hybrid", "stages": ("query", "context", "prf")},
    "+specific": {"mode": "hybrid", "stages": ("query", "context", "prf", "specific")},
    "hybrid": {"mode": "hybrid"},
    "hybrid+rrf": {"mode": "hybrid", "fusion": "rrf"},
}
DEFAULT_MODES = LOCOMO_DEFAULT


def select(conversations: list[Conversation], spec: str | None) -> list[Conversation]:
    """``"0-4"``, ``"5-9"`` or ``"0,2,7"``: conversations by position (None: all)."""
    if not spec:
        return conversations
    chosen: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi or lo)
        except ValueError:
            raise ValueError(f"conversations must look like 0-4 or 0,2,7 — got {spec!r}") from None
        chosen += range(first, last + 1)
    if any(i < 0 or i >= len(conversations) for i in chosen):
        raise ValueError(f"conversations {spec!r} out of range 0-{len(conversations) - 1}")
    return [conversations[i] for i in dict.fromkeys(chosen)]


def backdate(store, stamps: dict[str, float]) -> None:
    """Give memories their historical ``created_at`` (what an import of old logs keeps)."""
    store.set_raw_fields(
        {
            memory_id: {"created_at": repr(float(ts)), "last_accessed": repr(float(ts))}
            for memory_id, ts in stamps.items()
        }
    )


def ingest_conversation(store, conv: Conversation, captions: bool = False) -> None:
    """One ``remember_many(sequence=True)`` per session, dated with the session time."""
    sessions: dict[str, list[Turn]] = {}
    for t in conv.turns:
        sessions.setdefault(t.dia_id.split(":")[0], []).append(t)
    for turns in sessions.values():
        items = [
            {
                "text": memory_text(t, captions),
                "type": "episodic",
                "source": t.dia_id,
                "tags": [t.speaker, datetime.fromtimestamp(t.when, UTC).date().isoformat()],
            }
            for t in turns
        ]
        written = store.remember_many(items, batch_size=256, sequence=True)
        backdate(store, {m.id: t.when for m, t in zip(written, turns, strict=True)})
    store.client.hset(store.keys.meta, INGEST_FIELD, _fingerprint(conv, captions))
    _collect_garbage(store)


def _collect_garbage(store: Any) -> None:
    """Let RediSearch drop the index entries the backdating replaced, now.

    Until its garbage collector runs, the index's own BM25 statistics still count
    them, and those decide which documents the keyword candidate query's ``LIMIT``
    keeps: the same collections scored 0.4–0.9 points apart on multi-hop right
    after the ingest and 20–30 minutes later (ADR 0064). Best effort (``FT.DEBUG``
    may be disabled).
    """
    try:
        store.client.execute_command("FT.DEBUG", "GC_FORCEINVOKE", store.keys.index)
    except redis.RedisError as exc:  # disabled, or slow on a large index: score anyway
        log.info("FT.DEBUG GC_FORCEINVOKE unavailable (%s): scoring before the GC ran", exc)


def bring_stats_up_to_date(store: Any) -> None:
    """A kept collection ingested before ADR 0056 gets its stems (else BM25 scores plain),
    and one ingested before ADR 0102 or 0109 its words counted the current way (the
    ``casing`` stage reads the name marks)."""
    from ..store import lexmigrate

    keys = store.keys
    if not lexmigrate.stemmed_stats(store.client, keys.lexstats):
        lexmigrate.upgrade(store.client, keys.memory_prefix, keys.lexstats)
    lexmigrate.recount_words(store.client, keys.memory_prefix, keys.lexstats)  # once: a flag


def _open(collection: str, settings: Any, embedder: Any) -> Any:
    """The conversation's store; a collection left with another vector type is re-created."""
    from ..db.schema import validate_vector_type
    from .scratch import bench_store

    def make() -> Any:
        return bench_store(collection, settings, embedder)

    store = make()
    if settings is not None and store.vector_type != validate_vector_type(settings.vector_type):
        store.drop()
        store = make()
    return store


def check_untouched(store: Any, written: int, what: str) -> None:
    """Refuse figures scored while memories vanished: a benchmark's memories are backdated
    (and so is their last access), so a running ``houkai up``'s decay job prunes them."""
    left = store.count()
    if left != written:
        raise StateConflict(
            f"{what}: {written - left} of its {written} memories were removed while it was "
            "scored (is `houkai up` running against this Redis? its decay job prunes "
            "backdated memories); stop the workers and run the benchmark again"
        )


def run(
    path: str | Path,
    *,
    modes: list[str] | None = None,
    limit: int | None = None,
    settings=None,
    keep: bool = False,
    k: int = 10,
    recall_options: dict | None = None,
    conversations: str | None = None,
    reuse: bool = False,
    captions: bool = False,
    categories: tuple[int, ...] = SCORED_CATEGORIES,
    modes_options: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Store every conversation, ask every question in each mode, return the scores.

    ``conversations`` picks a split (``"0-4"``); ``reuse`` keeps the collections
    and skips the ingest when a kept one already holds every turn as this run
    writes it (same texts, captions or not), so tuning a ranking stage does not
    re-encode 5,882 turns. ``captions`` appends each shared photo's BLIP caption.
    *categories*: the question categories asked (``ALL_CATEGORIES``: all 1,986).
    *modes_options*: recall options by mode name instead of :data:`MODES` (the suite's).
    """
    from ..domain.config import get_settings
    from ..engines.embeddings import backend_label, get_embedder

    table = modes_options or MODES
    modes = modes or list(table)
    for mode in modes:
        if mode not in table:
            raise ValidationError(f"unknown mode {mode!r}; choose from {', '.join(table)}")
    totals = {m: ModeScore(mode=m) for m in modes}
    per_cat: dict[str, dict[int, list[tuple[float, ...]]]] = {m: {} for m in modes}
    latencies: dict[str, list[float]] = {m: [] for m in modes}
    chosen = select(list(load(path, categories))[:limit], conversations)
    ingest_seconds = 0.0
    n_turns = 0
    # The backend and vector type under test come from *settings* (not the process-wide ones).
    embedder = get_embedder(settings.embedder) if settings is not None else get_embedder()
    for conv in chosen:
        store = _open(f"bench-locomo-{conv.sample_id}", settings, embedder)
        started = time.perf_counter()
        if not (reuse and ingested(store, conv, captions)):
            store.nuke()
            ingest_conversation(store, conv, captions)
        bring_stats_up_to_date(store)
        ingest_seconds += time.perf_counter() - started
        n_turns += len(conv.turns)
        as_of = max((t.when for t in conv.turns), default=time.time()) + 86_400
        for q in conv.questions:  # encoded once up front: the first mode's p50 pays nothing
            store.query_vector(q.text)
        for mode in modes:
            opts = {**table[mode], "as_of": as_of, **(recall_options or {})}
            started = time.perf_counter()
            for q in conv.questions:
                asked = time.perf_counter()
                hits = store.recall(q.text, k=k, touch=False, **opts)
                latencies[mode].append(time.perf_counter() - asked)
                scores = score_ranks([m.source or "" for m, _ in hits], q.evidence)
                per_cat[mode].setdefault(q.category, []).append(scores)
            totals[mode].seconds += time.perf_counter() - started
        check_untouched(store, len(conv.turns), f"conversation {conv.sample_id}")
        if not (keep or reuse):
            store.drop()
    for mode, score in totals.items():
        rows = [s for cat in per_cat[mode].values() for s in cat]
        score.questions = len(rows)
        if rows:
            score.recall_at_5 = sum(r[0] for r in rows) / len(rows)
            score.recall_at_10 = sum(r[1] for r in rows) / len(rows)
            score.mrr = sum(r[2] for r in rows) / len(rows)
            score.peers = {
                name: sum(r[3 + i] for r in rows) / len(rows) for i, name in enumerate(PEER_METRICS)
            }
            score.p50_ms = statistics.median(latencies[mode]) * 1000
        if 5 in per_cat[mode]:
            first = [s for cat, r in per_cat[mode].items() if cat != 5 for s in r]
            score.scored = _means(first)
        for cat, cat_rows in sorted(per_cat[mode].items()):
            score.by_category[CATEGORIES[cat]] = {
                "n": len(cat_rows),
                "recall@5": round(sum(r[0] for r in cat_rows) / len(cat_rows), 4),
                "mrr": round(sum(r[2] for r in cat_rows) / len(cat_rows), 4),
                "any@5": round(sum(r[3] for r in cat_rows) / len(cat_rows), 4),
            }
    return {
        "benchmark": "locomo",
        "embedder": backend_label(embedder),
        "vector_type": (settings or get_settings()).vector_type,
        "conversations": len(chosen),
        "split": conversations or "all",
        "turns": n_turns,
        "captions": captions,
        "ingest_seconds": round(ingest_seconds, 1),
        "anchor": PUBLISHED_ANCHOR,
        "modes": [totals[m].to_dict() for m in modes],
    }


def _means(rows: list[tuple[float, ...]]) -> dict[str, float]:
    """The scores of *rows* averaged, under their names (``n`` first)."""
    names = ("recall@5", "recall@10", "mrr", *PEER_METRICS)
    if not rows:
        return {"n": 0}
    return {"n": len(rows)} | {
        name: round(sum(r[i] for r in rows) / len(rows), 4) for i, name in enumerate(names)
    }


def plot(result: dict[str, Any], path: str | Path, heldout: dict[str, Any] | None = None) -> None:
    """R@5 per mode (each stage added in turn) overall and per category; MRR as a line.

    With *heldout* (``bench heldout --format json`` output) a second panel shows
    its R@5 per query kind for the same modes.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 2 if heldout else 1
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels, 4.2), squeeze=False)
    ax = axes[0][0]
    modes = [m["mode"] for m in result["modes"]]
    series = {"all": [m["recall@5"] for m in result["modes"]]}
    for cat in (CATEGORIES[c] for c in SCORED_CATEGORIES):
        series[cat] = [m["by_category"].get(cat, {}).get("recall@5", 0.0) for m in result["modes"]]
    width = 0.8 / len(series)
    for i, (name, values) in enumerate(series.items()):
        ax.bar([x + i * width for x in range(len(modes))], values, width, label=f"R@5 {name}")
    ax.plot(
        [x + 0.4 - width / 2 for x in range(len(modes))],
        [m["mrr"] for m in result["modes"]],
        "k.-",
        label="MRR",
    )
    ax.axhline(PUBLISHED_ANCHOR["recall@5"], color="grey", linestyle="--", label="published R@5")
    ax.axhline(0.62, color="red", linestyle=":", label="target R@5 0.62")
    ax.axhline(0.35, color="orange", linestyle=":", label="target per category 0.35")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(modes))], modes, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_title(f"LoCoMo ({result['conversations']} conversations), k=10")
    ax.legend(loc="upper left", fontsize=7, ncol=2)
    if heldout:
        ax2 = axes[0][1]
        hmodes = [m["mode"] for m in heldout["modes"]]
        kinds = list(heldout["modes"][0]["by_kind"])
        width = 0.8 / len(kinds)
        for i, kind in enumerate(kinds):
            ax2.bar(
                [x + i * width for x in range(len(hmodes))],
                [m["by_kind"][kind]["recall@5"] for m in heldout["modes"]],
                width,
                label=kind,
            )
        ax2.set_xticks([x + 0.4 - width / 2 for x in range(len(hmodes))], hmodes, fontsize=8)
        ax2.set_ylim(0, 1.05)
        ax2.set_title(f"Held-out set ({heldout['queries']} queries): R@5 per kind")
        ax2.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
