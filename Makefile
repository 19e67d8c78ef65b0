# Set-up and everyday jobs. Each target creates or reuses .venv; only python3 is needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
FOREMAN := $(BIN)/foreman

.PHONY: demo test golden bench fuzz schema clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The main job on the samples: audit every record, show a disputed game at its breach and a
# contested claim, cost the cards of a deal, load the archive and print its statistics, then
# settle the evening.
demo: $(STAMP)
	@echo '$$ foreman validate samples/'
	@$(FOREMAN) validate samples/ || true
	@echo
	@echo '$$ foreman replay samples/03-late-revoke.json --deal 1 --trick 9   # the disputed game, at the breach'
	@$(FOREMAN) replay samples/03-late-revoke.json --deal 1 --trick 9 || true
	@echo
	@echo '$$ foreman replay samples/09-contested-claim.json --deal 1 --trick 11   # a contested claim'
	@$(FOREMAN) replay samples/09-contested-claim.json --deal 1 --trick 11 || true
	@$(FOREMAN) validate samples/09-contested-claim.json || true
	@echo
	@echo '$$ foreman analyze samples/02-four-deals.json --deal 4 --from-trick 6   # the cost of every card'
	@$(FOREMAN) analyze samples/02-four-deals.json --deal 4 --from-trick 6 || true
	@echo
	@rm -f .demo.duckdb .demo.duckdb.wal
	@echo '$$ foreman load samples/ --db .demo.duckdb && foreman stats --db .demo.duckdb'
	@$(FOREMAN) load samples/ --db .demo.duckdb || true
	@$(FOREMAN) stats --db .demo.duckdb || true
	@echo
	@echo '$$ foreman settle samples/'
	@$(FOREMAN) settle samples/ || true

test: $(STAMP)
	$(BIN)/python -m pytest

# Regenerate the golden outputs of the samples (never edit them by hand).
golden: $(STAMP)
	$(BIN)/python tests/golden.py --write

schema: $(STAMP)
	$(FOREMAN) schema > schemas/foreman-1.schema.json

# A long run of the fuzz suite (make test runs a bounded one).
fuzz: $(STAMP)
	FOREMAN_FUZZ_EXAMPLES=$${FOREMAN_FUZZ_EXAMPLES:-5000} $(BIN)/python -m pytest tests/test_fuzz.py tests/test_decoders.py -q

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
