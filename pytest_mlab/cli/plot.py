"""Redraw the paper's two figures from one or more results.json files, as SVG and PNG.

    python -m pytest_mlab plot reports/RUN/results.json [...] --out DIR

Trials of the same task, agent and LLM across files are pooled.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.core.results import RunResults, UnreadableResults
from pytest_mlab.report.figures import improvement_figure, success_figure, thresholds_of
from pytest_mlab.report.rows import rows_of
from pytest_mlab.report.svg import chart

PNG_HINT = "PNG needs matplotlib: pip install 'pytest-mlab[plot]'"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab plot",
        description="Draw success rate and mean improvement per task and agent.",
    )
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS.json",
                        help="results.json files of runs; their trials are pooled.")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="Folder to write success.svg/.png and improvement.svg/.png to.")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        trials = [r for path in args.results for r in RunResults.read(path).results]
    except UnreadableResults as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = rows_of(trials)
    args.out.mkdir(parents=True, exist_ok=True)
    figures = [success_figure(rows), improvement_figure(rows, thresholds_of(trials))]
    for figure in figures:
        path = args.out / f"{figure.name}.svg"
        path.write_text(chart(figure, standalone=True) + "\n", encoding="utf-8")
        print(path)
    try:
        from pytest_mlab.report.png import write_png

        for figure in figures:
            print(write_png(figure, args.out / f"{figure.name}.png"))
    except ImportError:
        print(PNG_HINT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
