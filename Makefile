# Pulse — every target sets itself up from a fresh clone (a .venv with pinned versions).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DEMO_DB := var/demo.db
# QtWebEngine's sandbox refuses to run as root (CI runs as root)
ifeq ($(shell id -u),0)
export QTWEBENGINE_DISABLE_SANDBOX := 1
endif

.PHONY: setup run demo-cli test lint bench screenshots package self-test-package dist check-platforms clean

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

$(DEMO_DB): $(STAMP) resources/demo/demo_memory.json
	mkdir -p var
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(VENV)/bin/pulse --db $(DEMO_DB) demo

# The desktop app on the demo memory (needs a display; set QT_QPA_PLATFORM=xcb or similar).
run: $(DEMO_DB)
	$(PY) -m pulse_desktop --db $(DEMO_DB)

screenshots: $(DEMO_DB)
	QT_QPA_PLATFORM=offscreen $(PY) -m pulse_desktop --db $(DEMO_DB) --screenshots docs/screenshots

# The engine on the demo memory from the terminal.
demo-cli: $(DEMO_DB)
	$(VENV)/bin/pulse --db $(DEMO_DB) stats
	$(VENV)/bin/pulse --db $(DEMO_DB) retrieve "feeling abandoned" --now 2026-11-01T12:00:00Z
	$(VENV)/bin/pulse --db $(DEMO_DB) verify

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check core pulse_desktop tests bench

bench: $(STAMP)
	$(PY) bench/run_all.py

# The one-folder desktop bundle (PyInstaller, QtWebEngine included): dist/pulse/{pulse-desktop,pulse}.
# Build tools are pinned in packaging/requirements.txt (not needed to run or test Pulse).
PKG_STAMP := $(VENV)/.packaging-installed
$(PKG_STAMP): $(STAMP) packaging/requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check -r packaging/requirements.txt
	touch $(PKG_STAMP)

package: $(PKG_STAMP)
	nice $(VENV)/bin/pyinstaller --noconfirm --log-level WARN --distpath dist \
		--workpath build/pyinstaller packaging/pulse.spec
	cp packaging/pulse.desktop packaging/install-desktop-entry.sh dist/pulse/

# Opens the demo memory offscreen, renders the graph page, runs one retrieval, exits 0.
self-test-package:
	test -x dist/pulse/pulse-desktop || $(MAKE) package
	QT_QPA_PLATFORM=offscreen dist/pulse/pulse-desktop --self-test

# An sdist and a wheel of pulse-memory in dist/ (the wheel is built from the sdist, which proves
# the sdist complete). `pipx install dist/pulse_memory-*.whl` gives `pulse` and `pulse-desktop`
# (docs/install.md; tests/test_dist.py installs it into a fresh environment).
DIST_DIR ?= dist
dist: $(STAMP)
	rm -f $(DIST_DIR)/pulse_memory-*
	$(PY) -m build --outdir $(DIST_DIR) .

# Resolve the locked runtime dependencies for Windows, macOS and Linux on Python 3.11-3.13 and
# check that docs/install.md shows the same table (needs only the package index; ~10 min).
check-platforms: $(STAMP)
	$(PY) packaging/check_platforms.py --check-docs

clean:
	rm -rf $(VENV) var build dist *.egg-info
