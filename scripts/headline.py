#!/usr/bin/env python3
"""python scripts/headline.py --help: the command of membench.headline (scripts/membench/headline.py)."""

import sys

from membench.headline import main

if __name__ == "__main__":
    sys.exit(main())
