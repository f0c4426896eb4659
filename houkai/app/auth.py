"""Bearer tokens for the network front doors (REST API, MCP over HTTP).

One spec string (config ``http_tokens`` / ``HOUKAI_HTTP_TOKENS``) lists the
accepted tokens, comma-separated; each entry is ``token[:collections[:mode]]``:

- ``collections``: ``|``-separated collection names the token may use; empty or
  ``*`` means every collection;
- ``mode``: ``rw`` (default) or ``ro`` (read-only tools/endpoints only).

Examples: ``s3cret``, ``agent-tok:proj_a|proj_b:ro,admin-tok``. Comparison is
constant-time; an empty spec means "no auth configured".
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..domain.model import ValidationError

_MODES = ("rw", "ro")


@dataclass(frozen=True)
class TokenGrant:
    """What one bearer token may do."""

    token: str
    collections: frozenset[str] | None = None  # None: every collection
    read_only: bool = False

    def allows_collection(self, collection: str) -> bool:
        return self.collections is None or collection in self.collections

    def describe(self) -> str:
        scope = (
            "all collections" if self.collections is None else ", ".join(sorted(self.collections))
        )
        return f"{'read-only' if self.read_only else 'read-write'} on {scope}"


def parse_tokens(spec: str | Iterable[str] | None) -> dict[str, TokenGrant]:
    """Parse a token spec (string or list of entries) into ``{token: grant}``.

    Raises ``ValueError`` naming the bad entry (never echoing a token in full).
    """
    if spec is None:
        return {}
    entries = spec.split(",") if isinstance(spec, str) else list(spec)
    grants: dict[str, TokenGrant] = {}
    for position, raw in enumerate(entries, 1):
        entry = raw.strip()
        if not entry:
            continue
        parts = entry.split(":")
        if len(parts) > 3:
            raise ValidationError(f"token entry {position}: expected token[:collections[:ro|rw]]")
        token = parts[0].strip()
        if not token or any(ch.isspace() for ch in token):
            raise ValidationError(f"token entry {position}: the token is empty or contains spaces")
        if len(parts) == 2 and parts[1].strip().lower() in _MODES:
            parts = [parts[0], "", parts[1]]  # "tok:ro" = every collection, read-only
        names = parts[1].strip() if len(parts) > 1 else ""
        mode = parts[2].strip().lower() if len(parts) > 2 else "rw"
        if mode not in _MODES:
            raise ValidationError(f"token entry {position}: mode must be ro or rw, got {mode!r}")
        collections: frozenset[str] | None = None
        if names and names != "*":
            from ..db.keys import validate_collection

            items = [n.strip() for n in names.split("|") if n.strip()]
            for name in items:
                validate_collection(name)
            collections = frozenset(items)
        grants[token] = TokenGrant(token, collections, mode == "ro")
    return grants


def bearer_token(authorization: str | None) -> str | None:
    """The token from an ``Authorization: Bearer <token>`` header value, else ``None``."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def authenticate(authorization: str | None, grants: Mapping[str, TokenGrant]) -> TokenGrant | None:
    """The grant for the request's bearer token, ``None`` when missing or unknown.

    Compares against every configured token in constant time.
    """
    token = bearer_token(authorization)
    if token is None:
        return None
    supplied = token.encode("utf-8", "surrogateescape")
    found: TokenGrant | None = None
    for known, grant in grants.items():
        if hmac.compare_digest(supplied, known.encode("utf-8", "surrogateescape")):
            found = grant
    return found
