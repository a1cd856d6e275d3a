"""``python -m pytest_mlab agent-venv NAME``: make an external agent's own environment."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from pytest_mlab.trial.agent_venv import AGENT_PACKAGES, make_agent_venv


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab agent-venv",
        description="Install an external agent into its own virtual environment in the "
                    "cache folder, where its adapter (--agent=NAME) finds it.")
    parser.add_argument("name", choices=sorted(AGENT_PACKAGES))
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="the cache folder (default: $MLAB_CACHE_DIR, else the plugin's "
                             "default; give the --mlab-cache-dir of your runs)")
    parser.add_argument("--pip", action="append", default=[], metavar="REQUIREMENT",
                        help="a further requirement, e.g. a pinned version; repeat for several")
    args = parser.parse_args(argv)
    default = (os.environ.get("MLAB_CACHE_DIR") or
               Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pytest-mlab")
    cache = (args.cache_dir or Path(default)).expanduser().resolve()
    try:
        venv = make_agent_venv(cache, args.name, tuple(args.pip))
    except subprocess.CalledProcessError as exc:
        print(f"agent-venv: {' '.join(map(str, exc.cmd))} failed (exit {exc.returncode})",
              file=sys.stderr)
        return 1
    print(venv)
    return 0
