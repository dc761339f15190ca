"""Where softgrade may send a request on an LMS's behalf: one policy, decided here.

An LMS names the URLs softgrade calls (line items, scores, roster pages and their `next` links)
in its launches and its answers. A registration that is compromised or mistaken could otherwise
make softgrade's workers call anything, including services that are reachable only from inside
softgrade's network. So every call to an LMS goes through `call()`, which refuses before
sending:

- any URL that is not https;
- any host that is not one of the registration's own (the hosts of its issuer, authorization,
  token and keyset URLs) or listed for it by an administrator (`PlatformHosts`);
- any host whose addresses, once resolved, include a private, loopback, link-local, reserved or
  multicast one, unless the `LTI_ALLOW_PRIVATE_HOSTS` setting allows them (local testing only);

then connects to the address it checked, never resolving the name a second time: an LMS that
controls its DNS could otherwise answer the check with a public address and the connection with
a private one (DNS rebinding). TLS still names the host (SNI) and verifies the certificate
against it, and the Host header is the URL's. No proxy from the environment is used, since a
proxy would resolve the name itself. It follows no redirect (a 3xx is a refusal) and keeps
only the status line of a failed answer, never its body, which the LMS wrote and instructors
would read.

Dynamic registration calls an LMS before any registration of it exists: `call_on_host()` applies
the same policy with one allowed host instead of a registration's, the host of the OpenID
configuration URL the LMS sent (lti/dynamic_registration.py).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from http import HTTPStatus
from urllib.parse import urlsplit

import requests
from django.conf import settings
from lti_tool.models import LtiRegistration
from requests.adapters import HTTPAdapter

from lti.models import PlatformHosts

# URLs in messages are the LMS's own; a very long one is cut so a message stays readable.
SHOWN_URL_LENGTH = 200


class PlatformError(Exception):
    """An LMS call that failed or was refused; `retryable` says whether trying later may help."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = True):
        self.message = message
        self.status = status
        self.retryable = retryable
        super().__init__(message)


def status_line(status: int) -> str:
    """ "HTTP 500 Internal Server Error": the status and its standard phrase, never the LMS's
    own words (its reason phrase and body are text an instructor would otherwise read)."""
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def _shown(url: str) -> str:
    return url if len(url) <= SHOWN_URL_LENGTH else url[:SHOWN_URL_LENGTH] + "…"


def retryable_status(status: int) -> bool:
    """The LMS is down, overloaded or asks us to slow down: later may work. Any other 4xx is a
    refusal that repeating the same request will not change."""
    return status >= 500 or status in (401, 408, 409, 425, 429)


def registration_hosts(registration: LtiRegistration) -> frozenset[str]:
    """The hosts softgrade may call for this registration (`*.example.edu` entries included)."""
    urls = (
        registration.issuer,
        registration.auth_url,
        registration.token_url,
        registration.keyset_url,
    )
    hosts = {urlsplit(url).hostname for url in urls if url}
    listed = PlatformHosts.objects.filter(registration=registration).first()
    if listed is not None:
        hosts.update(listed.host_list())
    return frozenset(host for host in hosts if host)


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Whether `host` is one of `allowed`: an exact name, or under a `*.domain` entry."""
    host = host.lower().rstrip(".")
    for entry in allowed:
        if entry.startswith("*.") and host.endswith(entry[1:]):
            return True
        if host == entry:
            return True
    return False


def host_addresses(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the test suite stands in for DNS here)."""
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def address_public(text: str) -> bool:
    """Whether an address is on the public internet: not private, loopback, link-local,
    reserved, shared or multicast (an IPv4 address mapped into IPv6 is judged as IPv4)."""
    address = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def url_check(url: str, *, registration: LtiRegistration) -> str | None:
    """Raise a PlatformError (not retryable) unless the policy lets softgrade call `url`; the
    checked address to connect to (None when `LTI_ALLOW_PRIVATE_HOSTS` skips the check)."""
    return _url_check(
        url,
        allowed=registration_hosts(registration),
        not_allowed="is not one of this LMS registration's hosts",
        remedy=" An administrator can list it among the registration's extra hosts.",
    )


