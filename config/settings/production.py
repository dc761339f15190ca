"""Production settings: configuration comes only from the environment.

Starting without SECRET_KEY or ALLOWED_HOSTS is refused outright: a guessable key forges sessions,
and an empty host list would make every request fail with a confusing 400.
"""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env, mailer

DEBUG = False
SECRET_KEY = env("SECRET_KEY", default="")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a random value of at least 50 characters in production."
    )
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=[])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must list the host names softgrade is served on.")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)  # noqa: F405
# Off by default: a health check is a SELECT 1 round trip at the start of every request that
# touches the database, an eighth of an answer's statements. Without it, a connection the
# database dropped fails one request (a 503 with Retry-After, availability/outages.py; answers
# and sheets are safe to send again with their Idempotency-Key or submission token), and Django
# then replaces it. Under load a restart costs no more than that: each worker's first request
# during the outage drops its connection, and new ones are opened once the database is back
# (docs/performance.md, "Faults"). Set CONN_HEALTH_CHECKS=True where connections are dropped
# often while workers sit idle (a database that fails over routinely).
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=False)  # noqa: F405

# HTTPS only: the service sits behind a TLS-terminating proxy that sets X-Forwarded-Proto.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"

# Never the console here: a reset link in the logs would let anyone who reads them into the
# account. Without EMAIL_URL, mail goes to the host's own mail relay on port 25; if none answers,
# the task worker that sends it logs the failure (the reset page answered long before).
MAILERS = {"default": mailer(env.email_url("EMAIL_URL", default="smtp://localhost:25"))}

# Throttles and sessions must be shared by every gunicorn worker.
CACHES = {
    "default": env.cache("CACHE_URL", default="locmemcache://"),
}
