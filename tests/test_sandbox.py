from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from pytest_mlab.sandbox import LocalSandbox, SandboxSpec


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    (tmp_path / "spawn.py").write_text(
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        "open('child.pid', 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(300)\n"
    )
    result = LocalSandbox(SandboxSpec(tmp_path)).run([sys.executable, "spawn.py"], timeout=2)
    assert result.timed_out
    assert "started" in result.stdout
    child = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_the_environment_is_an_allowlist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Credentials hide under any name, so only the allowlist passes, with the trial's own.
    for name in ("OPENAI_API_KEY", "HF_TOKEN", "DATABASE_URL", "PIP_INDEX_URL", "HARMLESS"):
        monkeypatch.setenv(name, "secret")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    (tmp_path / "env.py").write_text("import os\nprint(dict(os.environ))\n")
    spec = SandboxSpec(tmp_path, environment={"MLAB_SEED": "7"})
    sandbox = LocalSandbox(spec)
    try:
        seen = eval(sandbox.run([sys.executable, "env.py"], timeout=30).stdout)
    finally:
        sandbox.close()
    assert "secret" not in seen.values()
    assert seen["OMP_NUM_THREADS"] == "3" and seen["MLAB_SEED"] == "7"


def test_exit_code_and_stderr_come_back(tmp_path: Path) -> None:
    (tmp_path / "fail.py").write_text("import sys\nprint('oops', file=sys.stderr)\nsys.exit(3)\n")
    result = LocalSandbox(SandboxSpec(tmp_path)).run([sys.executable, "fail.py"], timeout=30)
    assert (result.returncode, result.stderr.strip(), result.timed_out) == (3, "oops", False)
