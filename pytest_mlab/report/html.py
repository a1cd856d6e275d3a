"""Render the report model as one self-contained HTML file: inline CSS, JS and SVG."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.containment import describe_run, distinct
from pytest_mlab.core.results import TrialResult
from pytest_mlab.report import format as fmt
from pytest_mlab.report.columns import columns
from pytest_mlab.report.figures import improvement_figure, success_figure, thresholds_of
from pytest_mlab.report.model import ReportModel
from pytest_mlab.report.svg import chart, step_chart

TEMPLATES = Path(__file__).parent / "templates"


def _diff_class(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "file"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")


def _step_chart(result: TrialResult) -> Markup:
    points = [(s.step, s.score) for s in result.step_scores if s.score is not None]
    return Markup(step_chart(points, result.baseline_mean, result.metric))


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters.update(
        percent=fmt.percent, interval=fmt.interval, number=fmt.number, seconds=fmt.seconds,
        count=fmt.count, money=fmt.money, diff_class=_diff_class,
    )
    env.globals["step_chart"] = _step_chart
    return env


def render(model: ReportModel) -> str:
    charts = {
        # The SVG builders escape every text they take from results.
        "success": Markup(chart(success_figure(model.rows))),
        "improvement": Markup(chart(improvement_figure(
            model.rows, thresholds_of(model.results())))),
    }
    template = _environment().get_template("report.html.j2")
    recorded = [r.containment for r in model.results()]
    return template.render(model=model, charts=charts, columns=columns("html", model.rows),
                           containments=distinct(recorded), described=describe_run(recorded))


def write_report(model: ReportModel, path: Path) -> Path:
    write_atomic(path, render(model))
    return path
