# softgrade: `make run` to serve on http://127.0.0.1:8000, `make test` to run the suite.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
PYTEST_ARGS ?=

.PHONY: run install migrate bank worker test lint format bench check-bank check-deploy clean

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

run: bank
	@echo "softgrade is serving on http://$(HOST):$(PORT)/ (admin: /admin/); Ctrl-C stops it."
	$(PY) manage.py runserver $(HOST):$(PORT)

# Runs background tasks (LTI score passback) from the database queue; `make run` does not need it,
# scores simply wait in the queue until a worker runs. Production runs one next to gunicorn.
worker: migrate
	$(PY) manage.py db_worker

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run

format: $(STAMP)
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

check-bank: bank
	$(PY) manage.py check_bank

bench: $(STAMP)
	$(PY) bench/engine_bench.py
	$(PY) bench/api_bench.py

check-deploy: $(STAMP)
	DJANGO_SETTINGS_MODULE=config.settings.production \
	SECRET_KEY=$${SECRET_KEY:-$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(64))')} \
	ALLOWED_HOSTS=$${ALLOWED_HOSTS:-softgrade.example.org} \
	$(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .hypothesis
