"""Test set-up: make tests/builders.py importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
