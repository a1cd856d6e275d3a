"""External agents' own virtual environments, one per adapter, in the cache folder.

Each is made by ``python -m pytest_mlab agent-venv NAME`` and shown read-only in the
sandbox at its own path, so the scripts pip wrote into it run there unchanged. It uses
the harness's interpreter, which every sandbox already shows.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT_PACKAGES: dict[str, tuple[str, ...]] = {
    "mini-swe-agent": ("mini-swe-agent",),
    "aide": ("aideml",),
    "aider": ("aider-chat",),
    "autogpt": ("agpt",),
}
"""What each adapter's environment installs (the same as its pytest-mlab extra)."""

SCAFFOLD_ONLY: dict[str, tuple[str, ...]] = {
    # aideml requires torch, tensorflow-era libraries and some eighty more for the code it
    # writes; the scaffold itself needs these, and the tasks promise only numpy, pandas and
    # scikit-learn to that code.
    "aide": ("aideml==0.2.2", "--no-deps", "openai>=1.69", "anthropic>=0.20", "omegaconf",
             "rich", "funcy", "humanize", "dataclasses-json", "backoff", "jsonschema",
             "coolname", "shutup", "genson", "igraph", "black", "python-dotenv", "numpy",
             "pandas", "scikit-learn"),
}
"""Adapters whose package is installed without its declared dependencies, and what
their scaffold needs instead (pip's arguments, the first its own package)."""


def agent_venv_dir(cache_dir: Path, name: str) -> Path:
    return cache_dir / "agent-venvs" / name


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def make_agent_venv(cache_dir: Path, name: str, extra: tuple[str, ...] = ()) -> Path:
    """Make (or bring up to date) the environment of adapter ``name``; pip's own output
    goes to this terminal."""
    if name not in AGENT_PACKAGES:
        raise ValueError(f"no adapter named {name!r}; choose one of: "
                         f"{', '.join(sorted(AGENT_PACKAGES))}")
    venv = agent_venv_dir(cache_dir, name)
    if not venv_python(venv).exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv_python(venv)), "-m", "pip", "install", "--quiet"]
    if name in SCAFFOLD_ONLY:
        package, no_deps, *needs = SCAFFOLD_ONLY[name]
        subprocess.run([*pip, package, no_deps, *extra], check=True)
        subprocess.run([*pip, *needs], check=True)
    else:
        subprocess.run([*pip, *AGENT_PACKAGES[name], *extra], check=True)
    return venv
