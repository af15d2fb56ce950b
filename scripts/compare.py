#!/usr/bin/env python3
"""python scripts/compare.py --help: the command of membench.compare (scripts/membench/compare.py)."""

import sys

from membench.compare import main

if __name__ == "__main__":
    sys.exit(main())
