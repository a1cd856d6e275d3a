"""pip's configured package sources as uv's options, so that uv installs from where pip
would: the harness's own environment (scripts/setup.sh) and each original task's.

Standard library only: setup runs it before anything else is installed
(``python -m pytest_mlab.core.pip_sources`` prints one option or value per line).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

_FLAGS = {"index-url": "--index-url", "extra-index-url": "--extra-index-url",
          "find-links": "--find-links", "constraint": "--constraint"}


def pip_sources(python: str = sys.executable) -> list[str]:
    """The indexes, wheel folders and constraint files ``python -m pip`` is configured
    with (its config files and PIP_* variables), as uv options."""
    done = subprocess.run([python, "-B", "-m", "pip", "config", "list"],
                          capture_output=True, text=True, check=False)
    options: list[str] = []
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        flag = _FLAGS.get(key.rsplit(".", 1)[-1])
        if flag is None:
            continue
        # pip prints a list as one quoted value: 'file:///a/simple file:///b/simple'.
        for item in (word for quoted in shlex.split(value) for word in quoted.split()):
            if item.startswith("file://") and not Path(item.removeprefix("file://")).exists():
                continue  # pip skips a missing local index with a warning; uv stops
            if [flag, item] != options[-2:]:
                options += [flag, item]
    if "--extra-index-url" in options:
        # pip takes the best release from all its indexes; uv, by default, only from the
        # first that has the package (a local mirror's one old release, say).
        options += ["--index-strategy", "unsafe-best-match"]
    return options


if __name__ == "__main__":
    print("\n".join(pip_sources()))
