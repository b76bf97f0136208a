# make verify : set up .venv if needed (dcpcheck without the dev tools), then run every built-in variant x property (single-node matrix, then the durability model)
# make test   : set up .venv if needed, then run the whole test suite (ruff, mypy, then pytest on
#               TEST_WORKERS parallel workers: pytest-xdist, one Spark JVM per worker;
#               the ten slowest tests listed at the end)
# make coverage : make test's pytest run, measuring branch coverage of spec/ and checker/
# make lint / make bench / make clean

# The interpreter .venv is made with (PYTHON=/path/to/python3.11 chooses another): the
# system's /usr/bin/python3 when it is 3.11 or newer and can make a venv, else the first
# python3 on PATH. Debian's python3.11 is built with profile-guided and link-time
# optimisation (/usr/share/doc/python3.11/changelog.Debian.gz: "Enable LTO/PGO builds")
# into one binary without libpython.so (ldd); pyenv builds without either unless
# configured with --enable-optimizations, and this machine's first python3 on PATH is
# such a build (pyenv's 3.11.7: --enable-shared, nothing more, in its CONFIG_ARGS).
# make test takes about a tenth less with it (benchmarks/RESULTS.md, 2026-11-28). A .venv
# made before keeps its interpreter: make clean, then make, to change it.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in /usr/bin/python3 python3; do \
  if $$p -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; \
  then echo $$p; exit; fi; done; echo python3)
endif
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.dcpcheck-installed
RUNTIME := $(VENV)/.dcpcheck-runtime
SPARK_MASTER ?= local[*]
# make test's pytest workers: by default one more than the CPU cores, at most 4. A worker
# often waits (a JVM starting, a subprocess, a timeout a test provokes), and a third
# worker on 2 cores fills some of those waits; a fourth makes JVMs compete
# (benchmarks/RESULTS.md, 2026-11-27).
# Tests that must share a worker (a doc's examples, in order; a test module) form one work
# unit (tests/conftest.py).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$((n + 1 < 4 ? n + 1 : 4)))
PYTEST_PARALLEL := -n $(TEST_WORKERS) --maxprocesses 4 --dist loadgroup
# make verify's bounds: every verdict holds (or is violated) for scenarios this big.
VERIFY_BOUNDS ?= --seqnos 8 --keys 3 --entries 5 --failovers 3

# The HTML report test renders pages in Debian's chromium; installed here when missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get

# Byte-code of the project's own modules, written once before a run: where
# PYTHONDONTWRITEBYTECODE is set (as on these machines) every dcpcheck process, test
# subprocess and Spark Python worker would otherwise compile spec/ and checker/ again
# (the cost: benchmarks/RESULTS.md).
COMPILE := $(BIN)/python -m compileall -q -j 0 spec checker benchmarks >/dev/null

.PHONY: setup verify test static coverage lint bench clean check-tools browser

setup: $(STAMP)

check-tools:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "make: $(PYTHON) is older than 3.11; dcpcheck needs Python >= 3.11 (set PYTHON=/path/to/python3.11)"; exit 2; }
	@command -v java >/dev/null 2>&1 || \
	  { echo "make: java not found: Spark (pyspark) needs Java 17 or newer; install it (Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME"; exit 2; }
	@java -version 2>&1 | awk -F'"' '/version/ { split($$2, v, "."); exit (v[1] >= 17 ? 0 : 1) }' || \
	  { echo "make: java is older than 17 ($$(java -version 2>&1 | head -1)); pyspark 4 needs Java 17 or newer"; exit 2; }

