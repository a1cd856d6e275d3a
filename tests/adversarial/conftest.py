"""What the adversarial tests share: sandboxes of both kinds (bubblewrap and docker), the
example world they attack, and the probe world of tests/examples/probe.

Every attack is bounded (a failing sandbox cannot take the machine down), and network
probes only ever target 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from docker_engine import require_docker_engine

from pytest_mlab.core.task import TrialLimits, load_task
from pytest_mlab.env.data import PreparedData, prepare_task, prepared_root
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.workspace import Workspace, provision_workspace
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.sandbox.isolation import available
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.python_bin import python_bin
from pytest_mlab.sandbox.resources import GIB, ResourceLimits
from pytest_mlab.sandbox.spec import SandboxSpec

EXAMPLES = Path(__file__).parent.parent / "examples"
SandboxFactory = Callable[..., Sandbox]
# Installed data that holds a task's answers (house-price's, titanic's): hidden by tasks.
HOUSE_PRICE = load_task(Path(__file__).parent.parent.parent / "tasks/lite/house-price/task.toml")
LIMITS = ResourceLimits(memory_bytes=GIB // 2, processes=64, file_bytes=64 << 20,
                        disk_bytes=GIB // 10)
KINDS = ("bwrap", "docker")
"""The sandboxes every attack is tried in: local with bubblewrap, and docker."""


@pytest.fixture(params=KINDS)
def sandbox_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "bwrap" and not available("bwrap"):
        pytest.skip("bubblewrap is not available: apt-get install bubblewrap")
    if request.param == "docker":
        require_docker_engine()
    kind: str = request.param
    return kind


@pytest.fixture
def kind_args(sandbox_kind: str) -> list[str]:
    """The command-line options that put a pytester run's trials in that sandbox."""
    if sandbox_kind == "docker":
        return ["--mlab-sandbox=docker"]
    return ["--mlab-isolation=bwrap"]


@pytest.fixture
def python_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache under /tmp holding the folder of the trial's ``python``, as a trial's has."""
    return tmp_path_factory.mktemp("python-cache")


@pytest.fixture
def make_sandbox(sandbox_kind: str, python_cache: Path) -> Iterator[SandboxFactory]:
    """Make sandboxes of the kind under test over a folder, the trial's ``python`` first
    on their PATH as in a trial; all are closed afterwards."""
    made: list[Sandbox] = []

    def make(workspace: Path, limits: ResourceLimits = LIMITS, protected: tuple[str, ...] = (),
             hidden: tuple[Path, ...] = (), mounts: tuple[tuple[str, str], ...] = (),
             cpus: tuple[int, ...] = ()) -> Sandbox:
        spec = SandboxSpec(workspace, isolation="bwrap", protected=protected, resources=limits,
                           hidden=hidden, mounts=mounts, python_bin=python_bin(python_cache),
                           cpus=cpus)
        if sandbox_kind == "bwrap":
            sandbox: Sandbox = LocalSandbox(spec)
        else:
            from pytest_mlab.sandbox.docker import DockerSandbox

            sandbox = DockerSandbox(spec)
        made.append(sandbox)
        return sandbox

    yield make
    for sandbox in made:
        sandbox.close()


@pytest.fixture
def world(tmp_path: Path) -> tuple[Workspace, PreparedData]:
    task = load_task(shutil.copytree(EXAMPLES / "guess", tmp_path / "task") / "task.toml")
    data = prepare_task(task, tmp_path / "cache")
    return provision_workspace(task, data, tmp_path / "ws"), data


@pytest.fixture
def env(
    world: tuple[Workspace, PreparedData], make_sandbox: SandboxFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Environment:
    """An environment over the guess world; the harness holds an API key meanwhile."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-adversarial-test-key")
    workspace, _ = world
    sandbox = make_sandbox(workspace.root, protected=tuple(workspace.protected),
                           hidden=tuple(HOUSE_PRICE.hidden_paths()))
    return Environment(
        research_problem="attack", entry="train.py", workspace=workspace, sandbox=sandbox,
        limits=TrialLimits(max_steps=100, max_time=600, script_timeout=60),
    )


def run_script(env: Environment, code: str, name: str = "attack.py") -> str:
    """What the agent sees after writing ``code`` to a script and running it."""
    env.execute("Write File", file_name=name, content=code)
    return env.execute("Execute Script", script_name=name)


