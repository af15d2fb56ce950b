"""The result file's schema (schema/result.schema.json, the document the binary validates against too), checked
with jsonschema before any script reads a file."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from membench import cli

try:
    import jsonschema
except ModuleNotFoundError as error:
    cli.missing_package("membench", error)

PATH = Path(__file__).resolve().parents[2] / "schema" / "result.schema.json"


@cache
def validator() -> jsonschema.protocols.Validator:
    document = json.loads(PATH.read_text())
    cls = jsonschema.validators.validator_for(document)
    cls.check_schema(document)
    return cls(document)


def where(error: jsonschema.ValidationError) -> str:
    """The failing value's place in the file, as a person reads it: benchmarks[3].run_type."""
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the file"


def problem(doc: object) -> str | None:
    """Where `doc` is first not a membench result file, and why, in a line; None where it is one."""
    error = jsonschema.exceptions.best_match(validator().iter_errors(doc))
    if error is None:
        return None
    shown = json.dumps(error.instance)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"{where(error)}: {shown} is not what a membench result holds ({error.message[:100]})"
