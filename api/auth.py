"""Bearer-token auth for the REST API, over the shared parser in :mod:`houkai.app.auth`.

Token spec (``settings.http_tokens`` / ``HOUKAI_HTTP_TOKENS`` / ``houkai serve
--token``), comma-separated entries ``TOKEN[:COLLECTIONS][:ro|rw]``:

* ``TOKEN`` — the secret (no ``:``, ``,`` or whitespace);
* ``COLLECTIONS`` — ``|``-separated collection names, or ``*``/empty for all;
* ``ro`` = read-only, ``rw`` (default) = read-write.

``s3cret`` (everything), ``s3cret:ro`` (read-only, all collections),
``t1:team-a|team-b`` (read-write on two), ``t2:team-a:ro``. A collection
literally named ``ro``/``rw`` needs the explicit mode: ``t3:ro:rw``.
The MCP HTTP transport reads the same spec through the same parser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from houkai.app.auth import TokenGrant, authenticate, bearer_token, parse_tokens

Token = TokenGrant


def load_tokens(
    spec: str | Iterable[str] | Mapping[str, TokenGrant] | None,
) -> dict[str, TokenGrant]:
    """``{token: grant}`` from a spec string, a list of entries, or already-parsed grants."""
    if isinstance(spec, Mapping):
        return dict(spec)
    return parse_tokens(spec)


__all__ = ["Token", "TokenGrant", "authenticate", "bearer_token", "load_tokens", "parse_tokens"]
