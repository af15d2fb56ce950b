#!/usr/bin/env python3
"""python scripts/reference.py --help: the command of membench.reference (scripts/membench/reference.py)."""

import sys

from membench.reference import main

if __name__ == "__main__":
    sys.exit(main())
