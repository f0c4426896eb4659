"""Reusable parameter types for the operation models, bounded by the domain constants.

Each alias is an ``Annotated`` pydantic type: its constraints become the JSON
Schema every door publishes and validates (REST, OpenAPI, MCP, the agent tool
definitions) and the click types the CLI derives (``IntRange``, ``Choice``, …).
The bounds are the ones the store guards library callers with
(:mod:`houkai.domain.model`), so a door can never accept what the store refuses.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from houkai.db.keys import COLLECTION_RE
from houkai.domain.model import (
    MAX_ID_CHARS,
    MAX_RECALL_K,
    MAX_RECALL_POOL,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TEXT_CHARS,
)

#: A browse page cursor: ``<sort key>:<hex id>:<seq>``.
CURSOR_PATTERN = r"^(-?\d{1,20}):((?:[0-9a-f]{2}){1,512}):(\d{1,15})$"

#: Largest ``limit`` / ``n`` a listing read accepts.
MAX_K = 10_000
#: Largest ``k`` / ``max_items`` of a ranked read (recall, recall_pack): its work grows with it.
RecallCount = Annotated[int, Field(ge=1, le=MAX_RECALL_K)]
#: What the overfetch doc says about the pool cap.
POOL_HELP = f"(the pool is capped at {MAX_RECALL_POOL:,} candidates)"

# "Has a character str.strip() keeps", spelled out so Python's re (the server) and
# ECMA regex (clients) agree: their \s differ on \x1c-\x1f, \x85 and \ufeff.
NONSPACE = (
    "[^\\t\\n\\u000b\\f\\r \\u001c-\\u001f\\u0085\\u00a0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000]"
)
# Epoch seconds, a relative span, or an ISO-8601 date/datetime whose every form
# this pattern admits parses (days stop at 28 so no calendar check is needed).
_ISO = (
    "[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
    "([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)?"
    "([Zz]|[+-](0[0-9]|1[0-3]):[0-5][0-9])?)?"
)
TIMESTAMP_PATTERN = (
    f"^([+-]?[0-9]{{1,12}}(\\.[0-9]{{1,17}})?|[0-9]{{1,9}}(\\.[0-9]{{1,3}})?[smhdwSMHDW]|{_ISO})$"
)
TIME_HELP = (
    "Epoch seconds, an ISO-8601 date/datetime (naive = UTC), or a relative span like "
    '"7d" / "24h" (meaning that long ago).'
)

TAG_PATTERN = f"^[^,]*{NONSPACE[:-1]},][^,]*$"

#: What each pattern means, for the error a door shows instead of the regex.
#: A change of importance: +N, -N (relative) or =N (absolute).
DELTA_PATTERN = r"^[+=-]([0-9]+(\.[0-9]*)?|\.[0-9]+)$"
#: A journal entry: its stream id (1712345678901-0) or its epoch timestamp.
ENTRY_PATTERN = r"^([0-9]{1,15}-[0-9]{1,15}|[0-9]{1,15}(\.[0-9]+)?)$"

#: A file pattern relative to the ingested folder (pathlib refuses absolute ones).
GLOB_PATTERN = r"^[^/\x00][^\x00]*$"

COLLECTION_PATTERN = COLLECTION_RE.pattern
#: A collection name, as :func:`houkai.db.keys.validate_collection` checks it.
CollectionName = Annotated[str, Field(pattern=COLLECTION_PATTERN)]

#: A summarizer spec (:func:`houkai.engines.summarizers.parse_spec`): the providers it knows.
SUMMARIZER_PATTERN = r"^(extractive|(ollama|openai|anthropic):\S.*)$"

PATTERN_MEANINGS: dict[str, str] = {
    SUMMARIZER_PATTERN: "expected extractive or ollama:MODEL, openai:MODEL, anthropic:MODEL",
    COLLECTION_PATTERN: "must be 1-64 characters of letters, digits, '_', '.' or '-' "
    "and start with a letter or digit",
    CURSOR_PATTERN: 'expected the previous page\'s "next" cursor, as it was returned',
    DELTA_PATTERN: "must be +N, -N or =N (e.g. +0.2)",
    ENTRY_PATTERN: "expected a journal entry id like 1712345678901-0 (see journal tail) "
    "or an epoch timestamp",
    NONSPACE: "must contain a non-blank character",
    GLOB_PATTERN: 'must be a pattern relative to path (e.g. "**/*.md"), not absolute',
    TAG_PATTERN: "a tag must contain a non-blank character and no comma",
    TIMESTAMP_PATTERN: "must be epoch seconds, an ISO-8601 date/datetime or a span like 7d / 24h",
}

MemoryTypeName = Literal["episodic", "semantic", "procedural", "feedback"]
LinkRel = Literal[
    "related", "refines", "derived_from", "example_of", "contradicts", "supersedes", "follows"
]
RecallMode = Literal["semantic", "hybrid"]
Fusion = Literal["weighted", "rrf"]
ConflictPolicy = Literal["ignore", "warn", "supersede", "raise"]
BatchConflictPolicy = Literal["ignore", "warn", "supersede"]
ImportPolicy = Literal["skip", "overwrite", "rename", "error"]
Direction = Literal["out", "in", "both"]
Chunking = Literal["paragraph", "pack"]

#: A memory's text: at least one non-blank character, at most MAX_TEXT_CHARS.
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS, pattern=NONSPACE)]
#: A non-empty string (a query, a task).
NonEmpty = Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS, pattern=NONSPACE)]
#: A memory / job id.
Id = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]
Tag = Annotated[str, Field(min_length=1, max_length=MAX_TAG_CHARS, pattern=TAG_PATTERN)]
#: Tags: a list, or one string as a single tag.
Tags = Tag | Annotated[list[Tag], Field(max_length=MAX_TAGS)]
#: A point in time: epoch seconds, ISO-8601 or a relative span.
Timestamp = float | Annotated[str, Field(pattern=TIMESTAMP_PATTERN)]
Fraction = Annotated[float, Field(ge=0, le=1)]
Cosine = Annotated[float, Field(ge=-1, le=1)]
Polarity = Literal[-1, 0, 1]
