"""Developer settings: `make run` uses these. Never deploy them."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
# A fixed key is acceptable only here: local data is throwaway and the server binds to loopback.
SECRET_KEY = env("SECRET_KEY", default="softgrade-local-development-key-not-for-production")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
# An LMS on the developer's own machine (a local test LMS) is on a loopback or private address.
LTI_ALLOW_PRIVATE_HOSTS = env.bool("LTI_ALLOW_PRIVATE_HOSTS", default=True)
