"""What a Ray node hands back and what it leaves. A trial's files go back with the links
an agent made as links, never the node's files they name. A killed worker's trial
session ends with it, and its scratch folder is removed by the next trial there, never
while anyone still uses it.

The worker here is a plain process that does what ``dispatch_remote.run_job`` does: takes
a scratch folder and starts a session holding its lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.plugin.dispatch import remote as dispatch_remote
from pytest_mlab.plugin.dispatch.remote import WORKER_VARIABLE, pack, passed_environ, unpack
from pytest_mlab.plugin.dispatch.remote_scratch import (
    remove_abandoned,
    scratch_folder,
    scratch_root,
)

SESSION = """
import os, sys, time
from pathlib import Path
from pytest_mlab.plugin.dispatch.remote import end_with_worker
here = Path(sys.argv[1])
end_with_worker()
try:
    (here / "session.pid").write_text(str(os.getpid()))
    time.sleep(120)
    (here / "ran on").touch()
except KeyboardInterrupt as stop:
    (here / "interrupted").write_text(str(stop))
"""
WORKER = f"""
import os, subprocess, sys, time
from pathlib import Path
from pytest_mlab.plugin.dispatch.remote_scratch import scratch_folder
with scratch_folder() as scratch:
    (scratch.folder / "snapshot.bin").write_bytes(b"w" * 1000)
    env = os.environ | {{"{WORKER_VARIABLE}": str(os.getpid())}}
    subprocess.Popen([sys.executable, "-c", {SESSION!r}, str(scratch.folder)], env=env,
                     pass_fds=(scratch.lock_fd,))
    time.sleep(120)
"""


def _wait_for(condition: Callable[[], bool], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def node_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The node's temporary folder, for this process and the workers it starts."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    return tmp_path


def _start_worker(script: str = WORKER) -> tuple[subprocess.Popen[bytes], Path]:
    worker = subprocess.Popen([sys.executable, "-c", script])
    root = scratch_root()
    assert _wait_for(lambda: any(root.glob("*/session.pid"))), "the session never started"
    (folder,) = (path.parent for path in root.glob("*/session.pid"))
    return worker, folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_killed_workers_session_ends_and_then_its_folder_goes(node_tmp: Path) -> None:
    worker, folder = _start_worker()
    session = int((folder / "session.pid").read_text())
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    assert _wait_for(lambda: (folder / "interrupted").exists()), "the session ran on"
    assert "Ray worker" in (folder / "interrupted").read_text()
    assert _wait_for(lambda: not Path(f"/proc/{session}").exists() or
                     "Z" in Path(f"/proc/{session}/stat").read_text().split()[2])
    # The next trial on the node removes what the killed one left, and nothing else.
    with scratch_folder() as scratch:
        assert not folder.exists()
        assert scratch.folder.is_dir()
    assert list(scratch_root().iterdir()) == []


def test_a_folder_is_kept_while_its_session_lives_on(node_tmp: Path) -> None:
    """A session that outlives its worker (no Linux, or not yet ended) still holds the
    lock it was handed: its folder stays until it too is gone."""
    worker, folder = _start_worker(WORKER.replace("end_with_worker()", "pass"))
    root = folder.parent
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    assert remove_abandoned(root) == []
    assert (folder / "snapshot.bin").exists()
    os.kill(int((folder / "session.pid").read_text()), signal.SIGKILL)
    assert _wait_for(lambda: remove_abandoned(root) == [folder.name])
    assert not folder.exists()


def test_a_trial_that_ends_removes_its_own_folder(node_tmp: Path) -> None:
    with scratch_folder() as scratch:
        (scratch.folder / "trace.jsonl").write_text("{}")
        assert remove_abandoned(scratch_root()) == []  # its own lock is held
    assert list(scratch_root().iterdir()) == []


def test_a_scratch_root_that_is_not_the_users_own_is_refused(node_tmp: Path) -> None:
    (node_tmp / "elsewhere").mkdir()
    (node_tmp / f"mlab-remote-{os.getuid()}").symlink_to(node_tmp / "elsewhere")
    from pytest_mlab.core.errors import InfrastructureError

    with pytest.raises(InfrastructureError, match="is not a folder of this user's"):
        scratch_root()


def test_links_in_a_kept_workspace_go_back_as_links_and_the_store_as_files(
    tmp_path: Path,
) -> None:
    """An agent's workspace may hold links to anything on the node (made in the sandbox,
    where their targets cannot be read); the snapshot store's alternates are the harness's
    own links into the node's data cache."""
    node = tmp_path / "node"
    (node / "home").mkdir(parents=True)
    (node / "home" / "credentials").write_text("node-secret-key")
    store = node / "cache" / "objects" / "ab"
    store.mkdir(parents=True)
    (store / "abcd").write_text("starter code")
    run = node / "run"
    workspace = run / "workspaces" / "trial-t0"
    workspace.mkdir(parents=True)
    (workspace / "model.pt").write_text("weights")
    (workspace / "key").symlink_to(node / "home" / "credentials")
    (workspace / "everything").symlink_to("/")
    alternates = run / "snapshots" / "objects" / "alternates"
    alternates.mkdir(parents=True)
    (alternates / "c0ffee").symlink_to(node / "cache" / "objects", target_is_directory=True)
    (run / "traces").mkdir()
    (run / "traces" / "trial-t0.jsonl").write_text("{}")

    files = pack(run)
    assert len(files) < 100_000  # not all of /
    controller = tmp_path / "controller"
    unpack(files, controller)
    kept = controller / "workspaces" / "trial-t0"
    assert (kept / "model.pt").read_text() == "weights"
    assert os.readlink(kept / "key") == str(node / "home" / "credentials")
    assert os.readlink(kept / "everything") == "/"
    shipped = controller / "snapshots" / "objects" / "alternates" / "c0ffee"
    assert not shipped.is_symlink() and (shipped / "ab" / "abcd").read_text() == "starter code"
    (node / "home" / "credentials").unlink()  # what came back holds no copy of it
    assert not any("node-secret-key" in path.read_text(errors="replace")
                   for path in controller.rglob("*") if path.is_file() and not path.is_symlink())


