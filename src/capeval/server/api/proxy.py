"""Who is asking: the client's address, scheme and host, decided by the server itself.

Forwarding headers (``X-Forwarded-For``, ``X-Forwarded-Proto``, ``X-Forwarded-Host``) are believed
only when the host configured a reverse proxy (``trust_proxy = true``) and the request's peer is one
of ``trusted_proxies``. ``Forwarded`` (RFC 7239) and ``X-Real-IP`` are never read: a proxy that sets
them can set ``X-Forwarded-For`` too, and a header the server does not read cannot be forged.

An ASGI server may rewrite the peer from ``X-Forwarded-For`` before the application sees it
(uvicorn does by default for connections from 127.0.0.1). ``capeval serve`` turns that off; for
other deployments, a request that carries forwarding headers the server was not told to trust is
also counted under one shared address, :data:`UNTRUSTED_FORWARDED`, by the throttles
(:func:`throttle_keys`): made-up headers never earn a fresh address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

from starlette.requests import Request

from capeval.server.config import Settings

__all__ = [
    "FORWARDING_HEADERS",
    "UNTRUSTED_FORWARDED",
    "client_address",
    "peer_trusted",
    "request_host",
    "scheme",
    "throttle_keys",
]

#: Headers that claim to describe the client behind a proxy.
FORWARDING_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip", "x-forwarded-host", "x-forwarded-proto")
#: The address of requests carrying forwarding headers from a peer that is not a trusted proxy.
UNTRUSTED_FORWARDED = "untrusted-forwarded"
#: Longest address kept (an IPv6 address with a zone fits).
ADDRESS_MAX = 64

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=64)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address from a header entry (``1.2.3.4``, ``1.2.3.4:5678``, ``[::1]:80``, ``::1``), or ``None``."""
    value = value.strip().strip('"')
    if value.startswith("["):
        value = value[1 : value.find("]")] if "]" in value else ""
    elif value.count(":") == 1:
        value = value.split(":", 1)[0]
    try:
        return ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        return None


def _in(address: ipaddress.IPv4Address | ipaddress.IPv6Address, networks: Iterable[Network]) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return any(address in net or (mapped is not None and mapped in net) for net in networks)


def _peer(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def peer_trusted(request: Request, settings: Settings) -> bool:
    """Whether the request's peer is a reverse proxy the host told the server to trust."""
    if not settings.trust_proxy:
        return False
    address = _ip(_peer(request))
    return address is not None and _in(address, _networks(tuple(settings.trusted_proxies)))


def _has_forwarding_headers(request: Request) -> bool:
    return any(name in request.headers for name in FORWARDING_HEADERS)


def client_address(request: Request, settings: Settings) -> str:
    """The client's address as the server decides it: from a trusted proxy, the rightmost
    ``X-Forwarded-For`` entry that is not itself a trusted proxy (entries to its left were written
    by the client and prove nothing); otherwise the peer."""
    if peer_trusted(request, settings):
        networks = _networks(tuple(settings.trusted_proxies))
        entries = [e for v in request.headers.getlist("x-forwarded-for") for e in v.split(",") if e.strip()]
        for entry in reversed(entries):
            address = _ip(entry)
            if address is None:
                break  # a malformed hop: what lies further left cannot be believed either
            if not _in(address, networks):
                return str(address)[:ADDRESS_MAX]
        return _peer(request)[:ADDRESS_MAX]
    return _peer(request)[:ADDRESS_MAX]


def throttle_keys(request: Request, settings: Settings) -> tuple[str, ...]:
    """The addresses a throttle counts a request under: :func:`client_address`, and
    :data:`UNTRUSTED_FORWARDED` too when the request carries forwarding headers that are not
    believed (the ASGI server may have rewritten the peer from them already)."""
    address = client_address(request, settings)
    if not peer_trusted(request, settings) and _has_forwarding_headers(request):
        return (address, UNTRUSTED_FORWARDED)
    return (address,)


def scheme(request: Request, settings: Settings) -> str:
    """``https`` or ``http``: the proxy's ``X-Forwarded-Proto`` when trusted, else the connection's."""
    if peer_trusted(request, settings):
        forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        if forwarded in ("http", "https"):
            return forwarded
    return request.url.scheme


def request_host(request: Request, settings: Settings) -> str:
    """The host (and port) the client asked for: the proxy's ``X-Forwarded-Host`` when trusted."""
    if peer_trusted(request, settings) and request.headers.get("x-forwarded-host"):
        return request.headers["x-forwarded-host"].split(",")[0].strip()
    return request.headers.get("host", "")
