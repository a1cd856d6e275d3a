"""Read a results.json, or say in one sentence why it cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from pytest_mlab import __version__
from pytest_mlab.results import SCHEMA_VERSION, RunResults


class UnreadableResults(Exception):
    """A results.json this version cannot read; the message is one sentence."""


def load_results(path: Path) -> RunResults:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UnreadableResults(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableResults(f"{path}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UnreadableResults(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(raw, dict) or not {"run", "results"} <= raw.keys():
        raise UnreadableResults(
            f"{path}: not a pytest-mlab results.json (it has no 'run' and 'results' keys)"
        )
    version = raw.get("schema_version")
    if not isinstance(version, int) or version < 1:
        raise UnreadableResults(f"{path}: key 'schema_version': expected a whole number >= 1, "
                                f"got {version!r}")
    if version > SCHEMA_VERSION:
        raise UnreadableResults(
            f"{path}: schema version {version} is newer than pytest-mlab {__version__} reads "
            f"(up to {SCHEMA_VERSION}); upgrade pytest-mlab"
        )
    try:
        return RunResults.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise UnreadableResults(f"{path}: key '{where}': {error['msg']}") from None
