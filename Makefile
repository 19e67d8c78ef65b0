# Set-up and everyday jobs. Each target creates or reuses .venv; only python3 is needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
FOREMAN := $(BIN)/foreman
# The package's bytecode, written as pip writes it for a package it installs. An editable install
# is compiled by no one, so where PYTHONDONTWRITEBYTECODE is set (many container images set it) every
# foreman process, and each one the test suite starts, would compile it again.
COMPILE := $(BIN)/python -m compileall -q foreman_cli

.PHONY: demo test golden bench bench-solver bench-fairness bench-ratings bench-season sanitize fuzz schema clean

DEMO_STAMP := $(VENV)/.demo-stamp

# The demo needs foreman alone; the tests add pytest, hypothesis, the validator, Spark and the browser driver.
$(DEMO_STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(DEMO_STAMP)

$(STAMP): $(DEMO_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,spark]'
	touch $(STAMP)

# The main job on the samples: audit every record, show a disputed game at its breach and a
# contested claim, cost the cards of a deal, load the archive and print its statistics and
# ratings, then settle the evening.
demo: $(DEMO_STAMP)
	@$(COMPILE)
	@echo '$$ foreman validate samples/'
	@$(FOREMAN) validate samples/ || true
	@echo
	@echo '$$ foreman convert samples/01-clean-win.json --to fmn   # a game as the scorer types it (.fmn)'
	@$(FOREMAN) convert samples/01-clean-win.json --to fmn || true
	@echo
	@echo '$$ foreman replay samples/03-late-revoke.json --deal 1 --trick 9   # the disputed game, at the breach'
	@$(FOREMAN) replay samples/03-late-revoke.json --deal 1 --trick 9 || true
	@echo
	@echo '$$ foreman replay samples/09-contested-claim.json --deal 1 --trick 11   # a contested claim'
	@$(FOREMAN) replay samples/09-contested-claim.json --deal 1 --trick 11 || true
	@$(FOREMAN) validate samples/09-contested-claim.json || true
	@echo
	@echo '$$ foreman replay samples/10-play-only-evening.fmn --game fri-1211-g2 --deal 1 --trick 1   # kept at the table: a revoke the tricks prove'
	@$(FOREMAN) replay samples/10-play-only-evening.fmn --game fri-1211-g2 --deal 1 --trick 1 || true
	@echo
	@rm -f .demo.fmn
	@echo '$$ sed -n 3,20p samples/10-play-only-evening.fmn | foreman record .demo.fmn   # the scorer, fed from a pipe'
	@sed -n 3,20p samples/10-play-only-evening.fmn | $(FOREMAN) record .demo.fmn || true
	@echo
	@echo '$$ foreman analyze samples/02-four-deals.json --deal 4 --from-trick 6   # the cost of every card'
	@$(FOREMAN) analyze samples/02-four-deals.json --deal 4 --from-trick 6 || true
	@echo
	@rm -f .demo.duckdb .demo.duckdb.wal
	@echo '$$ foreman load samples/ --db .demo.duckdb && foreman stats --db .demo.duckdb'
	@$(FOREMAN) load samples/ --db .demo.duckdb || true
	@$(FOREMAN) stats --db .demo.duckdb || true
	@echo
	@echo '$$ foreman ratings --db .demo.duckdb   # who is the strongest'
	@$(FOREMAN) ratings --db .demo.duckdb || true
	@echo
	@echo '$$ foreman settle samples/'
	@$(FOREMAN) settle samples/ || true

# The whole suite (on the C core where it is built), then everything a compiled function serves
# again on the Python path: the searches, the replay, the archive's card codes (a test marked
# reference_only checks Python that has no compiled counterpart, and is not run twice).
# A test file to a worker, one worker a core: a file's module fixtures (a Spark session) start once.
PARALLEL := -n auto --dist loadfile

test: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m pytest $(PARALLEL)
	FOREMAN_PURE=1 $(BIN)/python -m pytest $(PARALLEL) -p no:cacheprovider -m 'not reference_only' \
	    tests/test_claims.py tests/test_analysis.py tests/test_solver.py tests/test_properties.py \
	    tests/test_fast_replay.py tests/test_engine.py tests/test_events.py tests/test_store.py tests/test_lane.py \
	    tests/test_play_records.py tests/test_notation.py tests/test_notation_stream.py

# Regenerate the golden outputs of the samples (never edit them by hand).
golden: $(STAMP)
	$(BIN)/python tests/golden.py --write

schema: $(STAMP)
	$(FOREMAN) schema > schemas/foreman-1.schema.json

# A long run of the fuzz suite (make test runs a bounded one).
fuzz: $(STAMP)
	FOREMAN_FUZZ_EXAMPLES=$${FOREMAN_FUZZ_EXAMPLES:-5000} $(BIN)/python -m pytest tests/test_fuzz.py tests/test_decoders.py -q

bench: $(STAMP)
	$(COMPILE)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/solver.py

bench-solver: $(STAMP)
	$(BIN)/python bench/solver.py

bench-fairness: $(STAMP)
	$(BIN)/python bench/fairness.py

bench-ratings: $(STAMP)
	$(BIN)/python bench/ratings.py

bench-season: $(STAMP)
	$(BIN)/python bench/season.py $(SEASON_ARGS)

# The compiled core's tests (the solver, the replay, the lane, the notation reader) on the C core
# built with AddressSanitizer and UBSan, in a copy of the package (leaks are not checked: CPython
# keeps objects alive on purpose until exit). --capture=sys: a sanitizer writes its report to the
# process's stderr and exits, which pytest's usual capture would swallow.
SAN := build/sanitize
sanitize: $(STAMP)
	rm -rf $(SAN) && mkdir -p $(SAN) && cp -r foreman_cli $(SAN)/ && rm -f $(SAN)/foreman_cli/*.so
	gcc -std=c99 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
	    -fPIC -shared $$($(BIN)/python -c "import sysconfig; print('-I' + sysconfig.get_paths()['include'])") \
	    foreman_cli/_core.c foreman_cli/_fmn.c -o $(SAN)/foreman_cli/_core$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
	cd $(SAN) && LD_PRELOAD=$$(gcc -print-file-name=libasan.so):$$(gcc -print-file-name=libubsan.so) \
	    ASAN_OPTIONS=detect_leaks=0 $(CURDIR)/$(BIN)/python -c "from foreman_cli import core; assert core.NAME == 'C', core.NAME"
	cd $(SAN) && LD_PRELOAD=$$(gcc -print-file-name=libasan.so):$$(gcc -print-file-name=libubsan.so) \
	    ASAN_OPTIONS=detect_leaks=0 $(CURDIR)/$(BIN)/python -m pytest -q -p no:cacheprovider --capture=sys \
	    $(CURDIR)/tests/test_solver.py $(CURDIR)/tests/test_claims.py $(CURDIR)/tests/test_analysis.py \
	    $(CURDIR)/tests/test_fast_replay.py $(CURDIR)/tests/test_lane.py $(CURDIR)/tests/test_engine.py \
	    $(CURDIR)/tests/test_notation_stream.py $(CURDIR)/tests/test_notation.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