def test_no_secret_of_the_controllers_goes_to_the_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LITELLM_MASTER_KEY", "LITELLM_API_TOKEN", "OPENAI_API_KEY", "MLAB_SECRET"):
        monkeypatch.setenv(name, "sk-controller")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("MLAB_SEED", "7")
    passed = passed_environ()
    assert "sk-controller" not in passed.values()
    assert passed["LITELLM_LOCAL_MODEL_COST_MAP"] == "True" and passed["MLAB_SEED"] == "7"


STAND_IN = """
import signal, sys
from pytest_mlab.plugin.dispatch.remote import RemoteJob, run_job
# As a Ray worker: Ctrl-C is an interrupt, even where this test's own shell started it
# with SIGINT ignored (an asynchronous command of a shell without job control is).
signal.signal(signal.SIGINT, signal.default_int_handler)
nodeid, root, run_id = sys.argv[1:]
run_job(RemoteJob(nodeid=nodeid, args=("--agent=scripted_agents:WaitingAgent",
                                       "--mlab-isolation=none", "--mlab-allow-weak-sandbox",
                                       f"--mlab-cache-dir={root}/cache"),
                  rootdir=root, invocation_dir=root, run_id=run_id, cpus=1, environ={}), [])
"""


def test_a_worker_interrupted_mid_trial_ends_its_session(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], node_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ray cancels a running task by interrupting its worker, which lives on: the trial's
    session, in a process group of its own, must not run on unseen."""
    recorded("guess")
    probes = pytester.mkdir("probes")
    monkeypatch.setenv("MLAB_PROBE_DIR", str(probes))
    monkeypatch.setenv("MLAB_WAIT_SECONDS", "6")
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    collected = pytester.runpytest("tasks", "--agent=scripted_agents:WaitingAgent",
                                   "--collect-only", "-q",
                                   f"--mlab-cache-dir={pytester.path / 'cache'}")
    (nodeid,) = [line for line in collected.outlines if "::" in line]
    worker = subprocess.Popen([sys.executable, "-c", STAND_IN, nodeid, str(pytester.path),
                               "20261201-000000-int"], stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: any(probes.iterdir()), 120), "the trial never started"
    session = int(next(probes.iterdir()).read_text().split()[0])
    worker.send_signal(signal.SIGINT)
    # The worker waits up to _TEARDOWN_SECONDS for the session to remove its sandbox: a
    # loaded machine may need much of it, and a shorter wait here fails a correct end.
    _, errors = worker.communicate(timeout=dispatch_remote._TEARDOWN_SECONDS + 30)
    assert "KeyboardInterrupt" in errors
    assert _wait_for(lambda: not Path(f"/proc/{session}").exists(), 30), "the session ran on"
    assert list(scratch_root().iterdir()) == []
