"""Print a sandbox kind's attestation record, as a session attests it before its trials.

    python -m pytest_mlab attest [--sandbox=local|docker|NAME] [--isolation=LEVEL]
                                 [--image=IMAGE] [--cache-dir=DIR] [--fresh]

The record (JSON) goes to stdout, its verdict in one line to stderr; the exit status is 0
where every check passed, 1 where one failed, 2 where the sandbox cannot be made here.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox.attestation import attest
from pytest_mlab.sandbox.factory import sandbox_kinds
from pytest_mlab.sandbox.isolation import CHOICES as ISOLATIONS
from pytest_mlab.sandbox.spec import SKELETON_IMAGE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab attest",
        description="Probe a sandbox from inside (uid, seccomp, capabilities, /proc/sys, "
                    "cgroup, mounts, network, other processes' memory) and print the record.")
    parser.add_argument("--sandbox", default="local", metavar="NAME",
                        help="local, docker, or another entry point of group "
                             "pytest_mlab.sandboxes. Default: %(default)r")
    parser.add_argument("--isolation", default="auto", choices=ISOLATIONS,
                        help="The local sandbox's isolation. Default: %(default)r")
    parser.add_argument("--image", default=SKELETON_IMAGE, metavar="IMAGE",
                        help="The docker sandbox's image. Default: %(default)r")
    parser.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                        help="The cache folder the record is kept in (give the "
                             "--mlab-cache-dir of your runs). Default: $MLAB_CACHE_DIR, else "
                             "~/.cache/pytest-mlab")
    parser.add_argument("--fresh", action="store_true",
                        help="Probe again even where the cache holds a record. "
                             "Default: %(default)r")
    return parser


def _cache_dir(given: Path | None) -> Path:
    default = (os.environ.get("MLAB_CACHE_DIR") or
               Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pytest-mlab")
    return (given or Path(default)).expanduser().resolve()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    cache = _cache_dir(args.cache_dir)
    if args.sandbox not in (kinds := sandbox_kinds()):
        print(f"error: --sandbox: unknown sandbox {args.sandbox!r}; choose one of: "
              f"{', '.join(kinds)}", file=sys.stderr)
        return 2
    try:
        record, cached = attest(args.sandbox, args.isolation, args.image, cache,
                                fresh=args.fresh)
    except SandboxError as exc:
        print(f"error: the {args.sandbox} sandbox cannot be attested here: {exc}",
              file=sys.stderr)
        return 2
    print(record.model_dump_json(indent=2))
    if not record.passed and any(c.name == "probe" for c in record.failed):
        print(f"error: {record.failed[0].seen}", file=sys.stderr)
        return 2
    source = "from the cache" if cached else "probed now"
    print(f"{record.summary()} ({source})", file=sys.stderr)
    return 0 if record.passed else 1
