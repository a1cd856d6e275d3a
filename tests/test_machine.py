"""A baseline says where it holds: a recorded one keeps the facts of the machine that
measured it, and a trial on a machine whose facts differ says so in its result."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.baseline import BaselineRecord
from pytest_mlab.core.machine import MOVING_FACTS, differing_facts, facts_key, machine_facts


def test_the_facts_name_this_machine_s_cpu_and_libraries() -> None:
    facts = machine_facts()
    assert set(MOVING_FACTS) <= set(facts)
    assert facts["cpu_model"] and len(facts["cpu_flags"]) == 12
    assert facts["numpy"] != "-" and facts["torch"] != "-"
    assert facts["blas"] != "-", "threadpoolctl finds numpy's BLAS"


def test_only_the_facts_a_score_moves_with_make_machines_differ() -> None:
    here = machine_facts()
    renamed = here | {"machine": "another-host", "blas_threads": "64"}
    assert differing_facts(renamed, here) == []
    assert facts_key(renamed) == facts_key(here)
    other = here | {"cpu_model": "Some Other CPU"}
    assert differing_facts(other, here) == [f"cpu_model: Some Other CPU -> {here['cpu_model']}"]
    assert facts_key(other) != facts_key(here)


def _record(facts: dict[str, str]) -> BaselineRecord:
    return BaselineRecord(
        task="t", metric="m", direction="higher", mean=1.0, sd=0.1, n=2, scores=[0.9, 1.1],
        task_hash="h", command="c", recorded_at="now", machine="elsewhere",
        pytest_mlab_version="0", machine_facts=facts,
    )


def test_a_recorded_baseline_says_when_this_machine_differs_from_the_one_that_recorded_it(
) -> None:
    assert _record(machine_facts()).baseline().note == ""
    baseline = _record(machine_facts() | {"torch": "0.1"}).baseline()
    assert (baseline.source, baseline.machine) == ("recorded", "elsewhere")
    assert baseline.note.startswith("recorded on elsewhere, which differs from this machine "
                                    "(torch: 0.1 -> ")
    assert "were not noted" in _record({}).baseline().note


def test_a_trial_names_its_baseline_and_flags_one_from_another_machine(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = recorded("guess")
    args = ["tasks", "--agent=oracle", *mlab_args]
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)
    (result,) = read_results()
    assert (result["baseline_source"], result["baseline_note"]) == ("recorded", "")
    record = json.loads((root / "baseline.json").read_text())
    assert record["machine_facts"] == machine_facts()
    record["machine_facts"]["cpu_model"] = "Some Other CPU"
    (root / "baseline.json").write_text(json.dumps(record))
    run = pytester.runpytest_subprocess(*args)
    run.assert_outcomes(passed=1)
    (result,) = read_results()
    assert result["baseline_note"].startswith(f"recorded on {record['machine']}, which "
                                              "differs from this machine (cpu_model: Some")
    run.stdout.fnmatch_lines(["*the baseline was recorded on * which differs*"])
