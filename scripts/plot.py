#!/usr/bin/env python3
"""python scripts/plot.py --help: the command of membench.plot (scripts/membench/plot.py)."""

import sys

from membench.plot import main

if __name__ == "__main__":
    sys.exit(main())
