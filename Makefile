# iolens: `make demo` and `make test` do all set-up on a fresh Debian machine.
SHELL := /bin/bash
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
DEMO_DIR ?= .demo
DEMO_DB ?= $(DEMO_DIR)/iolens.duckdb
HOST ?= 127.0.0.1
PORT ?= 8000
DATASETS := $(sort $(wildcard datasets/*/*.iolens.tar.gz))
# backend/native (Rust) is built by `uv sync` through maturin, which needs cargo: rustup puts it in
# ~/.cargo/bin, Debian's cargo-web (installed by deps-system where none will do) in /usr/bin.
# uv's own folder goes on PATH too: `pip install --user` puts it in ~/.local/bin, which a fresh shell
# may not have, and Playwright's web server runs `uv run iolens serve`.
export PATH := $(dir $(UV)):$(HOME)/.cargo/bin:$(PATH)

.PHONY: readme-shots help deps deps-system deps-python deps-python-pure deps-node build build-frontend api-client demo serve test test-python \
        test-python-rest test-python-rest-a test-python-rest-b test-python-rest-c test-python-collect test-python-lab test-rust test-unit test-e2e typecheck clean bench lab-deps lab-kernel lab-datasets lint-python bundle-schema

help:
	@echo "make demo   install, build, load datasets/ and serve on http://$(HOST):$(PORT)/"
	@echo "make test   install what tests need and run every suite (Python, TypeScript, browser)"
	@echo "make build  build the frontend into frontend/dist"
	@echo "make readme-shots  retake the README's screenshots (docs/screenshot-*.png) from the e2e suite"
	@echo "make api-client  regenerate frontend/src/api/schema.d.ts from the backend's OpenAPI schema"
	@echo "make bundle-schema  regenerate docs/bundle-manifest.schema.json from the bundle manifest's model"
	@echo "make bench  run every benchmark in bench/ (needs root and perf; not part of make test)"
	@echo "make lab-deps  install what the kernel lab needs to build kernels too (docs/lab.md)"

deps: deps-system deps-python deps-node

deps-system:
	@bash scripts/install-system-deps.sh

$(UV):
	@echo "installing uv (Python package manager) from PyPI ..." >&2
	python3 -m pip install --quiet --user uv || python3 -m pip install --quiet --break-system-packages --user uv

# Bytecode is compiled ahead (site-packages by uv, our own modules by compileall): where the
# environment sets PYTHONDONTWRITEBYTECODE (the machines this was measured on do), no process writes
# __pycache__, so every `iolens serve`/`ingest` a test starts compiled fastapi, pydantic and iolens
# from source again: importing the app took 2.8-3.3 s of CPU without .pyc files, 1.3-1.7 s with them
# (2026-11-28). Python checks each .pyc against its source's mtime and size, so a stale one is not used.
# Two steps: everything but the compiled core first (deps-python-pure, seconds), which is all that the
# collectors' tests, the kernel lab's and the lint need, so that under `make test` they run while uv
# sync builds the core (--inexact: a core installed already stays); then the core.
deps-python-pure: $(UV)
	@$(call setup,uv-sync-pure) $(UV) sync --frozen --quiet --compile-bytecode --inexact --no-install-package iolens-native
	@$(UV) run --frozen --no-sync python -m compileall -q -j0 backend/iolens collectors/iolens_collect collectors/iolens_lab > /dev/null

deps-python: deps-python-pure
	@bash scripts/install-system-deps.sh --check-rust
	@$(call setup,uv-sync) $(UV) sync --frozen --quiet --compile-bytecode

deps-node: node_modules/.package-lock.json

node_modules/.package-lock.json: package-lock.json package.json frontend/package.json
	@$(call setup,npm-ci) npm ci --no-audit --no-fund --loglevel=error

build: deps-python build-frontend

# The bundle alone (frontend/dist): it needs npm ci, not uv sync, so `make test` builds it while uv sync
# compiles the Rust core.
build-frontend: deps-node
	@$(call setup,build) npm run --silent build

api-client: deps-python deps-node
	npm run --silent gen:api

# The JSON Schema of manifest.json, from the model in backend/iolens/bundle/manifest.py.
bundle-schema: deps-python
	$(UV) run python -m iolens.bundle.schema > docs/bundle-manifest.schema.json

# The comparisons of the kernel lab's datasets and notebooks of other datasets (scripts/lab-demo-url.py
# --demo): `make demo` prints them and opens the first, 6.12 built plain vs with CONFIG_LOCK_STAT
# (datasets/vmlab-*).
demo: deps build
	@mkdir -p $(DEMO_DIR)
	$(UV) run iolens ingest --db $(DEMO_DB) $(DATASETS)
	@links=$$(cd $(CURDIR) && python3 scripts/lab-demo-url.py --demo http://$(HOST):$(PORT)) && \
	  if [ -n "$$links" ]; then \
	    echo "" && echo "  the kernel lab's comparisons and datasets' notebooks (the first opens):" && \
	    while IFS= read -r l; do echo "  - $$l"; done <<< "$$links" && echo "" && \
	    url=$${links%%$$'\n'*} && url=http$${url#*: http} && \
	    { [ -n "$$DISPLAY" ] && command -v xdg-open >/dev/null && (sleep 3; xdg-open "$$url" >/dev/null 2>&1) & true; }; fi
	$(UV) run iolens serve --db $(DEMO_DB) --host $(HOST) --port $(PORT)

serve: build
	$(UV) run iolens serve --host $(HOST) --port $(PORT)

# `make test`: the system packages first, then everything else in one make, the suites side by side
# (CI has 2 cores; a lane that waits lets another compute): Vitest and eslint as soon as npm ci is
# done, beside uv sync's build of the Rust core (they waited behind the lab's test, itself behind uv
# sync); as soon as the Python packages but the core are installed (deps-python-pure, seconds), beside
# that build too, ruff and the import contracts, the collectors' tests (real fio and perf runs, more
# waiting than computing) and the kernel lab's test (a qemu guest booted twice: it waits on the guest
# more than it computes); after uv sync, the Rust core's own tests (on the dependencies uv sync built),
# backend/tests in three pytest runs (one pytest alone was the long pole: 15 min of a 16 min run, most
# of its end on one core while the other idled) and the browser tests after the build (the largest
# CPU item: alone, their lane counted 204 s while the machine was busy 692 s, /proc/stat, 2026-11-28:
# the browser's processes are not in the lane's figure; with every process counted, 657 s, 475 s of it
# the browser's; ~481 s since eight spec files share a context per file, frontend/e2e/filePage.ts,
# ~26 s less since four more do, storage cleared per test).
# Each suite's output is printed whole when it ends, with its wall and CPU time, and so are uv sync's,
# npm ci's and the build's. Every suite runs (-k) and any failure fails `make test`. IOLENS_BUILT=1:
# the build is part of this make run.
# The compiled core is built in Cargo.toml's `suite` profile here (MATURIN_PEP517_ARGS), which the Rust
# lane's #[test]s build on (test-rust below); `make demo`, `uv sync` and `uv run` without it build the
# release profile again (uv's cache key, backend/native/iolens_native/pyproject.toml).
# While they run, scripts/heartbeat.sh prints a line every minute naming the steps still running and
# for how long (held output would otherwise leave a CI job silent for minutes).
TEST_LANES := test-rust test-unit lint-python test-python-collect test-python-rest-a test-python-rest-b test-python-rest-c \
              test-e2e test-python-lab
test: deps-system
	@lanes=$$(mktemp -d) && export IOLENS_LANES=$$lanes MATURIN_PEP517_ARGS="--profile suite" && { bash scripts/heartbeat.sh $$lanes & hb=$$!; } && \
	  $(MAKE) --no-print-directory -k -j$(words $(TEST_LANES)) --output-sync=target IOLENS_BUILT=1 $(TEST_LANES); \
	  rc=$$?; kill $$hb; wait $$hb; rm -rf $$lanes; exit $$rc

# The kernel lab (docs/lab.md): qemu and friends come with deps-system; lab-deps adds the kernel
# build tools; lab-kernel fetches the Debian kernel the lab's test boots (into the lab's cache).
lab-deps: deps-python
	@LAB_BUILD=1 bash scripts/install-system-deps.sh

lab-kernel: deps-system deps-python-pure
	@cd collectors && $(UV) run --frozen --no-sync python -m iolens_lab prepare tests/lab/smoke.toml || \
	  echo "lab-kernel: could not fetch the lab's test kernel; its test will say why" >&2

# The Python suite is five pytest runs, so that `make -j5 test-python` runs them side by side: the
# kernel lab's (collectors/tests/test_lab.py, its guest boots take minutes of one qemu), the collectors'
# other tests (real fio and perf runs: they wait more than they compute), both on deps-python-pure, so
# under `make test` while uv sync builds the compiled core; and backend/tests in three runs of about
# equal CPU: (a) the tests that run `iolens` as processes (team server, CLI, notebooks' export, parser
# limits) or ingest big texts (the streamed and early ingests, which share one compressed text per run);
# (c) the native core against the Python reference, the parsers' fuzzing and the flame, scheduler,
# timeline, block and comparison views; (b) the rest of backend/tests (a new test file lands there).
# On a fresh clone (load 13-32, 2026-11-28) a, b and c took 190, 162 and 100 s of CPU, a then with the
# collectors' tests and without test_ingest_early, c without the block, comparison and headline modules.
# (backend/tests/formats stays in one run: its modules import their conftest by name, which another
# folder's conftest would shadow.)
# Each prints its wall and CPU time (bash's `time`). ruff and the import contracts (lint-python) are
# a step of their own, not in front of a pytest run.
LAB_TESTS := collectors/tests/test_lab.py
PY_REST_A := $(addprefix backend/tests/test_,team_server.py cli.py ingest_streamed.py ingest_early.py notebooks.py \
             parser_limits.py lock_stat_api.py)
PY_REST_C := $(addprefix backend/tests/test_,block_native.py fuzz_parsers.py offcpu_native.py sched.py sched_range.py \
             flame_answer.py flame_time.py flame_heatmap.py timeline.py timeline_export.py export_selection.py \
             gzip_damage.py lock_stacks_api.py block.py block_fio.py capture_headlines.py comparison.py)
timed = $(call lane,$@) TIMEFORMAT="$@: %0R s wall, %0U s user + %0S s system CPU"; time
# $(call lane,NAME): under `make test`, marks the step NAME as running for scripts/heartbeat.sh while the
# rest of the recipe line runs (its start time in $IOLENS_LANES/NAME, removed when the line's shell exits).
lane = $(if $(IOLENS_LANES),date +%s > $(IOLENS_LANES)/$(1); trap 'rm -f $(IOLENS_LANES)/$(1)' EXIT;)
# $(call setup,NAME): a set-up step (uv sync, npm ci, the frontend build) as a lane; under `make test`
# timed too, as the suites are (what the set-up costs is part of what `make test` costs).
setup = $(call lane,$(1)) $(if $(IOLENS_LANES),TIMEFORMAT="$(1): %0R s wall$(comma) %0U s user + %0S s system CPU"; time)
comma := ,
test-python: test-python-rest test-python-collect test-python-lab lint-python

test-python-rest: test-python-rest-a test-python-rest-b test-python-rest-c

test-python-rest-a: deps-python
	@$(timed) $(UV) run pytest -q -p no:cacheprovider $(PY_REST_A)

test-python-rest-b: deps-python
	@$(timed) $(UV) run pytest -q -p no:cacheprovider backend/tests $(addprefix --ignore=,$(PY_REST_A) $(PY_REST_C))

test-python-rest-c: deps-python
	@$(timed) $(UV) run pytest -q -p no:cacheprovider $(PY_REST_C)

# The collectors' and the kernel lab's tests need no compiled core: they run on deps-python-pure (uv run
# --no-sync, or uv would build the core itself).
test-python-collect: deps-python-pure
	@$(timed) $(UV) run --frozen --no-sync pytest -q -p no:cacheprovider --ignore=$(LAB_TESTS) collectors/tests

test-python-lab: deps-python-pure lab-kernel
	@$(timed) $(UV) run --frozen --no-sync pytest -q -p no:cacheprovider $(LAB_TESTS)

# The Rust core: formatted, clippy-clean with warnings as errors, and its own #[test]s (the byte-for-byte
# comparisons with the Python reference are pytest's, e.g. backend/tests/test_block_native.py, on the
# build that `uv sync` makes).
# The #[test]s build in Cargo.toml's `suite` profile (the release build without LTO; overflow checks
# and debug assertions on in this crate, as in the dev profile), the profile `make test` builds the
# extension in too (MATURIN_PEP517_ARGS, below): under `make test` this step waits for uv sync and its
# test build compiles this crate alone on the dependencies uv sync's build left in target/suite (it
# needs maturin's PYO3_CONFIG_FILE for that, or pyo3's build script runs again), where the dev profile
# compiled every dependency a second time. Clean builds, 2026-11-28, load 15-21 (pairs started together):
# maturin's build of the extension 162 s of CPU in the release profile, 188 s in `suite` (without LTO
# every dependency makes its machine code, not only what the extension uses); the #[test]s' build 114 s
# in the dev profile (103 s without its debug info), 61 s in `suite` on uv sync's dependencies, linted
# too: 162 + 114 = 276 s before (the lint not counted), 188 + 61 = 249 s now.
# Clippy lints the crate while the test build compiles it: clippy-driver is the workspace's rustc there
# (what `cargo clippy` does, on a check build of its own), so the dependencies are not checked a third
# time; -D warnings goes to clippy-driver alone (CLIPPY_ARGS, as `cargo clippy -- -D warnings` passes
# it), as RUSTFLAGS would rebuild every dependency. The lib and its #[cfg(test)] code are both linted,
# as with --all-targets (the crate has no other target). Without clippy-driver on PATH, the two steps.
# `cargo test --tests`: the #[test]s' build alone, where plain `cargo test` builds the library once more
# for its doctests, of which the crate has none (no ``` block in src/; when one comes, plain `cargo test`
# runs again). So the library is linted in its #[cfg(test)] build only (the crate has no
# #[cfg(not(test))] code).
NATIVE := backend/native/iolens_native
test-rust: $(if $(IOLENS_BUILT),deps-python)
	@cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1 || rustup component add clippy rustfmt
	@cd $(NATIVE) && unset MAKEFLAGS MFLAGS && $(timed) { cargo fmt --check && \
	  cfg=$$(ls target/maturin/pyo3-config-*.txt 2>/dev/null | head -n 1) && { [ -z "$$cfg" ] || export PYO3_CONFIG_FILE=$$PWD/$$cfg; } && \
	  targets=--tests && { ! grep -rqF '```' src || targets=; } && \
	  if driver=$$(command -v clippy-driver); then \
	    RUSTC_WORKSPACE_WRAPPER=$$driver CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__ cargo test --locked --profile suite $$targets; \
	  else cargo clippy --locked --all-targets --profile suite -- -D warnings && cargo test --locked --profile suite $$targets; fi; }

# ruff (pyproject.toml [tool.ruff]) and the import contracts: layers, imports downward only
# (pyproject.toml [tool.importlinter], docs/architecture.md).
lint-python: deps-python-pure
	@$(call lane,lint-python) $(UV) run --frozen --no-sync ruff check backend collectors bench scripts && \
	  $(UV) run --frozen --no-sync lint-imports

# typecheck is `tsc --noEmit`, which `npm run build` runs first: skipped when the build is part of the
# same make run (IOLENS_BUILT=1, set by `make test`). A Vitest test's time limit is 20 s
# (frontend/vite.config.ts), not Vitest's 5 s: a limit against hangs, whatever else the machine runs.
test-unit: deps-node
	@$(timed) { $(if $(IOLENS_BUILT),,npm run --silent typecheck &&) npm run --silent lint && \
	  npm run --silent test:unit --workspace frontend; }

test-e2e: deps-python build-frontend
	@$(timed) npm run --silent test:e2e

# The README's pictures (docs/screenshot-*.png), taken by frontend/e2e/readme.spec.ts from the real
# datasets through the real server; every e2e run takes them too, into frontend/test-results/.
readme-shots: build
	cd frontend && IOLENS_README_SHOTS=$(CURDIR)/docs npx playwright test --project=all readme.spec.ts

# Each bench/*.py is one benchmark: it prints its figures and exits non-zero when a target is missed.
bench: deps-python
	@set -e; for b in bench/*.py; do echo "== $$b"; $(UV) run python $$b; done

clean:
	rm -rf frontend/dist $(DEMO_DIR) .pytest_cache frontend/test-results frontend/playwright-report
