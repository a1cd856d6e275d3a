"""The shim's supervision of an external agent's command once its trial is over."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from pytest_mlab.llm.gateway import SHIM

REASON = "The trial's LLM budget is spent (test); no further calls are answered."


def supervise(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` under the shim and mark the trial over once it has started."""
    over, started = tmp_path / "over", tmp_path / "started"
    argv = [sys.executable, str(SHIM), "0", str(tmp_path / "no.sock"), str(over), "--",
            "/bin/sh", "-c", f"touch {started}; {script}"]
    shim = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def mark_over() -> None:
        while not started.exists() and shim.poll() is None:
            time.sleep(0.05)
        partial = tmp_path / "over.partial"
        partial.write_text(REASON + "\n")
        partial.replace(over)

    threading.Thread(target=mark_over, daemon=True).start()
    out, err = shim.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, shim.returncode, out, err)


def test_a_refused_command_ends_on_its_own_and_keeps_its_words(tmp_path: Path) -> None:
    # As an agent does when its next call is refused: it notices, takes a moment (a
    # backoff, its own log), says so and exits. The shim looks five times a second.
    ended = supervise(tmp_path, "while [ ! -e over ]; do sleep 0.05; done; sleep 1; "
                                "echo 'the model refused: 429'; exit 3")
    assert ended.returncode == 3
    assert "the model refused: 429" in ended.stdout


def test_a_command_that_ignores_the_end_is_stopped(tmp_path: Path) -> None:
    # Deaf to SIGTERM as well: the shim's last word is SIGKILL.
    ended = supervise(tmp_path, "trap '' TERM; while :; do sleep 0.1; done")
    assert ended.returncode != 0
    assert f"[pytest-mlab] {REASON}" in ended.stderr
