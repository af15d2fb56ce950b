#!/usr/bin/env python3
"""python scripts/export.py --help: the command of membench.export (scripts/membench/export.py)."""

import sys

from membench.export import main

if __name__ == "__main__":
    sys.exit(main())
