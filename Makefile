# qrtune: two commands do all the set-up on a fresh machine.
#   make run   - bootstrap .venv, then open the workbench on the baseline sample
#   make test  - bootstrap .venv, then run the whole suite (offscreen Qt)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SAMPLE ?= sample_runs/redpaper-baseline.json

.PHONY: run test check-qt-libs bench package clean

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

test: .venv check-qt-libs
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: .venv
	$(BIN)/python benchmarks/run_all.py

package: .venv
	$(BIN)/python -m pip install -q -e '.[package]'
	$(BIN)/pyinstaller --noconfirm --distpath dist --workpath build packaging/qrtune.spec

clean:
	rm -rf $(VENV) build dist
