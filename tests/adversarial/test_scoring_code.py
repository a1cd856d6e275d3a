"""Workspace code that a scorer runs (the probe task's check(), like the timing tasks'
functions) runs in the trial's kind of sandbox, with the task's hide list, no keys, no
network, no cache, reports, task folders or other trials; nothing it starts outlives it;
nothing it leaves in the folder it shares with the scorer (links, FIFOs, huge or endless
output, a moved folder) reaches the scorer; and whatever it does, the trial ends with a
verdict, never a harness error."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ProbeWorld, SandboxFactory, blocked, nothing_left
from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.taskkit.timed_child import ChildProgram, start_timed_child


@pytest.mark.slow
def test_the_scorers_child_reaches_nothing_and_outlives_nothing(
    pytester: pytest.Pytester, probe_world: ProbeWorld, kind_args: list[str],
    sandbox_kind: str, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    run = pytester.runpytest_subprocess(
        "tasks", "--agent=scripted_agents:ProbeAgent", *kind_args, *mlab_args,
        *probe_world.harness_args(), timeout=600,
    )
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["isolation"] == sandbox_kind and record["ended_by"] == "final answer"
    message = str(record["message"])
    prefix = "probe: invalid submission: The call to check failed (RuntimeError: probe:"
    assert message.startswith(prefix), message
    assert probe_world.canary not in message
    pairs = message.removeprefix(prefix).removesuffix(").").split(",")
    blocked(dict(pair.split("=", 1) for pair in pairs))
    assert Path(probe_world.targets["answers"]).is_file()  # the path the probe tried is real
    nothing_left(probe_world)


ADAPTER = 'def call(fn, inputs, context):\n    return fn(inputs["x"])\n'
PROGRAM = ChildProgram(function="f", adapter=ADAPTER)


def _sentence(
    make_sandbox: SandboxFactory, folder: Path, train_py: str,
    program: ChildProgram = PROGRAM,
) -> str:
    """The sentence that ends timing f of ``train_py`` in a sandbox over ``folder``."""
    folder.mkdir(parents=True)
    (folder / "train.py").write_text(textwrap.dedent(train_py))
    runner = make_sandbox(folder)
    with (
        start_timed_child(folder, runner, program, 120.0) as child,
        pytest.raises(InvalidSubmission) as caught,
    ):
        child.wait_until_ready(60.0)
        child.call({"x": np.arange(3)}, "call0", 60.0)
    return str(caught.value)


# f replaces numpy.save, which the driver calls to write f's output.
OUTPUTS = {
    "a FIFO": ("os.mkfifo(path)", "The output of f is not a regular file."),
    "a link to a file of the scorer's": (
        "os.symlink('/etc/passwd', path)",
        "The output of f is unreadable (Too many levels of symbolic links).",
    ),
    "a header declaring terabytes": (
        "open(path, 'wb').write(b'\\x93NUMPY\\x01\\x00v\\x00' + (\"{'descr': '<f8', "
        "'fortran_order': False, 'shape': (1000000000000,), }\").ljust(117).encode() + b'\\n')",
        "The output of f is unreadable (Unable to allocate",
    ),
    "more than the scorer reads": (
        "open(path, 'wb').write(b'0' * (2 << 20))",
        "The output of f holds 2097152 bytes, more than the 1048576 the scorer reads.",
    ),
}


@pytest.mark.parametrize("output", OUTPUTS)
def test_an_output_the_scorer_must_not_read_is_invalid(
    make_sandbox: SandboxFactory, tmp_path: Path, output: str
) -> None:
    plant, sentence = OUTPUTS[output]
    train_py = f"""
        import os, numpy
        def save(path, array, **options):
            {plant}
        def f(x):
            numpy.save = save
            return x
        """
    program = ChildProgram(function="f", adapter=ADAPTER, max_output_bytes=1 << 20)
    assert _sentence(make_sandbox, tmp_path / "s", train_py, program).startswith(sentence)


SWAP_FOR_A_LINK = """
import os, threading, time
def swap():
    time.sleep(1)
    os.rename(".mlab-scoring", "moved")
    os.makedirs({outside!r}, exist_ok=True)
    os.symlink({outside!r}, ".mlab-scoring")
swapper = threading.Thread(target=swap)
def f(x):
    if not swapper.is_alive() and not os.path.exists("moved"):
        swapper.start()
    return x
"""


def test_a_folder_moved_for_a_link_leads_the_scorer_nowhere(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    # Once its first output is read, f puts a link to a folder of the scorer's machine
    # where the scratch folder was (it makes the same path in its own /tmp): a scorer
    # following the link wrote its next input there.
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "train.py").write_text(SWAP_FOR_A_LINK.format(outside=str(outside)))
    with (
        start_timed_child(folder, make_sandbox(folder), PROGRAM, 120.0) as child,
        pytest.raises(InvalidSubmission) as caught,
    ):
        child.wait_until_ready(60.0)
        child.call({"x": np.arange(3)}, "call0", 60.0)
        time.sleep(2)
        child.call({"x": np.arange(3)}, "call1", 60.0)
    assert str(caught.value).startswith("The call to f failed (FileNotFoundError"), caught.value
    assert list(outside.iterdir()) == []


def test_an_endless_protocol_line_is_invalid(make_sandbox: SandboxFactory, tmp_path: Path) -> None:
    train_py = """
        import sys
        def f(x):
            proto = sys.modules["__main__"].proto
            for _ in range(64):
                proto.write("x" * (1 << 20))
            proto.flush()
            return x
        """
    assert _sentence(make_sandbox, tmp_path / "s", train_py) == (
        "The scoring process wrote a line longer than 4096 bytes while running f."
    )


def test_breaking_a_limit_at_scoring_time_names_it(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    disk = """
        def f(x):
            for n in range(40):
                with open(f"fill{n}", "wb") as handle:
                    handle.write(b"0" * (10 << 20))
            return x
        """
    sentence = _sentence(make_sandbox, tmp_path / "disk", disk)
    assert sentence.startswith("The scoring process was stopped while running f: the "
                               "workspace grew by "), sentence
    assert "more than the trial's disk quota of 0.1 GB" in sentence
    memory = """
        import subprocess, sys, time
        HOG = "import time; b = bytearray(200 << 20); time.sleep(10)"
        def f(x):
            children = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2)]
            b = bytearray(200 << 20)
            time.sleep(10)
            return x
        """
    assert _sentence(make_sandbox, tmp_path / "memory", memory) == (
        "The scoring process was stopped while running f: its processes and its files in "
        "/tmp together used more than the trial's 0.5 GB of memory."
    )
