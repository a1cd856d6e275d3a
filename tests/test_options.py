from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def test_items_are_the_matrix_of_agents_and_trials(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str]
) -> None:
    task_tree("guess")
    result = pytester.runpytest(
        "tasks", "--agent=baseline", "--agent=oracle", "--mlab-trials=2", "--collect-only",
        "-q", *mlab_args,
    )
    result.stdout.fnmatch_lines([
        "tasks/guess/task.toml::guess[[]baseline-t0]",
        "tasks/guess/task.toml::guess[[]baseline-t1]",
        "tasks/guess/task.toml::guess[[]oracle-t0]",
        "tasks/guess/task.toml::guess[[]oracle-t1]",
        "4 tests collected*",
    ])


def test_agents_that_use_an_llm_are_multiplied_by_each_llm(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str]
) -> None:
    task_tree("guess")
    result = pytester.runpytest(
        "tasks", "--agent=scripted_agents:EchoAgent", "--agent=baseline", "--llm=gpt-4o",
        "--llm=claude-3", "--collect-only", "-q", *mlab_args,
    )
    result.stdout.fnmatch_lines([
        "*guess[[]scripted_agents:EchoAgent-gpt-4o-t0]",
        "*guess[[]scripted_agents:EchoAgent-claude-3-t0]",
        "*guess[[]baseline-t0]",
        "3 tests collected*",
    ])


def test_the_ini_file_sets_agents_and_trials(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str]
) -> None:
    task_tree("guess")
    pytester.makeini("[pytest]\nmlab_agents = oracle\nmlab_trials = 3\n")
    result = pytester.runpytest("tasks", "--collect-only", "-q", *mlab_args)
    result.stdout.fnmatch_lines(["*guess[[]oracle-t2]", "3 tests collected*"])


def test_an_entry_point_agent_is_found_by_name(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str]
) -> None:
    task_tree("guess")
    dist = pytester.path / "thirdparty-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[pytest_mlab.agents]\nechoer = scripted_agents:EchoAgent\n"
    )
    result = pytester.runpytest(
        "tasks", "--agent=echoer", "--llm=local", "--collect-only", "-q", *mlab_args
    )
    result.stdout.fnmatch_lines(["*guess[[]echoer-local-t0]"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent=nope"],
         "*--agent: unknown agent 'nope'; choose one of: aide, aider, baseline, command, "
         "command-llm, langchain, mini-swe-agent, oracle, react*"),
        (["--agent=no_such_module:Agent"], "*cannot load agent 'no_such_module:Agent'*"),
        (["--agent=scripted_agents:EchoAgent"], "*uses an LLM: give one with --llm MODEL*"),
        (["--agent=oracle", "--mlab-record-baseline=3"], "*runs the baseline agent only*"),
    ],
)
def test_a_bad_agent_choice_is_a_usage_error(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    args: list[str],
    message: str,
) -> None:
    task_tree("guess")
    result = pytester.runpytest("tasks", *args, *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mlab-trials=0"], "*--mlab-trials: expected a number >= 1, got 0"),
        (["--mlab-trials=two"], "*--mlab-trials: expected a whole number, got 'two'"),
        (["--mlab-threshold=15"], "*--mlab-threshold: expected a fraction such as 0.10, got 15"),
        (["--max-time=-5"], "*--max-time: expected a number > 0, got -5"),
        (["--mlab-gpus=0,,1"], "*--mlab-gpus: expected GPU indices or UUIDs such as 0,1 *'0,,1'"),
        (["--mlab-gpus=x"], "*--mlab-gpus: expected GPU indices or UUIDs such as 0,1 *'x'"),
        (["--mlab-keep-workspaces=some"], "*expected one of all, failed, none, got 'some'"),
    ],
)
def test_a_bad_option_value_is_one_line(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_bad_ini_value_names_the_key(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmlab_trials = many\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini key mlab_trials: expected a whole number, got 'many'"])


def test_the_header_shows_the_resolved_settings(
    pytester: pytest.Pytester, mlab_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    result = pytester.runpytest("--agent=oracle", "--mlab-threshold=0.2", *mlab_args)
    result.stdout.fnmatch_lines(["mlab: agents=oracle * threshold=0.2 gpus=2,3 *"])
