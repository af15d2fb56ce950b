#!/usr/bin/env python3
"""python scripts/fleet.py --help: the command of membench.fleet (scripts/membench/fleet.py)."""

import sys

from membench.fleet import main

if __name__ == "__main__":
    sys.exit(main())
