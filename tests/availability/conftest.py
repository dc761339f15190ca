import socket

import pytest
from django.db import OperationalError, connection


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def cache_down(settings):
    """The default cache is a Redis server that does not answer (connection refused)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }


class DatabaseDown:
    """An execute wrapper (Django's public hook on every statement): while `down`, every
    statement fails as it does when PostgreSQL restarts under a connection."""

    def __init__(self):
        self.down = True
        self.refused = 0

    def __call__(self, execute, sql, params, many, context):
        if self.down:
            self.refused += 1
            raise OperationalError("terminating connection due to administrator command")
        return execute(sql, params, many, context)


@pytest.fixture
def database_down():
    outage = DatabaseDown()
    with connection.execute_wrapper(outage):
        yield outage
