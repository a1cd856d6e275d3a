"""Browse runs in a local web page: every run in some report folders, runs side by side,
a trial's every step.

    python -m pytest_mlab view [REPORT_DIR ...] [--port N] [--open]

A small server on 127.0.0.1 (never another address) rather than a static file: traces of
10 MB and more load a range of steps at a time, which a page opened from file:// cannot
fetch. It serves one HTML, one JS and one CSS file of its own (nothing from outside) and
JSON read lazily from the records; see pytest_mlab/report/browse/.
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.report.browse.runs import discover
from pytest_mlab.report.browse.server import make_server

DEFAULT_DIR = Path("reports")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab view",
        description="Serve a browser over the runs in report folders, on 127.0.0.1 only.",
    )
    parser.add_argument("dirs", nargs="*", type=Path, metavar="REPORT_DIR",
                        help=f"Folders of runs (each run a folder with results.json), or run "
                             f"folders. Default: {str(DEFAULT_DIR)!r}")
    parser.add_argument("--port", type=int, default=0,
                        help="Port on 127.0.0.1; 0 takes any free one. Default: %(default)r")
    parser.add_argument("--open", action=argparse.BooleanOptionalAction, default=False,
                        help="Open the page in the default web browser. Default: %(default)r")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    dirs: list[Path] = args.dirs or [DEFAULT_DIR]
    missing = [d for d in dirs if not d.is_dir()]
    if missing:
        print(f"error: {missing[0]}: no such folder; give folders of runs such as reports/",
              file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"error: --port {args.port}: expected 0 (any free port) to 65535", file=sys.stderr)
        return 2
    try:
        server = make_server([d.absolute() for d in dirs], args.port)
    except OSError as exc:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {exc.strerror}", file=sys.stderr)
        return 2
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    runs = len(discover([d.absolute() for d in dirs]))
    print(f"{runs} runs in {', '.join(map(str, dirs))}; browse them at {url} (Ctrl-C stops)",
          flush=True)
    if args.open:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
