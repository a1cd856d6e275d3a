"""`python` in the sandbox is the trial's interpreter, the one with the task's libraries,
whatever the user's PATH holds and whatever environment the agent brings; the agent's own
tools stay reachable by their names (issue 33). The command agent trains house-price's
starter, as a user runs it:

    pytest tasks/lite/house-price --agent=command --mlab-agent-cmd="python train.py"
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer

from pytest_mlab.sandbox.environ import sandbox_environ
from pytest_mlab.sandbox.python_bin import INSIDE, python_bin

REPO = Path(__file__).parents[2]
PROBE = "import numpy, sys; print('trial python:', sys.executable, numpy.__name__)"
# Each part must succeed for the next to run: the trial's exit code tells them all.
COMMAND = (f"command -v python && python -c {shlex.quote(PROBE)} && python3 -c 'import numpy'"
           " && python train.py && pip --version")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One prepared copy of house-price, and its baseline measured once, for every run."""
    return tmp_path_factory.mktemp("cache")


def agent_venv(root: Path) -> Path:
    """A real virtual environment, numpy-less like an agent's, with a tool of its own and
    a pip that must not be the one the trial's `pip` finds."""
    venv = root / "agent-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    for name, text in {"mlab-agent-tool": "echo the agent tool ran",
                       "pip": "echo the agent pip ran; exit 1"}.items():
        (venv / "bin" / name).write_text(f"#!/bin/sh\n{text}\n")
        (venv / "bin" / name).chmod(0o755)
    return venv


# The two corners (nothing, everything) in CI; the mixed ones re-check them.
@pytest.mark.parametrize("kind", [
    "plain", pytest.param("agent-venv", marks=pytest.mark.expensive),
    pytest.param("llm", marks=pytest.mark.expensive), "agent-venv-llm"])
def test_python_is_the_trials_interpreter_and_the_starter_trains(
    server: LLMServer, sandbox_args: list[str], cache: Path, tmp_path: Path, kind: str,
) -> None:
    # Debian's PATH, the harness's environment not activated; with an agent environment,
    # the user has activated that one instead.
    path, command = "/usr/bin:/bin", COMMAND
    args = ["--agent=command", *sandbox_args]
    if "agent-venv" in kind:
        venv = agent_venv(tmp_path)
        path = f"{venv / 'bin'}:{path}"
        args.append(f"--mlab-agent-venv={venv}")
        command += " && mlab-agent-tool"
    if "llm" in kind:
        args += ["--llm=openai/x", f"--mlab-llm-api-base={server.url}",
                 "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20"]
    reports = tmp_path / "reports"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tasks/lite/house-price", *args,
         f"--mlab-agent-cmd={command}", "-p", "no:cacheprovider", f"--mlab-cache-dir={cache}",
         f"--mlab-report-dir={reports}", "--mlab-keep-workspaces=none"],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env=os.environ | {"PATH": path, "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-3000:]
    (results,) = reports.glob("*/results.json")
    (record,) = json.loads(results.read_text())["results"]
    assert record["isolation"] == ("docker" if sandbox_args else "bwrap")
    step, final = (json.loads(line) for line in Path(record["trace"]).read_text().splitlines())
    output: str = step["observation"]
    assert step["exit_code"] == 0, output
    assert f"Output:\n{INSIDE}/python\n" in output, output  # the fixed path, not the cache's
    assert f"trial python: {sys.executable} numpy" in output
    assert "Validation MAE" in output and "Wrote submission.csv with 586 rows" in output
    assert "the agent pip ran" not in output and "pip " in output
    assert ("the agent tool ran" in output) == ("agent-venv" in kind)
    assert final["action"] == "Final Answer"
    _scored(record)


def _scored(record: dict[str, Any]) -> None:
    """The submission the starter wrote is scored like any other."""
    assert record["ended_by"] == "final answer" and record["error_class"] is None
    assert isinstance(record["score"], float) and record["score"] > 0, record["message"]
    assert record["outcome"] in ("passed", "failed")


def test_the_python_folder_holds_only_the_trials_interpreter(tmp_path: Path) -> None:
    folder = python_bin(tmp_path / "cache")
    assert python_bin(tmp_path / "cache") == folder  # made once, then found
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["python", "python3", version, "pip", "pip3"])
    ran = subprocess.run([str(folder / "python"), "-c", "import sys; print(sys.prefix)"],
                         capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == sys.prefix  # a link would have lost the environment
    assert not folder.stat().st_mode & 0o222
    # A damaged copy is made again, not used.
    folder.chmod(0o755)
    (folder / "pip").unlink()
    assert python_bin(tmp_path / "cache") == folder and (folder / "pip").is_file()


def test_the_trials_path_goes_before_the_users() -> None:
    environ = sandbox_environ({"PATH": "/home/u/bin:/usr/bin"}, {"PATH": "/agent/bin"},
                              home="/tmp", python_bin=INSIDE)
    assert environ["PATH"] == f"{INSIDE}:/agent/bin:/home/u/bin:/usr/bin"
    assert sandbox_environ({"PATH": "/usr/bin"}, {}, home="/tmp")["PATH"] == "/usr/bin"
    assert sandbox_environ({}, {}, home="/tmp")["PATH"] == os.defpath
