"""The scripts around the membench binary, as one package.

Every script reads a result file through `membench.results` (the meaning the
binary wrote into the file's catalog; an older file's through
`membench.compat`, and only there) and speaks to a person through
`membench.cli` (a usage error is one line and exit status 2). Each command is
a module with `main(argv) -> int`; `scripts/<command>.py` runs it from a
checkout, and `pip install .` puts it on PATH as `membench-<command>`.
"""

__version__ = "0.1.0"  # pyproject.toml's version, which a test holds it to
