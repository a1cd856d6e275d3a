"""Browse runs in a local web page: every run in some report folders, runs side by side,
a trial's every step.

    python -m pytest_mlab view [REPORT_DIR ...] [--port N] [--open]
    python -m pytest_mlab view --export DIR RUN ...

A small server on 127.0.0.1 (never another address) rather than a static file: traces of
10 MB and more load a range of steps at a time, which a page opened from file:// cannot
fetch; --export writes the pages and the answers they ask for as files instead, with
traces cut to a size. It serves its own HTML, JS and CSS (nothing from outside) and JSON
read lazily from the records; see pytest_mlab/report/browse/.
"""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.report.browse.export import export
from pytest_mlab.report.browse.runs import RunIndex, discover
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
    parser.add_argument("--export", type=Path, metavar="DIR", default=None,
                        help="Write the pages for the runs given (each a run folder, its "
                             "results.json, or a run folder's name under reports/) into DIR, "
                             "a new or empty folder, to open from file:// or any static host, "
                             "instead of serving. Default: %(default)r")
    return parser


def _export(runs: list[Path], folder: Path) -> int:
    found = [run.parent if run.name == "results.json" else run if run.exists()
             else DEFAULT_DIR / run for run in runs]
    missing = [run for run, path in zip(runs, found, strict=True) if not discover([path])]
    if not runs or missing:
        print(f"error: {missing[0] if missing else 'no RUN'}: not a run; give run folders or "
              f"their results.json", file=sys.stderr)
        return 2
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        print(f"error: --export {folder}: not an empty folder; give a new or empty one",
              file=sys.stderr)
        return 2
    made = export(RunIndex([p.absolute() for p in found]), folder)
    for line in made.cut:
        print(f"cut: {line}")
    print(f"{len(found)} runs written to {folder}; open {folder / 'index.html'}")
    return 0


WARM_UP = "mlab-view-warm-up"
"""The name of the thread that imports the comparisons' statistics."""


def _import_statistics() -> None:
    import scipy.stats  # noqa: F401


def warm_up() -> threading.Thread:
    """Imports scipy.stats in the background as the server starts: the first comparison of
    two runs would otherwise wait seconds for it."""
    thread = threading.Thread(target=_import_statistics, name=WARM_UP, daemon=True)
    thread.start()
    return thread


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.export is not None:
        return _export(args.dirs, args.export)
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
    warm_up()
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
