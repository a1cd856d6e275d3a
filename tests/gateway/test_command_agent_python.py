"""`python` in the sandbox is the trial's interpreter, the one with the task's libraries,
whatever the user's PATH holds and whatever environment the agent brings; the agent's own
tools stay reachable by their names (issue 33)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer

from pytest_mlab.sandbox.environ import sandbox_environ
from pytest_mlab.sandbox.python_bin import python_bin

PROBE = "import numpy, sys; print('trial python:', sys.executable, numpy.__name__)"
# Each part must succeed for the next to run: the trial's exit code tells them all.
COMMAND = (f"python -c {shlex.quote(PROBE)} && python3 -c 'import numpy' && python train.py"
           " && pip --version")


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


@pytest.mark.parametrize("kind", ["plain", "agent-venv", "agent-venv-llm"])
def test_python_is_the_trials_interpreter_and_the_starter_trains(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
    sandbox_args: list[str], monkeypatch: pytest.MonkeyPatch, kind: str,
) -> None:
    recorded("guess")
    # Debian's PATH, the harness's environment not activated; with an agent environment,
    # the user has activated that one instead.
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    args, command = [*mlab_args, *sandbox_args, "--agent=command"], COMMAND
    if kind != "plain":
        venv = agent_venv(pytester.path)
        monkeypatch.setenv("PATH", f"{venv / 'bin'}:/usr/bin:/bin")
        args.append(f"--mlab-agent-venv={venv}")
        command += " && mlab-agent-tool"
    if kind == "agent-venv-llm":
        args += ["--llm=openai/x", f"--mlab-llm-api-base={server.url}",
                 "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20"]
    pytester.runpytest("tasks", *args, f"--mlab-agent-cmd={command}")
    (record,) = read_results()
    assert record["isolation"] == ("docker" if sandbox_args else "bwrap")
    step, final = (json.loads(line) for line in Path(record["trace"]).read_text().splitlines())
    output = step["observation"]
    assert step["exit_code"] == 0, output
    assert f"trial python: {sys.executable} numpy" in output
    assert "guessed 40" in output  # the starter ran, and wrote its submission
    assert "the agent pip ran" not in output and "pip " in output
    if kind != "plain":
        assert "the agent tool ran" in output
    assert final["action"] == "Final Answer"
    assert record["outcome"] in ("passed", "failed") and record["score"] is not None


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
    environ = sandbox_environ({"PATH": "/home/u/bin:/usr/bin"}, {"PATH": "/trial/bin"},
                              home="/tmp")
    assert environ["PATH"] == "/trial/bin:/home/u/bin:/usr/bin"
    assert sandbox_environ({"PATH": "/usr/bin"}, {}, home="/tmp")["PATH"] == "/usr/bin"
