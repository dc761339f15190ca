"""Who a request comes from: the client's address, as far as the deployment can vouch for it.

`X-Forwarded-For` is a list any client can start: `curl -H "X-Forwarded-For: 1.2.3.4"` makes
up a left-hand part, and each proxy on the way appends the address it received the request
from. Only the entries the deployment's own proxies appended can be trusted, so how many there
are is a setting, TRUSTED_PROXY_COUNT:

- 0 (the default, softgrade reached directly): REMOTE_ADDR; the header is ignored.
- n: the n-th entry from the right, the one the outermost trusted proxy appended (with one
  proxy, the right-most). A header with fewer entries than that did not pass through every
  trusted proxy, so it is ignored too and REMOTE_ADDR counts.

With a count above 0 softgrade must be reachable only through those proxies; a client that
reaches it directly could otherwise name any address.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest

UNKNOWN = "unknown"


def _address(text: str) -> str | None:
    """A header entry as a normalised address ("1.2.3.4", "2001:db8::1"), or None; a port
    (1.2.3.4:5678, [2001:db8::1]:443) is dropped, since some proxies append one."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":")[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str:
    """The address of the client that sent the request (see the module's docstring)."""
    remote = _address(request.META.get("REMOTE_ADDR", "")) or UNKNOWN
    proxies = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    if proxies <= 0:
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    if len(forwarded) < proxies:
        return remote
    return _address(forwarded[-proxies]) or remote


def address_group(address: str) -> str:
    """What a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64
    network (one subscriber's usual allocation, which holds more addresses than any limit)."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 4:
        return str(parsed)
    if parsed.ipv4_mapped is not None:  # an IPv4 client on a dual-stack socket
        return str(parsed.ipv4_mapped)
    return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
