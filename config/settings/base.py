"""Settings shared by every environment; each environment module overrides what differs."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
# A local .env file is optional; real deployments set the environment directly.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "courses",
    "grading",
    "integrations",
    "lti_tool",
    "django_tasks_db",
    "lti",
    "teaching",
    "accounts",
]

# Django's ModelBackend, with each request's user fetched with their profile (the time zone the
# middleware reads) in the same query. ModelBackend itself stays listed only for sessions signed
# in before (accounts/backends.py).
AUTHENTICATION_BACKENDS = [
    "accounts.backends.AccountBackend",
    "django.contrib.auth.backends.ModelBackend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Lets the LMS's iframe keep an LTI learner's cookies (SameSite=None; Secure over HTTPS).
    "lti.middleware.EmbeddedCookiesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Every request in its person's language: their choice, else their browser's, else their
    # LMS's, else English (accounts/languages.py decides). First what the browser says, with no
    # database read (so even an outage's page is in it); the profile and the LMS's locale
    # innermost, once the user is known.
    "accounts.middleware.BrowserLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Last, so it runs first on the way out: an LTI session's pages may be framed by its LMS.
    "lti.middleware.PlatformFramingMiddleware",
    # Every request in its person's language and time zone: their setting, else their
    # browser's, else a default. Innermost, after the user is known; reading the user may meet
    # a database outage, whose 503 then goes out through every middleware above, as a view's
    # would (availability/).
    "accounts.middleware.LanguageMiddleware",
    "accounts.middleware.TimeZoneMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # Whether to show the "Teaching" link in the site's navigation.
                "teaching.context_processors.teaching_navigation",
            ],
        },
    },
]


def mailer(email: dict) -> dict:
    """A MAILERS entry from django-environ's email_url() settings (EMAIL_BACKEND, EMAIL_HOST…)."""
    backend = email["EMAIL_BACKEND"]
    if not backend.endswith("smtp.EmailBackend"):
        return {"BACKEND": backend}
    options = {
        "host": email.get("EMAIL_HOST") or "localhost",
        "port": email.get("EMAIL_PORT") or 25,
        "username": email.get("EMAIL_HOST_USER") or "",
        "password": email.get("EMAIL_HOST_PASSWORD") or "",
        "use_tls": bool(email.get("EMAIL_USE_TLS")),
        "use_ssl": bool(email.get("EMAIL_USE_SSL")),
        "timeout": email.get("EMAIL_TIMEOUT") or 10,
    }
    return {"BACKEND": backend, "OPTIONS": options}


def database_tuned(database: dict) -> dict:
    """Connection options that the answer path's cost depends on; DATABASE_URL options win.

    PostgreSQL: parameters bound on the server and statements prepared after a few uses, so each
    connection plans a query once instead of on every request (planning the scoped attempt
    lookup's seven-table join cost more than running it: ~4 ms of a ~15 ms answer). Set
    DATABASE_PREPARED_STATEMENTS=False behind a pooler that cannot keep prepared statements
    (transaction pooling).
    SQLite files: WAL lets readers carry on while one worker writes; synchronous=NORMAL is safe
    with WAL (a power cut may lose the last commits, never corrupt the file) and saves an fsync
    per commit; IMMEDIATE transactions queue for the write lock (up to `timeout`) at BEGIN
    instead of failing mid-transaction with "database is locked" when two workers write at once.
    In-memory databases (the test default) are left as they are.
    """
    options = database.setdefault("OPTIONS", {})
    engine = database.get("ENGINE", "")
    if engine.endswith("postgresql") and env.bool("DATABASE_PREPARED_STATEMENTS", default=True):
        options.setdefault("server_side_binding", True)
        options.setdefault("prepare_threshold", 5)
    name = str(database.get("NAME", ""))
    if engine.endswith("sqlite3") and name and ":memory:" not in name and "mode=memory" not in name:
        options.setdefault("transaction_mode", "IMMEDIATE")
        options.setdefault("timeout", 20)
        options.setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
    return database


