"""``python -m pytest_mlab validate-suite [SUITE]``: validate a suite's tasks on this machine
(``pytest SUITE --mlab-validate``), all of them, or with ``--changed`` only those whose
validation fingerprint moved since their row of validation.json was written.

Without ``--scratch`` the figures are written into the suite (validation.json, each
recorded task's baseline.json, README.md); with it, copies of the tasks are validated in a
temporary folder and the suite is left as it was, which is what CI does.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_mlab.core.task import TaskFormatError, load_task
from pytest_mlab.core.task_files import BASELINE_RECORD, MANIFEST
from pytest_mlab.core.validation_fingerprint import VALIDATION, stale_tasks


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab validate-suite",
        description="Validate a suite's tasks with this machine's measurements.",
        epilog="Arguments after -- go to pytest, e.g. -- --mlab-cache-dir=/tmp/cache.",
    )
    parser.add_argument("suite", type=Path, nargs="?", default=Path("tasks/lite"),
                        help="A folder of tasks. Default: %(default)s.")
    parser.add_argument("--changed", action="store_true",
                        help="Only the tasks whose fingerprint differs from their row.")
    parser.add_argument("--smoke", action="append", default=[], metavar="TASK",
                        help="Validate TASK as well (repeatable): a fast check of the path.")
    parser.add_argument("--scratch", action="store_true",
                        help="Validate copies in a temporary folder; leave the suite as it is.")
    parser.add_argument("--list", action="store_true",
                        help="Print the tasks that would be validated, and why; run nothing.")
    parser.add_argument("-n", dest="workers", default="2",
                        help="xdist workers (default: %(default)s; 0 runs in this process).")
    return parser


def select(suite: Path, changed: bool, smoke: list[str]) -> dict[str, str]:
    """The tasks to validate, by folder name, each with why."""
    folders = {m.parent.name for m in suite.glob(f"*/{MANIFEST}")}
    unknown = sorted(set(smoke) - folders)
    if unknown:
        raise ValueError(f"{suite} has no task {unknown[0]!r}; its tasks: "
                         + ", ".join(sorted(folders)))
    if not changed:
        return dict.fromkeys(sorted(folders), "all tasks")
    names = {load_task(suite / f / MANIFEST).name: f for f in folders}
    picked = {names[name]: reason for name, reason in stale_tasks(suite).items()}
    for folder in smoke:
        picked.setdefault(folder, "smoke")
    return dict(sorted(picked.items()))


def _copy(suite: Path, folders: list[str], into: Path) -> Path:
    copy = into / suite.resolve().name
    for folder in folders:
        shutil.copytree(suite / folder, copy / folder, ignore=shutil.ignore_patterns(
            "__pycache__", BASELINE_RECORD, VALIDATION))
    return copy


def _pytest(paths: list[Path], workers: str, extra: list[str], scratch: Path | None) -> int:
    argv = [sys.executable, "-B", "-m", "pytest", *map(str, paths), "--mlab-validate",
            "-p", "no:cacheprovider"]
    if workers != "0":
        argv += ["-n", workers]
    if scratch is not None:
        argv.append(f"--mlab-report-dir={scratch / 'reports'}")
    print("validate-suite: " + " ".join(argv[3:] + extra), flush=True)
    return subprocess.run(argv + extra, check=False).returncode


def main(argv: list[str]) -> int:
    ours, extra = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv \
        else (argv, [])
    args = _parser().parse_args(ours)
    if not args.suite.is_dir():
        print(f"validate-suite: {args.suite} is not a folder of tasks", file=sys.stderr)
        return 2
    try:
        picked = select(args.suite, args.changed, args.smoke)
    except (ValueError, TaskFormatError) as exc:
        print(f"validate-suite: {exc}", file=sys.stderr)
        return 2
    for folder, reason in picked.items():
        print(f"validate-suite: {folder}: {reason}")
    if args.list or not picked:
        if not picked:
            print("validate-suite: every task's figures are current")
        return 0
    if not args.scratch:
        return _pytest([args.suite / f for f in picked], args.workers, extra, None)
    with tempfile.TemporaryDirectory(prefix="mlab-validate-") as tmp:
        copy = _copy(args.suite, list(picked), Path(tmp))
        return _pytest([copy / f for f in picked], args.workers, extra, Path(tmp))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
