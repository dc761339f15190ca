"""The client's address: X-Forwarded-For counts only as far as the deployment's own proxies
vouch for it (TRUSTED_PROXY_COUNT)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory, override_settings

from security.addresses import address_group, client_address


def request_from(remote: str, forwarded: str | None = None):
    headers = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    return RequestFactory().get("/", REMOTE_ADDR=remote, **headers)


def test_by_default_the_header_is_ignored_whatever_it_says():
    assert client_address(request_from("203.0.113.7", "198.51.100.1")) == "203.0.113.7"
    assert client_address(request_from("203.0.113.7", "1.1.1.1, 2.2.2.2")) == "203.0.113.7"


@override_settings(TRUSTED_PROXY_COUNT=1)
@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        ("198.51.100.1", "198.51.100.1"),
        # The client wrote the left-hand part; the proxy appended the right-most entry.
        ("6.6.6.6, 198.51.100.1", "198.51.100.1"),
        ("made-up, 6.6.6.6 ,198.51.100.1", "198.51.100.1"),
        ("198.51.100.1:5123", "198.51.100.1"),
        ("[2001:db8::5]:443", "2001:db8::5"),
        ("2001:DB8:0::5", "2001:db8::5"),
    ],
)
def test_behind_one_proxy_the_entry_it_appended_is_the_client(forwarded, client):
    assert client_address(request_from("10.0.0.2", forwarded)) == client


@override_settings(TRUSTED_PROXY_COUNT=1)
@pytest.mark.parametrize("forwarded", [None, "", "not an address", "6.6.6.6, garbage"])
def test_behind_one_proxy_a_missing_or_unreadable_entry_falls_back_to_the_proxy(forwarded):
    assert client_address(request_from("10.0.0.2", forwarded)) == "10.0.0.2"


@override_settings(TRUSTED_PROXY_COUNT=2)
def test_behind_two_proxies_the_outer_ones_entry_is_the_client():
    request = request_from("10.0.0.3", "6.6.6.6, 198.51.100.1, 10.0.0.2")
    assert client_address(request) == "198.51.100.1"
    # Fewer entries than trusted proxies: it did not pass through both, so none is believed.
    assert client_address(request_from("10.0.0.3", "198.51.100.1")) == "10.0.0.3"


def test_ipv6_clients_count_by_their_64_network_and_ipv4_by_address():
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_group("::ffff:198.51.100.1") == "198.51.100.1"
    assert address_group("198.51.100.1") == "198.51.100.1"