# SQLite by default so `make run` needs nothing installed; production and CI set DATABASE_URL.
DATABASES = {
    "default": database_tuned(
        env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
    ),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The first hasher stores every new password (security/passwords.py says why Argon2id and these
# parameters); the others still check passwords stored before, and Django re-hashes such a
# password with the first one when its owner signs in.
PASSWORD_HASHERS = [
    "security.passwords.ExamDayArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
# The languages a person can choose. English and German are complete (`make lint` fails on an
# untranslated German string: the Makefile's COMPLETE_LANGUAGES); Arabic is a stub of a few
# strings that keeps the pages ready for right-to-left languages (docs/languages.md).
LANGUAGES = [
    ("en", "English"),
    ("de", "Deutsch"),
    ("ar", "العربية"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "softgrade_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Who a request comes from (security/addresses.py): how many proxies in front of softgrade each
# append the address they received the request from to X-Forwarded-For. 0 (reached directly):
# REMOTE_ADDR, the header ignored, since any client can write it. Behind one proxy set 1, and
# let softgrade be reached only through that proxy.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)

# Rate limits (security/limits.py: fixed windows counted in the default cache, which every worker
# shares in production), "count/period" with the period in s, m, h or d (15m: fifteen minutes).
# Failed sign-ins per user name and per address (the pages' login and the admin's), sign-up
# requests per address, LTI login initiations per address. A campus often reaches softgrade from
# one address (NAT), so the per-address limits are far above one person's: 600 LTI logins a
# minute is an exam's 3,000 learners launching within five minutes.
# Password reset links go out by email. EMAIL_URL picks the backend (django-environ's forms:
# smtp+tls://user:password@host:587, consolemail://, dummymail://); locally they are printed on
# the console. Production sets its own default (config/settings/production.py). Django 6.1
# configures mail by MAILERS; django-environ still speaks the older EMAIL_* names.
MAILERS = {"default": mailer(env.email_url("EMAIL_URL", default="consolemail://"))}
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="softgrade <noreply@localhost>")

# Failed sign-ins pause a (user name, address) pair and an address; past its own ceiling a user
# name is only slowed, from each address to one try per LOGIN_SLOWDOWN_SECONDS (doubling as the
# failures grow), so a guesser never locks its owner out (security/logins.py has the rule).
LOGIN_FAILURES_PER_PAIR = env("LOGIN_FAILURES_PER_PAIR", default="10/15m")
LOGIN_FAILURES_PER_ADDRESS = env("LOGIN_FAILURES_PER_ADDRESS", default="50/15m")
LOGIN_FAILURES_PER_NAME = env("LOGIN_FAILURES_PER_NAME", default="30/15m")
LOGIN_SLOWDOWN_SECONDS = env.int("LOGIN_SLOWDOWN_SECONDS", default=30)
SIGNUPS_PER_ADDRESS = env("SIGNUPS_PER_ADDRESS", default="30/h")
PASSWORD_RESETS_PER_ADDRESS = env("PASSWORD_RESETS_PER_ADDRESS", default="20/h")
PASSWORD_RESETS_PER_EMAIL = env("PASSWORD_RESETS_PER_EMAIL", default="3/h")
LTI_LOGINS_PER_ADDRESS = env("LTI_LOGINS_PER_ADDRESS", default="600/m")

# Content Security Policy (Django's built-in middleware): every asset is served by softgrade
# itself, so nothing from another host is allowed. Inline scripts are not used at all.
from django.utils.csp import CSP  # noqa: E402

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.SELF],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# The REST API (/api/v1/, docs/api.md): an integration's API key or a learner's session, JSON
# bodies of at most 64 KiB, one error shape, and rate limits per key kept in the default cache
# (shared by every worker in production through CACHE_URL).
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "api.schema.ApiSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "integrations.api.authentication.ApiKeyAuthentication",
        "integrations.api.authentication.LearnerSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.NumberedPages",
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttling.ApiKeyThrottle",
        "api.throttling.LearnerSessionThrottle",
        "api.throttling.AnonymousThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        # One key serves a whole LMS, so its limit is far above one learner's.
        "api_key": env("API_KEY_RATE", default="3000/minute"),
        "learner_session": env("API_SESSION_RATE", default="300/minute"),
        "anonymous": env("API_ANONYMOUS_RATE", default="60/minute"),
    },
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
# Domain errors as the API answers them: the one table from a service's refusal to an HTTP
# status (api/errors.py); the response carries the error's own code and message.
SOFTGRADE_API_ERRORS = {
    # The rules refuse it as things stand (no tries left, attempt closed, key reused...).
    "grading.services.errors.ServiceError": 409,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "softgrade API",
    "DESCRIPTION": "Courses, quizzes, attempts and grades for LMS integrations.",
    "VERSION": "1.0.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    # Fields named "kind" hold two sets of choices: an attempt item's (its name unchanged) and
    # a diagnosis's; naming both keeps each stable in the schema.
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": ["question", "problem"],
        "DiagnosisKindEnum": "teaching.findings.KIND_CODES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.refuse_unknown_fields",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}

# The bank importer and the admin check a Problem's family and parameters through this function,
# named here so the courses app never imports the grading app.
SOFTGRADE_PROBLEM_VALIDATOR = "grading.families.problem_errors"
# The quiz admin and the bank import ask grading what a change of item points does to a quiz's
# attempts, and make it only through grading's audited regrade (grading/quiz_edits.py), named
# here for the same reason. Without them a quiz's items are edited as if it had no attempts.
SOFTGRADE_QUIZ_POINTS_PLAN = "grading.quiz_edits.quiz_points_plan"
SOFTGRADE_QUIZ_POINTS_CHANGE = "grading.quiz_edits.quiz_points_change"
# Deletes the attempts prepared at a quiz and never started, before its items are removed (the
# quiz admin and the bank import call it; grading/services/prepared.py).
SOFTGRADE_QUIZ_PREPARED_DISCARD = "grading.services.prepared.quiz_prepared_discard"

# Background work (Django's Tasks framework): queued tasks are database rows, so a restart loses
# none; `make worker` (manage.py db_worker) runs them. LTI score passback is the first user.
TASKS = {
    "default": {"BACKEND": "django_tasks_db.DatabaseBackend"},
}

# Called (dotted paths, keyword arguments) after the transaction that submits an attempt, or that
# gives a learner mastery of a problem, commits. Grading names them here and never imports lti.
SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS = ["lti.passback.attempt_passback_enqueue"]
SOFTGRADE_MASTERY_CHANGED_HOOKS = ["lti.passback.mastery_passback_enqueue"]

# The instructor pages (teaching/) and LTI know each other only through these dotted paths.
# A launch of an LMS course's instructor or teaching assistant gives them that role in the
# softgrade course (called inside the launch's transaction with user, course and role):
# Every other launch of a link (role None) takes away the role earlier launches gave, never one
# set in the admin.
SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS = ["teaching.services.course_role_from_lms"]
# Where such a launch lands (called with user, quiz and lesson; returns a path, or None to land
# on the learner's page): the instructor page of the link's quiz, or of its lesson's course.
SOFTGRADE_LAUNCH_TEACHING_LANDING = "teaching.launch_landing.teaching_landing_url"
# The LMS course each learner launched a quiz from, {user id: course name} for a quiz, so the
# results grid groups learners by it and lists those an LMS sent who made no attempt yet:
SOFTGRADE_LEARNER_LMS_CONTEXTS = ["lti.selectors.quiz_learner_contexts"]
# The LMS links to a quiz whose own instructor view (members, roster sync, scores sent) a user
# may open, [(name, path)], listed on the results grid where an instructor's launch lands:
SOFTGRADE_QUIZ_LMS_LINK_VIEWS = "lti.selectors.quiz_link_views"
# The LMS identity an LTI launch gave each of some accounts, {user id: (registration id, sub)},
# so the grades API tells LTI learners apart and gives a `sub` only to the LMS that sent them:
SOFTGRADE_LEARNER_LMS_SUBJECTS = ["lti.selectors.learner_lms_subjects"]
# Who may override and regrade a quiz's scores (grading.overrides asks it, with user and quiz):
# the instructors of the quiz's course and superusers; teaching assistants only look.
SOFTGRADE_SCORE_CHANGE_RULE = "teaching.access.may_change_scores"
# Who may preview a quiz as a learner sees it (grading.services.previews asks it, with user and
# quiz): anyone who teaches the quiz's course (instructors, teaching assistants) and superusers.
SOFTGRADE_PREVIEW_RULE = "teaching.access.teaches_quiz"
# A prepared attempt (made when its learner opened the quiz page, grading/services/prepared.py)
# never started is deleted this many days after it was made, or once its quiz has closed for its
# learner, by `manage.py delete_prepared_attempts` (compose.yaml's sweeps run it hourly).
SOFTGRADE_PREPARED_ATTEMPT_DAYS = env.int("SOFTGRADE_PREPARED_ATTEMPT_DAYS", default=7)
# The courses a user instructs (lti.access asks it, with user, for who may open an LMS link's
# instructor view and sync its roster besides those given the model permission): the courses'
# instructors and superusers, never staff status alone.
SOFTGRADE_COURSES_INSTRUCTED = "teaching.access.courses_instructed"

# LTI 1.3 (docs/lti.md). Every call to an LMS has these (connect, read) timeouts in seconds.
LTI_HTTP_TIMEOUT = (
    env.float("LTI_CONNECT_TIMEOUT", default=3.0),
    env.float("LTI_READ_TIMEOUT", default=10.0),
)
# After a key rotation the previous key stays in the JWKS this long, so platforms that cached it
# still verify what softgrade signed just before the rotation.
LTI_KEY_OVERLAP_DAYS = env.int("LTI_KEY_OVERLAP_DAYS", default=7)
# Seconds of clock difference tolerated between softgrade and an LMS on exp and iat.
LTI_CLOCK_LEEWAY = env.int("LTI_CLOCK_LEEWAY", default=60)
# Calls to an LMS may go to private, loopback and link-local addresses only when this is true:
# for an LMS on the developer's own machine, never in production (docs/lti.md, "Outbound calls").
LTI_ALLOW_PRIVATE_HOSTS = env.bool("LTI_ALLOW_PRIVATE_HOSTS", default=False)

# Rendered lesson text (Markdown + MathML) kept by each worker process, so a page renders each
# text once, not on every request (courses/markup.py, docs/performance.md). 64 MiB holds the
# shipped lesson (0.35 MiB) and the problem statements of a 3,000-learner exam (6 problems each).
MARKUP_MEMO_BYTES = env.int("MARKUP_MEMO_BYTES", default=64 * 2**20)
# Seconds rendered markup stays in the cache every worker shares (courses/render_cache.py): a
# day covers an exam and its preparation; a text's key never goes stale, only unused.
MARKUP_CACHE_SECONDS = env.int("MARKUP_CACHE_SECONDS", default=24 * 60 * 60)

# A Moodle XML file over either limit is refused, with the line where it is crossed, before it
# costs more than a few seconds and a few hundred MB (courses/moodle_xml/tree.py). A question is
# some 20 to 60 elements and attributes: the defaults hold thousands of questions.
MOODLE_XML_MAX_BYTES = env.int("MOODLE_XML_MAX_BYTES", default=20 * 2**20)
MOODLE_XML_MAX_ELEMENTS = env.int("MOODLE_XML_MAX_ELEMENTS", default=250_000)
