"""How the scripts speak to a person: a command line whose usage error is one line and exit status 2, the
one line an input it cannot use gets, the one line a missing package gets, and the SI prefix a number is read in."""

from __future__ import annotations

import argparse
import functools
import os
import signal
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def prefix(value: float) -> tuple[float, str]:
    """The SI prefix a person reads a value in, and its factor: 3.2e13 -> (1e12, "T"); under 1000: (1, "")."""
    return next(((f, p) for f, p in PREFIXES if abs(value) >= f), (1.0, ""))


def command(main: Callable[[list[str] | None], int]) -> Callable[[list[str] | None], int]:
    """A script's main, quiet when its reader goes away (`compare.py a b | head`): what it printed until then
    stands, and it exits 141, as a shell's own tools do on SIGPIPE, with no traceback."""

    @functools.wraps(main)
    def run(argv: list[str] | None = None) -> int:
        try:
            code = main(argv)
            sys.stdout.flush()  # inside: a reader gone before the last buffer is a broken pipe here too
            return code
        except BrokenPipeError:
            # Python would flush stdout again at exit and say so: point it at nothing first.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 128 + signal.SIGPIPE

    return run


def membench_binary(exe: str | None, root: Path) -> str:
    """The membench binary a script runs: the one named, else $MEMBENCH_EXE, else the release build under root."""
    return exe or os.environ.get("MEMBENCH_EXE") or str(root / "build" / "release" / "membench")


def missing_package(script: str, error: ModuleNotFoundError) -> NoReturn:
    """One line naming the package and how to install the pinned set; exit 2."""
    print(
        f"{script}: needs the Python package '{error.name}': " "python -m pip install -r scripts/requirements.txt",
        file=sys.stderr,
    )
    sys.exit(2)


def refused(script: str, error: Exception) -> int:
    """What a command says of an input it cannot use: one line, the error's own text (for a file the system
    refused, the file's name and the reason), on stderr; returns the exit status 2."""
    if isinstance(error, OSError) and error.filename is not None:
        text = f"{error.filename}: {error.strerror}"
    else:
        text = str(error)
    print(f"{script}: {text}", file=sys.stderr)
    return 2


def write_or_check(path: Path, text: str, check: bool, stale: str) -> int:
    """A file a script makes from the committed files: with `check`, exit status 1 and the one line `stale` where
    the file is not `text` (0 where it is); else the file written and its name printed (0)."""
    if check:
        current = path.read_text() if path.is_file() else ""
        if current != text:
            print(stale, file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    print(path)
    return 0


def replace_file(path: Path, text: str) -> None:
    """Writes `text` to `path` whole: into a file beside it, then renamed over it, so that a reader (a
    textfile collector) sees the old file or the new one, never half of one. A path that is there and is not
    a regular file (a FIFO, a device) is refused with an OSError naming it, before anything is opened."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OSError(0, "not a regular file", str(path))
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text)
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit status 2); every command answers --version with the
    package's version and the result schema it reads."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        from membench import __version__
        from membench.results import SCHEMAS_READ

        self.add_argument(
            "--version",
            action="version",
            version=f"%(prog)s (membench scripts {__version__}, result schema {SCHEMAS_READ})",
            help="the version of the scripts and the result schema they read, and exit",
        )

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)
