#!/usr/bin/env python3
"""python scripts/report.py --help: the command of membench.report (scripts/membench/report.py)."""

import sys

from membench.report import main

if __name__ == "__main__":
    sys.exit(main())
