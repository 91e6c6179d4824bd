# Skyplan: `make run` sets up and runs the app, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install run prod test lint bench load schemathesis clean

# (setup.py compiles the engine's hot modules: a change to them reinstalls, which compiles them again)
$(STAMP): pyproject.toml setup.py .ci/system-packages simulator/core.py simulator/fluid.py simulator/runner.py
	bash .ci/system-packages
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## Set up (virtualenv, install, migrate, reference catalogue, demo account) and run web server + worker.
run: export DJANGO_DEBUG ?= 1
run: install
	$(BIN)/python manage.py ensure_database
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_catalogue
	$(BIN)/python manage.py ensure_demo_account
	$(BIN)/python manage.py serve

## Production: gunicorn + WhiteNoise and a Celery worker, configured from the environment (README: Production).
prod: install
	bin/serve-prod

## The whole suite against PostgreSQL and Redis (the local servers by default).
test: export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/skyplan
test: export CELERY_BROKER_URL ?= redis://127.0.0.1:6379/15
test: export CELERY_RESULT_BACKEND ?= redis://127.0.0.1:6379/15
test: install
	$(BIN)/python -m ruff check apps simulator tests bench fixtures
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

lint: install
	$(BIN)/python -m ruff check apps simulator tests bench fixtures
	$(BIN)/lint-imports

bench: install
	$(BIN)/python bench/scale.py --scale 1 --slots 64

## Load test: 50 users for 60 s against gunicorn on loopback, on its own database skyplan_load (PostgreSQL).
load: install
	$(BIN)/python bench/load.py

## Schemathesis over every API operation, 12 examples per operation and mode (about 2,400 requests), against PostgreSQL; prints the counts.
schemathesis: export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/skyplan
schemathesis: install
	SKYPLAN_SCHEMATHESIS_CASES=12 $(BIN)/python -m pytest tests/api/test_schemathesis.py -q -s -p no:cacheprovider

clean:
	rm -rf $(VENV) var