# setup (make test, lint, ...): dcpcheck and the dev tools; make verify needs only dcpcheck
# and what it imports ($(RUNTIME)): on a fresh clone that installs no pytest, ruff or mypy
# (their download and install: benchmarks/RESULTS.md, 2026-11-29). A later make test adds them.
# pip would byte-compile every module it installs, one after another, test suites included
# (pandas' are half its files); here what is installed is compiled on every core, but for
# what no dcpcheck process imports: test suites, pip, pyspark's examples (benchmarks/RESULTS.md,
# 2026-11-29).
# pyspark 4 is an sdist only (456 MB, mostly jars): on a machine whose pip cache does not hold
# its wheel yet, pip builds one, and deflating jars that are zip files already took 66.6 s
# (40 CPU s) against 26.0 s (17 CPU s) storing them (benchmarks/RESULTS.md, 2026-11-29).
# (pip hands --config-settings only to the packages named on its command line: so pyspark is.)
INSTALL := $(BIN)/pip install --quiet --no-compile -c constraints.txt \
  --config-settings=--build-option=--compression=stored pyspark -e
# The venv: made without pip's bundled copy and given today's pip by the interpreter's own
# pip (pip >= 22.3, --python), 1.5-1.7 s against 6.4-7.5 for ensurepip and then an upgrade
# (benchmarks/RESULTS.md, 2026-11-29); ensurepip where that fails (no pip beside $(PYTHON)).
MAKE_VENV := { $(PYTHON) -m venv --without-pip $(VENV) && \
  $(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile --upgrade pip 2>/dev/null; } || \
  { $(PYTHON) -m venv --clear $(VENV) && $(BIN)/pip install --quiet --upgrade pip; }
COMPILE_INSTALLED := $(BIN)/python -m compileall -q -j 0 -x '/tests?/|/site-packages/pip/|/pyspark/examples/' \
  "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" >/dev/null

$(STAMP): pyproject.toml constraints.txt | check-tools
	$(MAKE_VENV)
	$(INSTALL) '.[dev]'
	$(COMPILE_INSTALLED)
	@touch $(STAMP) $(RUNTIME)

$(RUNTIME): pyproject.toml constraints.txt | check-tools
	$(MAKE_VENV)
	$(INSTALL) .
	$(COMPILE_INSTALLED)
	@touch $(RUNTIME)

verify: $(RUNTIME)
	@$(COMPILE)
	$(BIN)/dcpcheck verify --master '$(SPARK_MASTER)' $(VERIFY_BOUNDS)

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "make: installing Debian's chromium (tests/test_html_browser.py renders the HTML reports)"; \
	  $(APT) install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || \
	  { $(APT) update -qq >/dev/null && $(APT) install -y -qq --no-install-recommends chromium >/dev/null; } || \
	  { echo "make: could not install chromium; install Debian's chromium package by hand"; exit 2; }; }

# The class-data archive every Spark JVM of a test run maps (tests/sparkjvm.py): written
# once after set-up by a small Spark run, it shortens each JVM's start (benchmarks/RESULTS.md).
SPARK_CLASSES := $(VENV)/spark-classes.jsa
TEST_ENV := DCPCHECK_TEST_SPARK_CLASSES=$(abspath $(SPARK_CLASSES))

$(SPARK_CLASSES): $(STAMP) tests/sparkjvm.py tests/spark-conf/spark-defaults.conf
	@echo "make: writing the tests' Spark class-data archive ($(SPARK_CLASSES))"
	$(BIN)/python tests/sparkjvm.py $(SPARK_CLASSES)

# Before pytest, side by side: the archive (one core for 31-40 s), ruff, mypy and the byte-code
# (about 10 s of the other core), and chromium's install where it is missing (the network).
test: $(STAMP)
	@$(MAKE) --no-print-directory -j 3 browser $(SPARK_CLASSES) static
	$(TEST_ENV) $(BIN)/python -m pytest -q $(PYTEST_PARALLEL) --durations=10

static: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	@$(COMPILE)

coverage: $(STAMP) browser $(SPARK_CLASSES)
	@$(COMPILE)
	$(TEST_ENV) $(BIN)/python -m pytest -q $(PYTEST_PARALLEL) --cov=spec --cov=checker --cov-branch \
	  --cov-report=term:skip-covered --cov-report=json:coverage.json

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis build *.egg-info .coverage coverage.json
