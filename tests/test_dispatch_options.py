"""--mlab-dispatch and its companions: bad values and combinations get one sentence."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.plugin.dispatch import parse_dispatch


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
