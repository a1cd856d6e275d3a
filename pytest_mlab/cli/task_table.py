"""python -m pytest_mlab task-table tasks/lite --check: fail when a suite's README differs
from what its kept validation figures give (see pytest_mlab.report.task_table)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_mlab.report.task_table import README, render


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_mlab task-table")
    parser.add_argument("suite", type=Path, help="A folder of tasks, e.g. tasks/lite.")
    parser.add_argument("--check", action="store_true", required=True,
                        help="Fail if the README is stale.")
    args = parser.parse_args(argv)
    readme = args.suite / README
    if not readme.exists() or readme.read_text(encoding="utf-8") != render(args.suite):
        print(f"{readme} is stale: regenerate it with pytest {args.suite} --mlab-validate",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
