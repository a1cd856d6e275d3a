"""A run's two charts for its page in the browser: report.html's own SVG (report/svg.py),
served as an image, so that no record text in it is ever read as the page's markup."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mlab.core.results import RunResults
from pytest_mlab.report.figures import improvement_figure, success_figure, thresholds_of
from pytest_mlab.report.rows import Row, rows_of
from pytest_mlab.report.svg import chart

CHARTS = ("success", "improvement")
"""The charts a run has, by the name a request gives."""
SVG_TYPE = "image/svg+xml"


def run_chart(run: RunResults, name: str, rows: Sequence[Row] | None = None) -> str | None:
    """The chart ``name`` of the run as a standalone SVG document; None for no such chart.
    ``rows``: the run's ``rows_of``, where made already."""
    rows = rows_of(run.results) if rows is None else rows
    if name == "success":
        return chart(success_figure(rows), standalone=True)
    if name == "improvement":
        return chart(improvement_figure(rows, thresholds_of(run.results)), standalone=True)
    return None
