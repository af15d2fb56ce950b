#!/usr/bin/env python3
"""python scripts/levels.py --help: the command of membench.levels (scripts/membench/levels.py)."""

import sys

from membench.levels import main

if __name__ == "__main__":
    sys.exit(main())