def _url_check(
    url: str, *, allowed: Iterable[str], not_allowed: str, remedy: str = ""
) -> str | None:
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise PlatformError(
            f"softgrade calls an LMS over https only; refused {_shown(url)}.", retryable=False
        )
    host = parts.hostname
    if not host or parts.username or parts.password:
        raise PlatformError(f"Not a URL softgrade may call: {_shown(url)}.", retryable=False)
    if not host_allowed(host, allowed):
        raise PlatformError(
            f"{host} {not_allowed}; refused {_shown(url)}.{remedy}", retryable=False
        )
    if settings.LTI_ALLOW_PRIVATE_HOSTS:
        return None
    try:
        addresses = host_addresses(host, parts.port or 443)
    except (OSError, UnicodeError) as exc:
        # A name that does not resolve now may resolve later (a DNS outage).
        raise PlatformError(f"{host} does not resolve ({type(exc).__name__}).") from exc
    private = [address for address in addresses if not address_public(address)]
    if private or not addresses:
        raise PlatformError(
            f"{host} resolves to an address softgrade does not call "
            f"({', '.join(private) or 'none'}); refused {_shown(url)}.",
            retryable=False,
        )
    return addresses[0]


class CheckedAddressAdapter(HTTPAdapter):
    """Sends every request for `host` to `address`, the one the policy checked, whatever DNS
    answers by then; the TLS handshake names `host` (SNI) and verifies the certificate against
    it, and the Host header is the URL's. A request for any other host is refused."""

    def __init__(self, *, host: str, address: str):
        self.host = host.lower()
        self.address = address
        super().__init__()

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        if (host_params["host"] or "").lower() != self.host:
            raise requests.exceptions.InvalidURL(
                f"only {self.host} was checked, not {host_params['host']}", request=request
            )
        # The pool dials the address; urllib3 names the host in TLS and checks the certificate
        # against that name. `proxies` are ignored: a proxy would resolve the name again.
        pool_kwargs["server_hostname"] = self.host
        return self.poolmanager.connection_from_host(
            self.address,
            port=host_params["port"],
            scheme=host_params["scheme"],
            pool_kwargs=pool_kwargs,
        )

    def add_headers(self, request, **kwargs):
        # Without it the connection, made to an address, would name the address as the host.
        request.headers["Host"] = urlsplit(request.url).netloc


def _session(url: str, address: str | None) -> requests.Session:
    session = requests.Session()
    session.headers["User-Agent"] = "softgrade-lti/1.0"
    if address is not None:
        adapter = CheckedAddressAdapter(host=urlsplit(url).hostname or "", address=address)
        session.mount("https://", adapter)
        session.mount("http://", adapter)  # never used (https only), but never a plain one
    return session


def call(method: str, url: str, *, registration: LtiRegistration, **kwargs) -> requests.Response:
    """Send one request to an LMS under the policy; a failure or a refusal is a PlatformError
    whose message holds the method, the URL and at most a status line."""
    address = url_check(url, registration=registration)
    return _send(method, url, address=address, **kwargs)


def call_on_host(method: str, url: str, *, host: str, **kwargs) -> requests.Response:
    """The same policy for an LMS not registered yet: only `host` (exactly, no `*.` entry) may
    be called, since no registration lists the LMS's hosts."""
    address = _url_check(
        url,
        allowed=(host.lower().rstrip("."),),
        not_allowed=f"is not {host}, the host of the LMS's OpenID configuration",
    )
    return _send(method, url, address=address, **kwargs)


def _send(method: str, url: str, *, address: str | None, **kwargs) -> requests.Response:
    try:
        response = _session(url, address).request(
            method,
            url,
            timeout=settings.LTI_HTTP_TIMEOUT,
            allow_redirects=False,
            **kwargs,
        )
    except requests.RequestException as exc:
        raise PlatformError(
            f"{method} {_shown(url)}: no answer ({type(exc).__name__}: {str(exc)[:300]})"
        ) from exc
    status = response.status_code
    if 300 <= status < 400:
        response.close()
        raise PlatformError(
            f"{method} {_shown(url)}: {status_line(status)}; softgrade follows no redirects "
            "from an LMS, so the registration's URLs must be the final ones.",
            status=status,
            retryable=False,
        )
    if status >= 400:
        response.close()
        raise PlatformError(
            f"{method} {_shown(url)}: {status_line(status)}",
            status=status,
            retryable=retryable_status(status),
        )
    return response
