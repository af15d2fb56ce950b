#!/usr/bin/env python3
"""python scripts/results_index.py --help: the command of membench.results_index (scripts/membench/results_index.py)."""

import sys

from membench.results_index import main

if __name__ == "__main__":
    sys.exit(main())
