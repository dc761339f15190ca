"""An LMS call connects to the very address the outbound policy checked, never to what a second
DNS lookup answers (DNS rebinding), while TLS still names and verifies the LMS's host."""

from __future__ import annotations

import http.server
import json
import socket
import ssl
import threading

import pytest
import requests
from django.core.management import call_command

from lti import outbound
from lti.outbound import CheckedAddressAdapter
from tests.lti.conftest import PUBLIC_ADDRESS, registered
from tests.lti.fake_lms import TestPlatform

CONFIGURATION_URL = "https://lms.example.edu/.well-known/openid-configuration"


@pytest.fixture
def rebinding_dns(monkeypatch) -> list[str]:
    """A name server the LMS controls: lms.example.edu is public when softgrade checks it and
    loopback at every later lookup, including the HTTP client's own (socket.getaddrinfo)."""
    lookups = []

    def host_addresses(host: str, port: int) -> list[str]:
        lookups.append(host)
        return [PUBLIC_ADDRESS] if len(lookups) == 1 else ["127.0.0.1"]

    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "lms.example.edu":
            lookups.append(host)
            host = "127.0.0.1"
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(outbound, "host_addresses", host_addresses)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


@pytest.fixture
def connections(monkeypatch) -> list[tuple]:
    """Every address a socket connects to; none answers (no packet leaves the machine)."""
    seen = []

    def connect(sock, address):
        seen.append(address[:2])
        raise ConnectionRefusedError("refused by the test")

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


def test_a_call_before_registration_connects_to_the_checked_address(rebinding_dns, connections):
    with pytest.raises(outbound.PlatformError, match="no answer"):
        outbound.call_on_host("GET", CONFIGURATION_URL, host="lms.example.edu")
    assert connections == [(PUBLIC_ADDRESS, 443)]
    assert rebinding_dns == ["lms.example.edu"]  # resolved once, by the check


@pytest.mark.django_db
def test_a_registrations_call_connects_to_the_checked_address(rebinding_dns, connections):
    platform = registered(TestPlatform())
    with pytest.raises(outbound.PlatformError, match="no answer"):
        outbound.call("GET", platform.keyset_url, registration=platform.registration)
    assert connections == [(PUBLIC_ADDRESS, 443)]
    assert rebinding_dns == ["lms.example.edu"]


def test_an_ipv6_address_is_dialled_as_checked(connections):
    address = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"
    session = requests.Session()
    session.mount("https://", CheckedAddressAdapter(host="lms.example.edu", address=address))
    with pytest.raises(requests.exceptions.ConnectionError):
        session.get("https://lms.example.edu/api/scores", timeout=5)
    assert connections == [(address, 443)]


def prepared(url: str) -> requests.PreparedRequest:
    return requests.Request("GET", url).prepare()


def test_the_pool_dials_the_address_and_names_the_host_in_tls():
    adapter = CheckedAddressAdapter(host="LMS.example.edu", address=PUBLIC_ADDRESS)
    request = prepared("https://lms.example.edu:8443/api/scores")
    pool = adapter.get_connection_with_tls_context(request, verify=True)
    assert (pool.host, pool.port) == (PUBLIC_ADDRESS, 8443)
    assert pool.conn_kw["server_hostname"] == "lms.example.edu"
    assert pool.cert_reqs == "CERT_REQUIRED"
    adapter.add_headers(request)
    assert request.headers["Host"] == "lms.example.edu:8443"


def test_the_adapter_refuses_a_host_it_did_not_check():
    adapter = CheckedAddressAdapter(host="lms.example.edu", address=PUBLIC_ADDRESS)
    with pytest.raises(requests.exceptions.InvalidURL, match=r"only lms\.example\.edu was checked"):
        adapter.get_connection_with_tls_context(prepared("https://other.example.edu/"), True)


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    """An https server on 127.0.0.1 whose certificate names localhost (and 127.0.0.1): it
    answers with the Host header it was sent."""
    folder = tmp_path_factory.mktemp("certificate")
    call_command("lti_dev_certificate", "--dir", str(folder))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"host": self.headers["Host"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "localhost.crt", folder / "localhost.key")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], str(folder / "localhost.crt")
    server.shutdown()
    server.server_close()


def pinned_get(host: str, port: int, certificate: str) -> requests.Response:
    session = requests.Session()
    session.mount("https://", CheckedAddressAdapter(host=host, address="127.0.0.1"))
    return session.get(f"https://{host}:{port}/", verify=certificate, timeout=5)


def test_tls_verifies_the_certificate_against_the_host_name(tls_server):
    port, certificate = tls_server
    response = pinned_get("localhost", port, certificate)
    assert response.json() == {"host": f"localhost:{port}"}


def test_a_certificate_for_another_name_is_refused_though_it_names_the_address(tls_server):
    port, certificate = tls_server
    with pytest.raises(requests.exceptions.SSLError, match=r"lms\.example\.edu"):
        pinned_get("lms.example.edu", port, certificate)
