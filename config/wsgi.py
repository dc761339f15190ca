"""The WSGI application gunicorn serves (production settings unless told otherwise)."""

import gc
import os

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = get_wsgi_application()


def settle() -> None:
    """Import what the first request would, then take what start-up built out of the garbage
    collector's sight.

    Django imports the URLconf and its views at the first request, and its Redis cache imports
    the redis client at the first rate-limit count (~90 ms): a new worker's first answer took
    ~150 ms under load while others queued behind it. The collector's occasional full pass walks
    every object in the process, ~140,000 after start-up: ~110 ms in which a worker answers
    nobody. Frozen objects are never collected, which start-up's modules, classes and settings
    never are anyway; objects made by requests are collected as before. Nothing here opens a
    connection, so a worker starts whether or not the database and the cache answer yet.
    """
    get_resolver().url_patterns  # noqa: B018 (imports the URLconf and every view it names)
    if isinstance(caches["default"], RedisCache):
        import redis  # noqa: F401
    gc.freeze()


settle()
