#!/usr/bin/env python3
"""python scripts/history.py --help: the command of membench.history (scripts/membench/history.py)."""

import sys

from membench.history import main

if __name__ == "__main__":
    sys.exit(main())
