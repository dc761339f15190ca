# softgrade: `make run` to serve on http://127.0.0.1:8000, `make test` to run the suite.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
HTTPS_PORT ?= 8443
DEV_CERTIFICATE := .dev-certificate
PYTEST_ARGS ?=

.PHONY: run run-https install migrate bank worker test lint format bench bench-exam check-bank check-deploy clean messages catalogs

# Languages (docs/languages.md): complete ones fail `make lint` on any untranslated string; stub
# ones hold a few strings and fall back to English for the rest.
COMPLETE_LANGUAGES := de
STUB_LANGUAGES := ar
MESSAGE_OPTIONS := $(addprefix -l ,$(COMPLETE_LANGUAGES) $(STUB_LANGUAGES)) --no-obsolete \
	--add-location=file --ignore=tests --ignore=bench --ignore=staticfiles --ignore=docs

$(STAMP): pyproject.toml
	@test -x $(PY) || { base=$$(bin/find-python) && echo "Creating $(VENV) with $$base" && "$$base" -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

migrate: $(STAMP)
	$(PY) manage.py migrate --noinput

bank: migrate
	$(PY) manage.py import_bank

run: bank catalogs
	@echo "softgrade is serving on http://$(HOST):$(PORT)/ (admin: /admin/); Ctrl-C stops it."
	$(PY) manage.py runserver $(HOST):$(PORT)

# HTTPS on this machine, as an LMS's iframe needs (docs/lti.md): a self-signed certificate for
# localhost is made at the first run (in .dev-certificate/, git-ignored), then gunicorn serves
# the local settings with it and reloads on code changes.
run-https: bank catalogs
	$(PY) manage.py lti_dev_certificate --dir $(DEV_CERTIFICATE)
	@echo "softgrade is serving on https://localhost:$(HTTPS_PORT)/ (the browser warns once about the certificate); Ctrl-C stops it."
	DJANGO_SETTINGS_MODULE=config.settings.local $(VENV)/bin/gunicorn config.wsgi \
		--bind $(HOST):$(HTTPS_PORT) --reload --workers 2 \
		--certfile $(DEV_CERTIFICATE)/localhost.crt --keyfile $(DEV_CERTIFICATE)/localhost.key

# Runs background tasks (LTI score passback) from the database queue; `make run` does not need it,
# scores simply wait in the queue until a worker runs. Production runs one next to gunicorn.
worker: migrate
	$(PY) manage.py db_worker

test: $(STAMP) catalogs
	$(PY) -m pytest $(PYTEST_ARGS)

# Extract every string a person reads into the catalogs (locale/<language>/LC_MESSAGES/*.po), for
# translators; then `make catalogs` compiles them (the compiled .mo files are built, not kept).
messages: $(STAMP)
	$(PY) manage.py makemessages $(MESSAGE_OPTIONS)
	$(PY) manage.py makemessages -d djangojs $(MESSAGE_OPTIONS)

catalogs: $(STAMP)
	@command -v msgfmt >/dev/null || { echo "GNU gettext is needed to build the catalogs (apt-get install gettext)" >&2; exit 2; }
	$(PY) manage.py compilemessages --ignore=.venv --ignore=staticfiles --ignore=node_modules

lint: $(STAMP) messages
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
	bin/check-translations $(COMPLETE_LANGUAGES)

format: $(STAMP)
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

check-bank: bank
	$(PY) manage.py check_bank

bench: $(STAMP) catalogs
	$(PY) bench/engine_bench.py
	$(PY) bench/pages_bench.py
	$(PY) bench/language_bench.py
	$(PY) bench/discovery_bench.py
	$(PY) bench/reports_bench.py
	$(PY) bench/api_bench.py

# Exam day (docs/performance.md): 3,000 learners by default, arriving over the 5 minutes before
# the exam opens and starting at the opening instant, on gunicorn + PostgreSQL + Redis, with
# whole-box CPU per phase against issue 22's goals; e.g. `make bench-exam EXAM_ARGS="--learners
# 300 --arrival-seconds 30 --think-scale 0.1"` for a quick run, `--instances 2` for two
# application nodes, `--signins 600` to measure sign-ins, `--faults` to kill a worker and
# restart this machine's Redis and PostgreSQL mid-exam. BENCH_PG_DATABASE names its database.
EXAM_ARGS ?=
bench-exam: $(STAMP)
	$(PY) bench/exam_day.py $(EXAM_ARGS)

check-deploy: $(STAMP)
	DJANGO_SETTINGS_MODULE=config.settings.production \
	SECRET_KEY=$${SECRET_KEY:-$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(64))')} \
	ALLOWED_HOSTS=$${ALLOWED_HOSTS:-softgrade.example.org} \
	$(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .hypothesis
