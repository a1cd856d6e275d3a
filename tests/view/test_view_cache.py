"""The run browser adds a run up once per reading of it: a run of 10,000 trials takes most
of a second to, and its page asks again with every page of trials, filter and chart
(tests/benchmarks/test_scale.py). Once results.json changes, the new records count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from view_runs import trial_result, two_runs, write_run

from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse import server
from pytest_mlab.report.browse.runs import RunIndex
from pytest_mlab.report.browse.server import Api


def test_a_run_is_added_up_once_per_reading_and_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    two_runs(tmp_path)
    made: list[str] = []

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any) -> Any:
            made.append(name)
            return real(*args)
        return call

    monkeypatch.setattr(server, "run_facts", counted("facts", server.run_facts))
    monkeypatch.setattr(server, "run_chart", counted("chart", server.run_chart))
    api = Api(RunIndex([tmp_path]))
    first = api.routes["/api/run"]({"run": ["0.run-b"]})
    chosen = api.routes["/api/run"]({"run": ["0.run-b"], "outcome": ["failed"]})
    charts = [api.chart({"run": ["0.run-b"], "name": [name]}) for name in ("success",) * 2]
    assert made == ["facts", "chart"]
    assert chosen["groups"] == first["groups"] and chosen["total"] < first["total"]
    assert charts[0] == charts[1] and "<svg" in charts[0]

    run = RunResults.read(tmp_path / "run-b" / "results.json")
    more = trial_result("house-price", "baseline", 3, success=True, improvement=0.3)
    write_run(tmp_path, "run-b", [*run.results, more], started=run.run.started)
    again = api.routes["/api/run"]({"run": ["0.run-b"]})
    api.chart({"run": ["0.run-b"], "name": ["success"]})
    assert made == ["facts", "chart", "facts", "chart"]
    assert again["all"] == first["all"] + 1
    (house,) = [g for g in again["groups"] if g["task"] == "house-price"]
    assert (house["trials"], house["passed"]) == (4, 2)
