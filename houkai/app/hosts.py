"""Which ``Host`` and ``Origin`` a network door answers: the one policy of REST and MCP-over-HTTP.

Two browser attacks reach a server on loopback that has no token (the default
``houkai up``): *DNS rebinding* (a page on ``evil.example`` re-points its name
at 127.0.0.1 and reads the answers: its requests carry ``Host: evil.example``)
and *cross-site requests* (any page, a ``file://`` one too, may POST a "simple"
request: it carries that page's ``Origin``). So:

- ``Host`` must name this server: the loopback names when it is bound to
  loopback, the bind address, any IP literal when it is bound to every interface
  (rebinding needs a DNS name), or an entry of ``http_allowed_hosts``
  (``name`` = any port, ``name:port``; ``*`` turns the check off). A foreign
  one is a 421 (Misdirected Request), as the MCP SDK answers.
- ``Origin``, when a browser sends one, must be this server's own: the same
  ``host:port`` as the request's ``Host``, a loopback name on the served port,
  or an allowlist entry. ``null`` (``file://``, sandboxed frames) and every other
  page are a 403. Requests without ``Origin`` (curl, the CLI, agents) pass.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from houkai.domain.errors import HoukaiError

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ForeignHost(HoukaiError):
    """The request names another server in ``Host`` (DNS rebinding): 421."""

    status = 421


class ForeignOrigin(HoukaiError):
    """A page of another origin sent the request (cross-site): 403."""

    status = 403


def _split(netloc: str) -> tuple[str, int | None] | None:
    """``(hostname, port)`` of a ``Host`` value (lowercase, IPv6 unbracketed), None if malformed."""
    try:
        parts = urlsplit("//" + netloc.strip())
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not name or parts.username is not None or parts.path or parts.query:
        return None
    return name.lower().rstrip("."), port


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class HostPolicy:
    """The accepted ``Host`` / ``Origin`` values of one server (see the module doc)."""

    #: ``Host`` names accepted as ``(hostname, port)``; port None = any port.
    hosts: frozenset[tuple[str, int | None]]
    #: ``Origin`` hosts accepted besides the request's own Host, same shape.
    origins: frozenset[tuple[str, int | None]]
    any_ip: bool = False  # bound to every interface: an IP-literal Host is fine
    any_host: bool = False  # ``*`` in the allowlist: no Host check at all

    @classmethod
    def of(cls, bind: str, port: int | None, allowed: str = "") -> HostPolicy:
        """The policy of a server bound to *bind*:*port* (port 0/None: unknown) plus *allowed*
        (comma-separated ``name`` / ``name:port`` / ``*``; raises ValidationError when malformed).

        The bind's own names match a ``Host`` on any port (an ssh tunnel or a container's
        port map changes the port, and rebinding forges the name, not the port) but an
        ``Origin`` only on the served port: a page on another local port is another site."""
        from houkai.domain.model import ValidationError

        served = port or None
        bind = (bind or "").strip().strip("[]").lower()
        names: set[str] = set()
        if bind in WILDCARD_BINDS or _is_loopback(bind):
            names |= set(LOOPBACK_NAMES)
        if bind not in WILDCARD_BINDS:
            names.add(bind)
        listed: set[tuple[str, int | None]] = set()
        any_host = False
        for raw in (allowed or "").split(","):
            item = raw.strip()
            if not item:
                continue
            if item == "*":
                any_host = True
                continue
            split = _split(item)
            if split is None:
                raise ValidationError(f"http_allowed_hosts: {item!r} is not a host or host:port")
            listed.add(split)
        return cls(
            hosts=frozenset({(n, None) for n in names} | listed),
            origins=frozenset({(n, served) for n in names} | listed),
            any_ip=bind in WILDCARD_BINDS,
            any_host=any_host,
        )

    @staticmethod
    def _listed(entries: frozenset[tuple[str, int | None]], name: str, port: int | None) -> bool:
        return any(n == name and p in (None, port) for n, p in entries)

    def host_ok(self, host: str | None) -> bool:
        """Does this ``Host`` header name this server? (A missing Host is refused.)"""
        if self.any_host:
            return True
        split = _split(host or "")
        if split is None:
            return False
        name, port = split
        if self.any_ip and _is_ip(name):
            return True
        return self._listed(self.hosts, name, port) or (
            port is None and any(n == name for n, _ in self.hosts)
        )

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """Is this ``Origin`` (absent: not a browser's cross-origin request) this server's?"""
        if origin is None or origin == "":
            return True
        try:
            parts = urlsplit(origin.strip())
            name, port = parts.hostname, parts.port
        except ValueError:
            return False
        if parts.scheme not in _DEFAULT_PORTS or not name:
            return False  # "null" (file://, sandboxed pages), chrome-extension://, …
        name = name.lower()
        port = port or _DEFAULT_PORTS[parts.scheme]
        own = _split(host or "")
        if own is not None and own[0] == name and (own[1] or _DEFAULT_PORTS[parts.scheme]) == port:
            return True  # same origin as the request's own (already checked) Host
        return self._listed(self.origins, name, port)

    def check(self, host: str | None, origin: str | None) -> None:
        """Raise :class:`ForeignHost` (421) or :class:`ForeignOrigin` (403)."""
        if not self.host_ok(host):
            raise ForeignHost(
                f"misdirected request: Host {str(host or '')[:100]!r} is not this server; "
                "add it to http_allowed_hosts if it is"
            )
        if not self.origin_ok(origin, host):
            raise ForeignOrigin(
                f"forbidden: requests from the page origin {str(origin)[:100]!r} are refused "
                "(cross-site); add its host:port to http_allowed_hosts if it is yours"
            )
