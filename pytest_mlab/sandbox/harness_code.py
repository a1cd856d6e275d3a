"""What the harness executes (its interpreter, its libraries, this package, everything on
its import path) must lie outside every folder a sandbox may write: a ``.pth`` file or a
module planted there would run in the scorer, outside any sandbox."""

from __future__ import annotations

import sys
from pathlib import Path

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox.bwrap import interpreter_roots

PACKAGE = Path(__file__).resolve().parents[1]


def executed_roots() -> list[Path]:
    """The folders the harness's Python runs code from."""
    roots = {*interpreter_roots(), PACKAGE}
    roots |= {Path(entry).resolve() for entry in sys.path if entry and Path(entry).is_dir()}
    return sorted(roots)


def refuse_code_in(writable: Path) -> None:
    """Raise unless ``writable`` holds none of the harness's code."""
    folder = writable.resolve()
    for root in executed_roots():
        if root.is_relative_to(folder):
            raise SandboxError(
                f"the workspace {folder} holds {root}, which the harness runs code from; "
                "a script could change what the scorer executes: put workspaces elsewhere "
                "(--mlab-report-dir)"
            )
