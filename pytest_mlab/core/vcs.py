"""Which commit a run was made from, for the report's header."""

from __future__ import annotations

import subprocess
from pathlib import Path


def commit_of(root: Path) -> str | None:
    """``git describe --always --dirty`` of ``root``; None where git or a checkout is absent."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=root,
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None
