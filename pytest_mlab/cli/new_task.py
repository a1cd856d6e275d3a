"""``python -m pytest_mlab new-task NAME``: a new task folder that runs and validates as it
is (a small seeded regression), for its author to replace piece by piece."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).parent / "task_template"
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


def scaffold(name: str, suite: Path) -> Path:
    """Write the template into ``suite/name``; refuses a folder that exists."""
    root = suite / name
    if root.exists():
        raise FileExistsError(f"{root} exists already; choose another name")
    for template in sorted(TEMPLATE.rglob("*.tmpl")):
        target = root / template.relative_to(TEMPLATE).with_suffix("")
        target.parent.mkdir(parents=True, exist_ok=True)
        text = template.read_text(encoding="utf-8")
        target.write_text(text.replace("{name}", name).replace("{path}", str(root)),
                          encoding="utf-8")
    return root


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab new-task",
        description="Make a task folder with every part a task has: task.toml, env/ (the "
        "starter), prepare.py, score.py, solution/, null/ and heuristics/.",
    )
    parser.add_argument("name", help="The task's name: lower-case letters, digits and '-'.")
    parser.add_argument("--suite", type=Path, default=Path("tasks/lite"),
                        help="The folder of tasks to add it to. Default: %(default)s.")
    args = parser.parse_args(argv)
    if not _NAME.fullmatch(args.name):
        parser.error(f"expected a name of lower-case letters, digits and '-', got {args.name!r}")
    try:
        root = scaffold(args.name, args.suite)
    except FileExistsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"made {root}; check it with: pytest {root} --mlab-validate")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
