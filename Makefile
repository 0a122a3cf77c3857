# qrtune: two commands do all the set-up on a fresh machine.
#   make run   - bootstrap .venv, then open the workbench on the baseline sample
#   make test  - bootstrap .venv, then run the whole suite (offscreen Qt)
#   make fuzz  - the fuzz suite with a large budget (FUZZ_EXAMPLES per property, 20,000+ inputs)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SAMPLE ?= sample_runs/redpaper-baseline.json

.PHONY: run test fuzz check-qt-libs check-test-tools bench package clean

$(VENV)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,dask]'
	touch $@

.venv: $(VENV)/.installed

run: .venv check-qt-libs
	$(BIN)/qrtune gui $(SAMPLE)

check-qt-libs:  # with DISPLAY set it also checks the desktop (xcb) plugin's libraries
	@$(PYTHON) packaging/check_qt_libs.py

check-test-tools:  # the window's libraries plus what the tests use (poppler-utils for the PDF tests)
	@$(PYTHON) packaging/check_qt_libs.py --for-tests

# The suite runs in TEST_WORKERS processes (pytest-xdist; the machine type has 2 cores).
# TEST_WORKERS=0 runs it in this one process, which also prints the fuzz tests' tally.
TEST_WORKERS ?= 2
test: .venv check-test-tools
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n $(TEST_WORKERS)

# Each example runs under a 20 s alarm; the process may grow by at most FUZZ_MEMORY_GB over its
# warm size. Figures (inputs tried, clean errors, tracebacks, hangs) are printed and kept in FUZZ_REPORT.
FUZZ_EXAMPLES ?= 4000
FUZZ_MEMORY_GB ?= 4
FUZZ_REPORT ?= fuzz-report.json
fuzz: .venv
	QT_QPA_PLATFORM=offscreen QRTUNE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) QRTUNE_FUZZ_MEMORY_GB=$(FUZZ_MEMORY_GB) \
		QRTUNE_FUZZ_REPORT=$(FUZZ_REPORT) $(BIN)/python -m pytest tests/fuzz -p no:cacheprovider

bench: .venv
	$(BIN)/python benchmarks/run_all.py

package: .venv
	$(BIN)/python -m pip install -q -e '.[package]'
	$(BIN)/pyinstaller --noconfirm --distpath dist --workpath build packaging/qrtune.spec

clean:
	rm -rf $(VENV) build dist
