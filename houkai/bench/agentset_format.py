"""The agent-memory set file: read, check and fill in what a set may leave out.

``houkai bench suite --sets my-set.json`` scores any set written in this shape, not only
the bundled ones, so a team can measure recall on memories like its own agents'. The
smallest set that runs::

    {"memories": [{"id": "m1", "text": "billing-api runs on Postgres 14"}, ...],
     "queries": [{"text": "Which database does billing-api use?", "relevant": ["m1"]}]}

Per memory: ``id`` (string or number, unique), ``text``; optional ``tags`` (list of
strings), ``days_ago`` (how long before ``as_of`` it was written; 0) and ``supersedes``
(the id of the memory it replaces; default recall then hides that one). Per question:
``text``, ``relevant`` (ids of the memories that answer it; the first one found counts
for MRR); optional ``kind`` (any name: results are reported per kind; ``general``) and
``split`` (``dev`` or ``test``). A set whose questions carry no split is asked whole
whichever ``--split`` is chosen. Top level: optional ``name`` (the file's name) and
``as_of`` (an ISO date the questions are asked at; the time of the run).

Every problem is reported as one :class:`ValueError` naming the file and the entry, so the
CLI says ``Error: …`` instead of a traceback halfway through a run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..domain.model import ValidationError, validate_tags, validate_text

#: The splits a question may belong to.
QUESTION_SPLITS: tuple[str, ...] = ("dev", "test")
#: The kind of a question that names none.
DEFAULT_KIND = "general"

Fail = Callable[[str], ValueError]


def read(path: Path) -> dict[str, Any]:
    """The set at *path*, checked and completed (see the module docstring)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the agent-memory set {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"{path} nests too deep to be an agent-memory set") from None
    return normalise(data, path)


def normalise(data: Any, path: Path) -> dict[str, Any]:
    """*data* (a parsed set file) with every optional field filled in."""

    def fail(what: str) -> ValueError:
        return ValueError(f"agent-memory set {path}: {what}")

    if not isinstance(data, dict):
        raise fail("the top level must be an object with 'memories' and 'queries'")
    memories, queries = data.get("memories"), data.get("queries")
    if not isinstance(memories, list) or not memories:
        raise fail("'memories' must be a non-empty list")
    if not isinstance(queries, list) or not queries:
        raise fail("'queries' must be a non-empty list")
    as_of = data.get("as_of") or datetime.now(UTC).isoformat()
    try:
        datetime.fromisoformat(str(as_of))
    except ValueError:
        raise fail(f"'as_of' must be an ISO date, got {as_of!r}") from None
    name = data.get("name", path.stem.removeprefix("agent-"))
    if not isinstance(name, str) or not name.strip():
        raise fail(f"'name' must be a non-empty string, got {name!r}")
    out_memories = [_memory(m, i, fail) for i, m in enumerate(memories)]
    first: dict[str, int] = {}
    for i, m in enumerate(out_memories):
        if m["id"] in first:
            raise fail(f"memory id {m['id']!r} is used twice (#{first[m['id']] + 1} and #{i + 1})")
        first[m["id"]] = i
    seen = set(first)
    _check_supersedes(out_memories, seen, fail)
    out_queries = [_question(q, i, seen, fail) for i, q in enumerate(queries)]
    split = [q for q in out_queries if q.get("split") is not None]
    if split and len(split) != len(out_queries):
        raise fail("either every question has a 'split' (dev or test) or none has")
    return {
        **data,
        "name": name.strip(),
        "as_of": str(as_of),
        "memories": out_memories,
        "queries": out_queries,
    }


def unsplit(data: dict[str, Any]) -> bool:
    """Do the set's questions carry no split (then every split asks them all)?"""
    return all(q.get("split") is None for q in data["queries"])


def _check_supersedes(memories: list[dict[str, Any]], ids: set[str], fail: Fail) -> None:
    """Each ``supersedes`` names another memory of the set, no memory is replaced twice,
    and no chain of replacements comes back to where it started."""
    replaces: dict[str, str] = {}
    by: dict[str, str] = {}
    for m in memories:
        old = m.get("supersedes")
        if old is None:
            continue
        if old not in ids:
            raise fail(f"memory {m['id']!r} supersedes {old!r}, which is not in the set")
        if old == m["id"]:
            raise fail(f"memory {m['id']!r} supersedes itself")
        if old in by:
            raise fail(f"memory {old!r} is superseded twice (by {by[old]!r} and {m['id']!r})")
        by[old], replaces[m["id"]] = m["id"], old
    for start in replaces:
        step, walked = start, 0
        while step in replaces and walked <= len(replaces):
            step, walked = replaces[step], walked + 1
            if step == start:
                raise fail(f"memory {start!r} is in a loop of 'supersedes' links")


def _ident(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        return None
    return str(value)


def _memory(m: Any, i: int, fail: Fail) -> dict[str, Any]:
    where = f"memory #{i + 1}"
    if not isinstance(m, dict):
        raise fail(f"{where} must be an object")
    mid = _ident(m.get("id"))
    if mid is None:
        raise fail(f"{where} needs an 'id' (a string or a number)")
    text = m.get("text")
    if not isinstance(text, str) or not text.strip():
        raise fail(f"memory {mid!r} needs a non-empty 'text'")
    tags = m.get("tags", [])
    if not isinstance(tags, list):
        raise fail(f"memory {mid!r}: 'tags' must be a list of strings")
    try:  # what remember() would refuse, refused here with the entry named
        validate_text(text)
        tags = validate_tags(tags)
    except ValidationError as exc:
        raise fail(f"memory {mid!r}: {exc}") from None
    days = m.get("days_ago", 0)
    if (
        isinstance(days, bool)
        or not isinstance(days, int | float)
        or not math.isfinite(days)
        or days < 0
    ):
        raise fail(f"memory {mid!r}: 'days_ago' must be a number ≥ 0, got {days!r}")
    out = {**m, "id": mid, "text": text, "tags": tags, "days_ago": float(days)}
    if m.get("supersedes") is not None:
        old = _ident(m["supersedes"])
        if old is None:
            raise fail(f"memory {mid!r}: 'supersedes' must be a memory id")
        out["supersedes"] = old
    return out


def _question(q: Any, i: int, ids: set[str], fail: Fail) -> dict[str, Any]:
    where = f"question #{i + 1}"
    if not isinstance(q, dict):
        raise fail(f"{where} must be an object")
    text = q.get("text")
    if not isinstance(text, str) or not text.strip():
        raise fail(f"{where} needs a non-empty 'text'")
    relevant = q.get("relevant")
    if not isinstance(relevant, list) or not relevant:
        raise fail(f"{where} ({text!r}) needs 'relevant': the ids of the memories that answer it")
    wanted = [_ident(r) for r in relevant]
    unknown = [r for r, w in zip(relevant, wanted, strict=True) if w is None or w not in ids]
    if unknown:
        raise fail(f"{where} ({text!r}) names memories not in the set: {unknown}")
    kind = q.get("kind", DEFAULT_KIND)
    if not isinstance(kind, str) or not kind:
        raise fail(f"{where} ({text!r}): 'kind' must be a non-empty string")
    split = q.get("split")
    if split is not None and split not in QUESTION_SPLITS:
        raise fail(f"{where} ({text!r}): 'split' must be dev or test, got {split!r}")
    return {**q, "text": text, "relevant": wanted, "kind": kind, "split": split}