def processes_with(needle: str) -> list[int]:
    """Processes on this machine (containers' included) whose command line holds ``needle``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes()
        except OSError:
            continue
        if needle.encode() in text and int(cmdline.parent.name) != os.getpid():
            found.append(int(cmdline.parent.name))
    return found


def files_holding(root: Path, needle: str) -> list[Path]:
    """Files below ``root`` (links not followed) whose content holds ``needle``."""
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                if needle.encode() in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
    return found


@dataclass
class ProbeWorld:
    """The probe task in a pytester folder, its targets, and what the agent logged."""

    root: Path
    task: Path
    targets: dict[str, Any]
    log: Path
    listener: socket.socket

    @property
    def marker(self) -> str:
        marker: str = self.targets["marker"]
        return marker

    @property
    def canary(self) -> str:
        canary: str = self.targets["canary"]
        return canary

    def harness_args(self) -> list[str]:
        """Options that put the canary in the harness's command line, as a URL with a
        token would be, and keep every workspace."""
        return [f"--mlab-llm-api-base=http://127.0.0.1:9/{self.canary}",
                "--mlab-keep-workspaces=all"]

    def observations(self) -> list[str]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def connected(self) -> bool:
        """Whether anything connected to the listener."""
        self.listener.settimeout(0.2)
        try:
            self.listener.accept()[0].close()
        except TimeoutError:
            return False
        return True

    def settle(self) -> None:
        """Wait past the moment a surviving daemon would have written (4 s after it
        started, then every 0.2 s)."""
        time.sleep(5.0)


def answers_path(task: Path, cache: Path) -> Path:
    """Where the harness keeps the task's private answers."""
    return prepared_root(load_task(task / "task.toml"), cache) / "private" / "answers.csv"


@pytest.fixture
def probe_world(
    pytester: pytest.Pytester, task_tree: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[ProbeWorld]:
    """The probe task, with a hidden file beside the interpreter and a visible one,
    canaries in the harness's home, /tmp, environment (an API key, a database URL, a
    package index URL) and command line, and a listener on 127.0.0.1."""
    task = task_tree("probe")
    tag = uuid.uuid4().hex[:10]
    beside = Path(sys.prefix) / "mlab-test-probe" / tag
    beside.mkdir(parents=True)
    canary = f"canary{tag}"
    (beside / "hidden.txt").write_text(f"hidden {canary}\n")
    (beside / "visible.txt").write_text("VISIBLE\n")
    manifest = task / "task.toml"
    manifest.write_text(manifest.read_text().replace(
        "hide = []", f"hide = [{str(beside / 'hidden.txt')!r}]"))
    home_canary = Path(os.environ["HOME"]) / f".mlab-canary-{tag}"
    tmp_canary = Path("/tmp") / f"mlab-canary-{tag}"
    for path in (home_canary, tmp_canary):
        path.write_text(f"{canary}\n")
    for name, value in (("OPENAI_API_KEY", f"sk-{canary}"),
                        ("DATABASE_URL", f"postgres://user:{canary}@db.invalid/x"),
                        ("PIP_INDEX_URL", f"https://user:{canary}@pypi.invalid/simple")):
        monkeypatch.setenv(name, value)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    cache = pytester.path / "cache"
    targets = {
        "marker": f"mlabprobe{tag}", "canary": canary,
        "answers": str(answers_path(task, cache)), "cache": str(cache),
        "home_canary": str(home_canary), "tmp_canary": str(tmp_canary),
        "hidden": str(beside / "hidden.txt"), "visible": str(beside / "visible.txt"),
        "port": listener.getsockname()[1], "reports": str(pytester.path / "reports"),
        "task": str(task), "shadow": str(pytester.path / "shadow-ran.txt"),
    }
    log = pytester.path / "agent-log.jsonl"
    monkeypatch.setenv("MLAB_TEST_PROBE", json.dumps(targets))
    monkeypatch.setenv("MLAB_TEST_LOG", str(log))
    try:
        yield ProbeWorld(pytester.path, task, targets, log, listener)
    finally:
        listener.close()
        shutil.rmtree(beside, ignore_errors=True)
        with contextlib.suppress(OSError):  # another test may still use it
            beside.parent.rmdir()
        tmp_canary.unlink(missing_ok=True)


ATTEMPTS = ("ans", "ans*", "home", "tmp", "var", "env", "cmd", "hid", "vis", "net", "wc", "wr",
            "wt", "wb", "ww", "own", "dmn")
"""The probe's attempts (tests/examples/hostile.py), in its order."""
MAY_SUCCEED = {"vis", "own", "dmn"}
"""Controls: reading a file the task does not hide, writing its own folder, forking."""


def blocked(found: dict[str, str]) -> dict[str, str]:
    """The probe's report, checked: every attempt ran, and all but the controls failed."""
    assert tuple(found) == ATTEMPTS, found
    # /dev/null over the file: empty, or refused where the mount forbids devices.
    assert found["hid"] in ("EMPTY", "ACCES"), found
    assert found["vis"].startswith("OK:VIS") and found["own"].startswith("OK:")
    assert found["dmn"].startswith("OK:sta"), found
    leaks = {key: value for key, value in found.items()
             if value.startswith("OK") and key not in MAY_SUCCEED}
    assert leaks == {}, found
    return found


def nothing_left(probe: ProbeWorld) -> None:
    """No daemon alive, nothing written by one or by the probe where the harness keeps its
    state, no module of the workspace imported by the scorer, no connection."""
    probe.settle()
    assert processes_with(probe.marker) == []
    assert files_holding(probe.root, probe.marker[::-1]) == []
    assert not list(probe.root.rglob("daemon-alive.txt"))
    assert not list(probe.root.rglob("planted.txt"))
    assert not (probe.root / "shadow-ran.txt").exists()
    assert not (probe.task / "baseline.json").exists()
    assert not probe.connected()
