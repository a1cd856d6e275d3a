"""`python` in a sandbox is a folder of start scripts shown at a fixed path (issue 33): the
agent finds the trial's interpreter by name, runs it under the sandbox's confinement, and
can neither change the scripts nor see the cache they live in (its path would appear,
writable, on the sandbox's /tmp if the folder were shown at its own path)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import SandboxFactory
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.sandbox.isolation import available
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.python_bin import INSIDE, python_bin
from pytest_mlab.sandbox.spec import SandboxSpec

ATTACK = r'''
import json, os, shutil, sys
CACHE, FOLDER, ATTACKS = sys.argv[1], sys.argv[2], sys.argv[3] == "attack"
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
tried = {}
def attempt(name, action):
    try:
        action()
        tried[name] = "OK"
    except OSError as exc:
        tried[name] = type(exc).__name__
if ATTACKS:
    attempt("append", lambda: open(os.path.join(FOLDER, "python"), "a").write("id\n"))
    attempt("create", lambda: open(os.path.join(FOLDER, "planted"), "w").write("x"))
    attempt("chmod", lambda: os.chmod(os.path.join(FOLDER, "pip"), 0o777))
    attempt("rename", lambda: os.rename(os.path.join(FOLDER, "pip"), os.path.join(FOLDER, "p")))
    attempt("remove", lambda: os.unlink(os.path.join(FOLDER, "python3")))
    attempt("cache", lambda: open(os.path.join(CACHE, "planted"), "w").write("x"))
import numpy
print(json.dumps({
    "executable": sys.executable, "numpy": numpy.__name__, "tried": tried,
    "CapEff": status["CapEff"].strip(), "NoNewPrivs": status["NoNewPrivs"].strip(),
    "Seccomp": status["Seccomp"].strip(), "cache seen": os.path.lexists(CACHE),
    "path": os.environ["PATH"].split(":")[0],
}))
'''
# The agent's shell finds `python`, `python3` and `pip` by name, as an agent's command would.
SHELL = ('command -v python && command -v python3 && command -v pip && '
         'pip --version >/dev/null && echo PIP-OK && '
         'python3 -c "import numpy" && python attack.py "$0" "$1" "$2"')


def _contents(folder: Path) -> dict[str, tuple[str, int]]:
    return {p.name: (p.read_text(), p.stat().st_mode) for p in folder.iterdir()}


def _attack(sandbox: Sandbox, folder: Path, shown: str, cache: Path, workspace: Path,
            mode: str = "attack") -> dict[str, Any]:
    (workspace / "attack.py").write_text(ATTACK)
    before = _contents(folder)
    result = sandbox.run(["/bin/sh", "-c", SHELL, str(cache), shown, mode], timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[:4] == [f"{shown}/python", f"{shown}/python3", f"{shown}/pip", "PIP-OK"]
    assert _contents(folder) == before
    assert not (cache / "planted").exists()
    report: dict[str, Any] = json.loads(lines[-1])
    assert report["executable"] == sys.executable and report["numpy"] == "numpy"
    assert report["path"] == shown
    return report


def test_the_python_folder_is_the_trials_confined_read_only_and_hides_the_cache(
    make_sandbox: SandboxFactory, python_cache: Path, tmp_path: Path,
) -> None:
    assert os.geteuid() == 0 or not os.environ.get("CI"), "CI runs these as root"
    assert str(python_cache).startswith("/tmp/"), "the cache must lie where /tmp is writable"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    sandbox = make_sandbox(workspace)
    report = _attack(sandbox, python_bin(python_cache), INSIDE, python_cache, workspace)
    # Started by a script of the folder, the interpreter is as confined as any program.
    assert (report["CapEff"], report["NoNewPrivs"], report["Seccomp"]) == (
        "0000000000000000", "1", "2")
    assert len(report["tried"]) == 6, report
    assert set(report["tried"].values()) <= {"PermissionError", "OSError",
                                              "FileNotFoundError"}, report["tried"]
    assert report["cache seen"] is False


@pytest.mark.parametrize("level", ["netns", "none"])
def test_without_a_mount_namespace_the_folder_is_on_path_at_its_own_path(
    level: str, tmp_path: Path,
) -> None:
    if not available(level):
        pytest.skip(f"{level} isolation does not work here")
    cache, workspace = tmp_path / "cache", tmp_path / "workspace"
    workspace.mkdir()
    folder = python_bin(cache)
    sandbox = LocalSandbox(SandboxSpec(workspace, isolation=level, python_bin=folder))
    try:
        # Here the folder is guarded by its mode alone, as the rest of the machine is.
        report = _attack(sandbox, folder, str(folder), cache, workspace, mode="look")
    finally:
        sandbox.close()
    assert (report["CapEff"], report["NoNewPrivs"]) == ("0000000000000000", "1")
    assert report["cache seen"] is True
