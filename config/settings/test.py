"""Settings for the test suite: fast hashing, in-memory cache, same database choice as CI."""

from .base import *  # noqa: F403
from .base import database_tuned, env

DEBUG = False
SECRET_KEY = "softgrade-test-key-only-for-the-test-suite-0123456789"
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
DATABASES = {
    # Tuned as in production, so the suite on PostgreSQL runs with server-side binding too.
    "default": database_tuned(env.db("DATABASE_URL", default="sqlite:///:memory:")),
}

# Tasks are recorded, not run: the LTI tests run the passback task themselves, step by step.
TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
