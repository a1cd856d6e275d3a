"""What the external agents' tests share: their own environments, or a skip naming the
command that makes them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_mlab.trial.agent_venv import agent_venv_dir, venv_python

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pytest-mlab"


def installed(name: str) -> Path:
    """Adapter ``name``'s environment in the cache, or a skip saying how to make it."""
    venv = agent_venv_dir(Path(os.environ.get("MLAB_CACHE_DIR") or DEFAULT_CACHE), name)
    if not venv_python(venv).exists():
        pytest.skip(f"{name} is not installed: python -m pytest_mlab agent-venv {name}")
    return venv
