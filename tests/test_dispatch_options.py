"""--mlab-dispatch and its companions: bad values and combinations get one sentence; the
session a node runs for one trial writes what the controller reads, and nothing else."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.plugin.config.dispatch_options import parse_dispatch


def test_where_trials_run_is_local_or_ray_with_an_optional_address() -> None:
    assert parse_dispatch("local") == ("local", None)
    assert parse_dispatch("ray") == ("ray", None)
    assert parse_dispatch("ray:10.0.0.5:6379") == ("ray", "10.0.0.5:6379")
    with pytest.raises(argparse.ArgumentTypeError, match="expected local or ray"):
        parse_dispatch("slurm")


@pytest.mark.parametrize(("extra", "said"), [
    (["--mlab-dispatch=slurm"], "expected local or ray[:ADDRESS], got 'slurm'"),
    (["--mlab-dispatch=ray", "-n", "2"], "--mlab-dispatch=ray runs trials on the cluster: "
                                         "drop -n"),
    (["--mlab-dispatch=ray", "--mlab-validate"], "drop --mlab-interactive, --mlab-validate"),
    (["--mlab-ray-retries=-1"], "expected a number >= 0"),
])
def test_a_bad_dispatch_is_one_sentence(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    extra: list[str], said: str,
) -> None:
    task_tree("guess")
    result = pytester.runpytest_subprocess("tasks", *mlab_args, *extra)
    assert result.ret != 0
    assert said in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_a_nodes_one_trial_session_writes_its_records_and_leaves_the_rest_to_the_controller(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The report, the trial-time history and recorded baselines are the controller's;
    a node's session that wrote a report too spent about a second a trial on it."""
    from pytest_mlab.core.run_files import RUN_ID_VARIABLE
    from pytest_mlab.core.trial_seconds import HISTORY

    recorded("guess")
    (pytester.path / "cache" / HISTORY).unlink()  # the baseline's recording wrote one
    monkeypatch.setenv(RUN_ID_VARIABLE, "20261201-000000-node")
    result = pytester.runpytest_subprocess("tasks", "--agent=oracle", *mlab_args)
    result.assert_outcomes(passed=1)
    run = pytester.path / "reports" / "20261201-000000-node"
    assert (run / "results.json").is_file()
    assert not (run / "report.html").exists()
    assert not (pytester.path / "cache" / HISTORY).exists()
    assert "report.html" not in result.stdout.str()
    monkeypatch.delenv(RUN_ID_VARIABLE)
    pytester.runpytest_subprocess("tasks", "--agent=oracle", *mlab_args).assert_outcomes(passed=1)
    assert len(list(pytester.path.glob("reports/*/report.html"))) == 1
    assert (pytester.path / "cache" / HISTORY).is_file()
