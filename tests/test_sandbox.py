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


def test_credentials_are_scrubbed_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    monkeypatch.setenv("HF_TOKEN", "hf-secret")
    monkeypatch.setenv("HARMLESS", "visible")
    (tmp_path / "env.py").write_text("import os\nprint(sorted(os.environ.items()))\n")
    result = LocalSandbox(SandboxSpec(tmp_path)).run([sys.executable, "env.py"], timeout=30)
    assert "visible" in result.stdout
    assert "secret" not in result.stdout


def test_exit_code_and_stderr_come_back(tmp_path: Path) -> None:
    (tmp_path / "fail.py").write_text("import sys\nprint('oops', file=sys.stderr)\nsys.exit(3)\n")
    result = LocalSandbox(SandboxSpec(tmp_path)).run([sys.executable, "fail.py"], timeout=30)
    assert (result.returncode, result.stderr.strip(), result.timed_out) == (3, "oops", False)
