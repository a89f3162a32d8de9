# mpcc: `make demo` and `make test` do all the set-up (a local virtualenv, the
# Python dependencies, the Rust extension). Each step is skipped when its stamp
# file is newer than its inputs, so repeated runs are fast.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

STAMP_DEPS  := $(VENV)/.mpcc-deps
STAMP_BUILD := $(VENV)/.mpcc-build

RUST_SOURCES := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null)

.PHONY: demo test validate bench setup clean tshark chromium

demo: $(STAMP_BUILD)
	$(VENV)/bin/mpcc run scenarios/demo.toml --out results/demo --force
	$(VENV)/bin/mpcc reproduce all --quick --out report
	@echo "Reports: report/index.html, one folder per paper (index.html, report.md, figures, data)."
	@echo "One run: results/demo/*.png for the plots, results/demo/summary.json for the numbers."

# Both suites run even if the first fails; the target fails if either did.
# `ebpf deps` installs clang, libbpf-dev and bpftool for the kernel tests when
# missing and root (tests/test_kernel.py skips, naming what is missing, otherwise).
test: $(STAMP_BUILD)
	@status=0; \
	$(MAKE) -s -C ebpf deps; \
	$(MAKE) -s tshark; \
	$(MAKE) -s chromium; \
	cargo test --workspace --no-fail-fast || status=1; \
	$(PY) -m pytest tests || status=1; \
	exit $$status

# Slow checks against ns-3, the real kernel (the testbed) and closed-form models
# (bench/ and tests marked slow).
# bench/ installs and builds what it needs (the ns3 wheel, its dumbbell program) itself.
validate: $(STAMP_BUILD)
	@status=0; \
	$(PY) bench/validate_ns3.py || status=1; \
	$(PY) bench/validate_testbed.py || status=1; \
	$(PY) bench/validate_testbed.py --whole-run || status=1; \
	$(PY) -m pytest tests -m slow; s=$$?; [ $$s -eq 0 ] || [ $$s -eq 5 ] || status=1; \
	exit $$status

bench: $(STAMP_BUILD)
	$(PY) bench/bench.py
	$(PY) bench/bench_multipath.py
	$(PY) bench/ab.py --base 68e71ae
	$(PY) bench/memory.py
	$(PY) bench/e2e.py

setup: $(STAMP_BUILD)

# chromium opens a reproduction's HTML report in tests/test_reproduce.py: installed when
# missing and root (the test skips, naming what is missing, otherwise).
chromium:
	@command -v chromium >/dev/null 2>&1 && exit 0; \
	if [ "$$(id -u)" -ne 0 ]; then echo "chromium: not root, not installing (the HTML report test will skip)"; exit 0; fi; \
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	  || echo "chromium: could not install (the HTML report test will skip)"

# tshark reads the simulator's packet captures in tests/test_pcap.py: installed when
# missing and root (the test skips, naming what is missing, otherwise).
tshark:
	@command -v tshark >/dev/null 2>&1 && exit 0; \
	if [ "$$(id -u)" -ne 0 ]; then echo "tshark: not root, not installing (tests/test_pcap.py will skip)"; exit 0; fi; \
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null; \
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; } \
	  || echo "tshark: could not install (tests/test_pcap.py will skip)"

$(PY):
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "mpcc: cannot create a virtualenv; on Debian: apt-get install python3-venv" >&2; exit 1; }

# Runtime dependencies are read from pyproject.toml, the one place they are listed.
$(STAMP_DEPS): pyproject.toml | $(PY)
	$(PY) -c "import subprocess, sys, tomllib; \
	  deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']; \
	  sys.exit(subprocess.call([sys.executable, '-m', 'pip', 'install', '--quiet', \
	                            '--disable-pip-version-check', 'maturin>=1.5,<2', 'pytest', *deps]))"
	@touch $@

# The stamp takes the time the build started, so a source edited during the build is
# newer than it and the next `make` builds again.
$(STAMP_BUILD): $(STAMP_DEPS) $(RUST_SOURCES)
	@touch $@.started
	VIRTUAL_ENV=$(CURDIR)/$(VENV) $(VENV)/bin/maturin develop --release
	cargo build --release -p mpcc-emu
	@mv $@.started $@

clean:
	rm -rf results $(STAMP_DEPS) $(STAMP_BUILD)
