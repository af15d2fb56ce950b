#!/usr/bin/env python3
"""python scripts/ncu_check.py --help: the command of membench.ncu_check (scripts/membench/ncu_check.py)."""

import sys

from membench.ncu_check import main

if __name__ == "__main__":
    sys.exit(main())
