"""Token-budgeted context packing: ``recall_pack`` and ``auto_context_pack``
(README "Context packing").

Agents consume memory as "fill ~N tokens of context", not "give me k rows".
Both rank with :class:`~houkai.recall.engine.Recall` (no query logic is duplicated
here: ``recall_pack`` takes a :class:`~houkai.recall.request.RecallRequest`) and
share one greedy packer: candidates are rendered as ``- (type) text`` and
admitted in rank order while the running token count stays within the budget;
one that does not fit is skipped and the walk continues, so a smaller,
lower-ranked memory can still use the room. With ``compress=True`` the skipped
candidates are clustered by token-Jaccard similarity and each big-enough
cluster is folded into one ``- (compressed) …`` line when that fits.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..domain.model import (
    MAX_RECALL_K,
    CompressedGroup,
    Memory,
    PackedMemory,
    PackResult,
    ValidationError,
)
from ..domain.text import STOP_WORDS, estimate_tokens, jaccard, tokenize
from .request import RecallRequest

if TYPE_CHECKING:
    from .engine import Recall

DEFAULT_HEADER = "## Relevant memory"
FANOUT_K = 10
COMPRESS_SNIPPETS = 3

TokenCounter = Callable[[str], int]


# --------------------------------------------------------------------- key phrases
def extract_key_phrases(task: str, max_phrases: int = 3) -> list[str]:
    """Up to *max_phrases* keyword angles of *task*, without any NLP library.

    Stop words and words of two characters or fewer are dropped; adjacent
    survivors form bigrams, which are more specific and so come first, then
    the single words. Order is first occurrence; duplicates are removed.
    ``max_phrases=0`` gives ``[]``; a negative value is a ``ValueError``.
    """
    if not isinstance(task, str):
        raise ValidationError(f"task must be a string — got {task.__class__.__name__}")
    if isinstance(max_phrases, bool) or not isinstance(max_phrases, int) or max_phrases < 0:
        raise ValidationError(f"max_phrases must be an integer >= 0 — got {max_phrases!r}")
    words = [w for w in tokenize(task) if w not in STOP_WORDS and len(w) > 2]
    candidates = [f"{a} {b}" for a, b in itertools.pairwise(words)] + words
    phrases: list[str] = []
    for phrase in candidates:
        if len(phrases) >= max_phrases:
            break
        if phrase not in phrases:
            phrases.append(phrase)
    return phrases


def fanout_queries(task: str, max_phrases: int = 3) -> list[str]:
    """The queries ``auto_context_pack`` searches: the task, then its new key phrases.

    A phrase equal to the task (case-insensitive, whitespace collapsed) is not
    searched twice; the task itself is always kept, first, in the caller's
    spelling.
    """
    phrases = extract_key_phrases(task, max_phrases)

    def norm(q: str) -> str:
        return " ".join(q.split()).casefold()

    queries = [task]
    seen = {norm(task)}
    for phrase in phrases:
        if norm(phrase) not in seen:
            seen.add(norm(phrase))
            queries.append(phrase)
    return queries


# --------------------------------------------------------------------- packer
def pack_line(memory: Memory) -> str:
    """How one memory is rendered in a pack: one list item, its further lines indented
    under it (a runbook chunk stays one item of the list)."""
    return f"- ({memory.type}) " + "\n  ".join(memory.text.splitlines() or [""])


def cluster_by_jaccard(
    memories: Sequence[Memory], threshold: float, min_size: int
) -> list[list[Memory]]:
    """Greedy clusters: each unclaimed memory gathers later ones with Jaccard ≥ threshold.

    Only clusters of at least *min_size* members are returned; order follows
    the input (rank) order.
    """
    claimed = [False] * len(memories)
    clusters: list[list[Memory]] = []
    for i, anchor in enumerate(memories):
        if claimed[i]:
            continue
        claimed[i] = True
        group = [anchor]
        for j in range(i + 1, len(memories)):
            if not claimed[j] and jaccard(anchor.text, memories[j].text) >= threshold:
                claimed[j] = True
                group.append(memories[j])
        if len(group) >= min_size:
            clusters.append(group)
    return clusters


def compress_group(memories: Sequence[Memory]) -> str:
    """One summary line body: the first sentence of the most important members."""
    ordered = sorted(memories, key=lambda m: (-m.importance, m.id))
    snippets = []
    for memory in ordered[:COMPRESS_SNIPPETS]:
        snippet = memory.text.split(".")[0].strip()
        if snippet:
            snippets.append(snippet)
    return f"[×{len(memories)} similar] " + " | ".join(snippets)


def _count(counter: TokenCounter, text: str) -> int:
    value = counter(text)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(f"token_counter must return an integer >= 0 — got {value!r}")
    return value


def pack_ranked(
    ranked: Sequence[tuple[Memory, float]],
    *,
    token_budget: int,
    token_counter: TokenCounter = estimate_tokens,
    header: str = DEFAULT_HEADER,
    compress: bool = False,
    compress_threshold: float = 0.30,
    compress_min_group: int = 2,
    queries: list[str] | None = None,
) -> PackResult:
    """Greedy skip-and-continue packing of ranked ``(memory, score)`` pairs.

    The budget covers the memory lines only (the header is free), so it is a
    soft ceiling with the default ~4 chars/token estimate and exact with an
    exact ``token_counter``. ``truncated`` is True when any ranked candidate
    was left out of the individual items (even if compression then covered it).
    A memory whose text repeats one already packed (whitespace aside) is left out: it
    would spend the budget and tell the prompt nothing new.
    """
    items: list[PackedMemory] = []
    skipped: list[Memory] = []
    packed: set[str] = set()
    used = 0
    for memory, score in ranked:
        said = " ".join(memory.text.split())
        if said in packed:
            continue
        cost = _count(token_counter, pack_line(memory))
        if used + cost > token_budget:
            skipped.append(memory)
            continue
        items.append(PackedMemory(memory=memory, score=float(score), tokens=cost))
        packed.add(said)
        used += cost
    groups: list[CompressedGroup] = []
    if compress and skipped:
        for members in cluster_by_jaccard(skipped, compress_threshold, compress_min_group):
            line = f"- (compressed) {compress_group(members)}"
            cost = _count(token_counter, line)
            if used + cost <= token_budget:
                groups.append(CompressedGroup(memories=members, text=line, tokens=cost))
                used += cost
    lines = [pack_line(p.memory) for p in items] + [g.text for g in groups]
    body = "\n".join(lines)
    text = (f"{header}\n{body}" if header else body) if lines else ""
    return PackResult(
        items=items,
        text=text,
        used_tokens=used,
        budget=token_budget,
        truncated=bool(skipped),
        compressed_groups=groups,
        queries=list(queries or []),
    )


def _validate_pack_args(
    token_budget: object,
    token_counter: object,
    header: object,
    compress_threshold: object,
    compress_min_group: object,
) -> None:
    if isinstance(token_budget, bool) or not isinstance(token_budget, int) or token_budget < 0:
        raise ValidationError(f"token_budget must be an integer >= 0 — got {token_budget!r}")
    if token_counter is not None and not callable(token_counter):
        raise ValidationError("token_counter must be a callable (text) -> int")
    if not isinstance(header, str):
        raise ValidationError(f"header must be a string — got {header!r}")
    if (
        isinstance(compress_threshold, bool)
        or not isinstance(compress_threshold, int | float)
        or not 0.0 <= compress_threshold <= 1.0
    ):
        raise ValidationError(f"compress_threshold must be in [0, 1] — got {compress_threshold!r}")
    if (
        isinstance(compress_min_group, bool)
        or not isinstance(compress_min_group, int)
        or compress_min_group < 1
    ):
        raise ValidationError(
            f"compress_min_group must be an integer >= 1 — got {compress_min_group!r}"
        )


def validate_pack(
    token_budget: object,
    token_counter: object,
    header: object,
    compress_threshold: object,
    compress_min_group: object,
    max_items: object = 1,
) -> None:
    """The packing arguments of ``recall_pack`` / ``auto_context_pack``, checked."""
    _validate_pack_args(token_budget, token_counter, header, compress_threshold, compress_min_group)
    if (
        isinstance(max_items, bool)
        or not isinstance(max_items, int)
        or not 1 <= max_items <= MAX_RECALL_K
    ):
        raise ValidationError(
            f"max_items must be an integer in [1, {MAX_RECALL_K}] — got {max_items!r}"
        )


def recall_pack(
    recall: Recall,
    request: RecallRequest,
    *,
    token_budget: int = 800,
    token_counter: TokenCounter | None = None,
    header: str = DEFAULT_HEADER,
    compress: bool = False,
    compress_threshold: float = 0.30,
    compress_min_group: int = 2,
) -> PackResult:
    """The highest-ranked memories of *request* (``k`` = the most to consider) that fit
    *token_budget*, as a ready-to-inject block; see :func:`pack_ranked` for the budget
    and ``compress`` semantics."""
    if request.explain:  # pairs, whatever the request says
        request = replace(request, explain=False)
    ranked = recall.run(request)
    return pack_ranked(
        ranked,  # type: ignore[arg-type]  # pairs: explain is off
        token_budget=token_budget,
        token_counter=token_counter or estimate_tokens,
        header=header,
        compress=compress,
        compress_threshold=compress_threshold,
        compress_min_group=compress_min_group,
        queries=[request.query],
    )


def auto_context_pack(
    recall: Recall,
    task: str,
    *,
    token_budget: int = 800,
    max_phrases: int = 3,
    mode: str = "hybrid",
    min_cosine: float | None = None,
    header: str = DEFAULT_HEADER,
    token_counter: TokenCounter | None = None,
    touch: bool = True,
    compress: bool = False,
    compress_threshold: float = 0.30,
    compress_min_group: int = 2,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> PackResult:
    """Fan recall out over *task* and its key phrases, keep each memory's best score, pack.

    Every query of :func:`fanout_queries` is recalled (``k=10``, weighted
    fusion — RRF scores are pool-relative and cannot be compared across
    fan-out pools) with ``min_cosine`` applied to each, so an off-topic task
    packs nothing. ``PackResult.queries`` lists what was searched. Each
    distinct hit is touched once per call (not once per query that found it).
    """
    _validate_pack_args(token_budget, token_counter, header, compress_threshold, compress_min_group)
    queries = fanout_queries(task, max_phrases)
    best: dict[str, tuple[Memory, float]] = {}
    for query in queries:
        request = RecallRequest(
            query,
            k=FANOUT_K,
            mode=mode,
            min_cosine=min_cosine,
            touch=False,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
        )
        for memory, score, *_ in recall.run(request):
            if memory.id not in best or score > best[memory.id][1]:
                best[memory.id] = (memory, score)
    ranked = sorted(best.values(), key=lambda pair: (-pair[1], pair[0].id))
    if touch and ranked:
        recall.core.touch_many([memory for memory, _ in ranked])
    return pack_ranked(
        ranked,
        token_budget=token_budget,
        token_counter=token_counter or estimate_tokens,
        header=header,
        compress=compress,
        compress_threshold=compress_threshold,
        compress_min_group=compress_min_group,
        queries=queries,
    )


__all__ = [
    "auto_context_pack",
    "cluster_by_jaccard",
    "compress_group",
    "extract_key_phrases",
    "fanout_queries",
    "pack_line",
    "pack_ranked",
    "recall_pack",
    "validate_pack",
]
