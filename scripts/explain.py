#!/usr/bin/env python3
"""python scripts/explain.py --help: the command of membench.explain (scripts/membench/explain.py)."""

import sys

from membench.explain import main

if __name__ == "__main__":
    sys.exit(main())
