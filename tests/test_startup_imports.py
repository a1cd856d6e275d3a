"""What each way in imports before it needs to (issue 44): the command-line tools' help,
the plugin loaded by any pytest session, a Ray node's one-trial session before its trial,
and the processes every trial starts import no LLM library, dataframe or ML stack; a
session of LLM trials imports litellm once, at its first call, not once per trial.

Collection's own check is test_lightweight_collection.py, the missing key's
test_first_contact.py. The figures, never asserted in CI, are tests/benchmarks/test_startup.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, say

REPO = Path(__file__).parent.parent
HEAVY = ("litellm", "pandas", "torch", "scipy", "sklearn")
"""Seconds to import, each, and needed only by a trial's agent or a task's own code."""
NOT_AT_LOAD = (*HEAVY, "numpy", "jinja2", "ray", "docker", "matplotlib")
"""Nor needed to load the plugin (numpy: by the forecast and baselines, for the BLAS a
score moves with; jinja2: by the report; ray: by --mlab-dispatch=ray as it submits)."""


def _imported(*args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules ``python -X importtime ARGS`` imported, read from its stderr."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    names = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", done.stderr, re.M))
    return names, done


def test_the_command_line_tools_help_imports_neither_pytest_nor_a_library() -> None:
    names, done = _imported("-m", "pytest_mlab", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m pytest_mlab")
    assert "pytest_mlab.core.errors" in names  # the parse saw the package's imports
    tops = {name.partition(".")[0] for name in names}
    assert not tops & {*NOT_AT_LOAD, "pydantic", "pytest", "_pytest"}, sorted(tops)


LOADED = """
import sys, pytest
code = pytest.main([{args}])
print("LOADED", "pytest_mlab.plugin.config.options" in sys.modules,
      sorted(m for m in {heavy!r} if m in sys.modules), "EXIT", int(code))
"""


@pytest.mark.parametrize("args", [["--help"], ["--markers"]], ids=" ".join)
def test_loading_the_plugin_imports_no_library_it_does_not_need(args: list[str]) -> None:
    probe = LOADED.format(args=", ".join(map(repr, [*args, "-p", "no:cacheprovider"])),
                          heavy=NOT_AT_LOAD)
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert "LOADED True [] EXIT 0" in done.stdout, done.stdout[-2000:] + done.stderr


def test_a_ray_worker_imports_neither_pytest_nor_ray_to_start_a_trial() -> None:
    # What a Ray worker unpickles for each trial: the trial is then a session of its own.
    probe = ("import sys, pytest_mlab.plugin.dispatch.ray\n"
             "print('WORKER', sorted(m for m in {!r} if m in sys.modules))")
    done = subprocess.run(
        [sys.executable, "-c", probe.format((*NOT_AT_LOAD, "pytest", "pydantic"))],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert "WORKER []" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("module", ["pytest_mlab.env.task_worker", "pytest_mlab.llm.gateway.shim"])
def test_what_each_trial_starts_imports_no_llm_library(module: str) -> None:
    # The scorer's worker (per trial, per scored step) and the gateway's shim in a sandbox.
    names, done = _imported("-c", f"import {module}")
    assert done.returncode == 0 and module in names, done.stderr[-2000:]
    tops = {name.partition(".")[0] for name in names}
    assert not tops & {*NOT_AT_LOAD, "pydantic", "pytest", "_pytest"}, sorted(tops)


PROBE_CONFTEST = """
import json, sys
import pytest


def _note(what):
    litellm = sys.modules.get("litellm")
    with open({out!r}, "a") as out:
        out.write(json.dumps([what, sorted(m for m in {heavy!r} if m in sys.modules),
                              "pytest_mlab.report.html" in sys.modules,
                              None if litellm is None else id(litellm)]) + "\\n")


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if fixturedef.argname == "mlab_result":  # the fixture that runs the trial
        _note("trial starts")
    try:
        return (yield)
    finally:
        if fixturedef.argname == "mlab_result":
            _note("trial ends")


def pytest_unconfigure(config):
    _note("session ends")
"""


def _probe(pytester: pytest.Pytester) -> Callable[[], list[list[Any]]]:
    """A conftest noting, as each trial starts and ends and as the session ends, the heavy
    modules loaded, whether the report's renderer is, and which litellm module object."""
    out = pytester.path / "probe.jsonl"
    pytester.makeconftest(PROBE_CONFTEST.format(out=str(out), heavy=HEAVY))
    return lambda: [json.loads(line) for line in out.read_text().splitlines()]


def test_a_ray_nodes_session_imports_no_library_before_its_trial_and_renders_no_report(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_mlab.core.run_files import RUN_ID_VARIABLE

    recorded("guess")
    notes = _probe(pytester)
    # As plugin/dispatch/remote.py starts it on the node that took the trial.
    monkeypatch.setenv(RUN_ID_VARIABLE, "20261206-000000-node")
    monkeypatch.setenv("MLAB_TRIAL_CPUS", "1")
    run = pytester.runpytest_subprocess(
        "tasks/guess/task.toml::guess[oracle-t0]", "--agent=oracle", "--mlab-gpus=none",
        "-p", "no:xdist", "-q", *mlab_args)
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    assert notes() == [["trial starts", [], False, None], ["trial ends", [], False, None],
                       ["session ends", [], False, None]]
    run_dir = pytester.path / "reports" / "20261206-000000-node"
    assert len(json.loads((run_dir / "results.json").read_text())["results"]) == 1
    assert not (run_dir / "report.html").exists()


def test_a_session_of_llm_trials_imports_litellm_once_at_its_first_call(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    server: LLMServer,
) -> None:
    recorded("guess")
    notes = _probe(pytester)
    server.script.respond = lambda request: say(
        "Reflection: none\nResearch Plan and Status: none\nFact Check: none\nThought: done\n"
        'Action: Final Answer\nAction Input: {"final_answer": "done"}')
    # In a process of its own: this one may have imported litellm already.
    run = pytester.runpytest_subprocess(
        "tasks", "--agent=react", "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
        "--mlab-trials=2", *mlab_args)
    assert run.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), run.stdout.str()
    assert len(server.requests) == 2
    (first, first_end, second, second_end, end) = notes()
    assert [note[0] for note in (first, second, end)] == ["trial starts", "trial starts",
                                                          "session ends"]
    assert first[1] == [] and first[3] is None  # nothing before the first call
    assert first_end[1] == ["litellm"] and first_end[3] is not None
    # The second trial and the session's end meet the module the first call imported.
    assert second[3] == second_end[3] == end[3] == first_end[3]
