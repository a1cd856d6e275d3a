"""Task folders in the original MLAgentBench layout, with content of these tests' own."""

from __future__ import annotations

import contextlib
import http.server
import shlex
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

OVERLAY = """\
name = "{name}"
data_source = "rows written by the test's prepare.py"
sources = {sources}
eval_sound = true
requirements = ["numpy"]
submission = ["submission.csv"]
threshold = 0.1
{extra}
[metric]
name = "mae"
direction = "lower"
[limits]
max_steps = 5
max_time = 120
script_timeout = 60
score_timeout = 60
[resources]
gpus = {gpus}
memory_gb = 2
[baseline]
kind = "per-machine"
runs = 1
"""

# prepare.py as the original writes it: run from scripts/, data to ../env, answers here.
PREPARE = """\
import csv
{fetch}
rows = [(i, 2.0 * i + 1.0) for i in range(40)]
with open("../env/train.csv", "w", newline="") as f:
    csv.writer(f).writerows([("x", "y"), *rows[:30]])
with open("../env/test.csv", "w", newline="") as f:
    csv.writer(f).writerows([("x",), *[(x,) for x, _ in rows[30:]]])
with open("answer.csv", "w", newline="") as f:
    csv.writer(f).writerows([("y",), *[(y,) for _, y in rows[30:]]])
"""

EVAL = """\
import csv
import os


def get_score(submission_folder="../env"):
    here = os.path.dirname(__file__)
    with open(os.path.join(here, "answer.csv")) as f:
        want = [float(r["y"]) for r in csv.DictReader(f)]
    with open(os.path.join(submission_folder, "submission.csv")) as f:
        got = [float(r["y"]) for r in csv.DictReader(f)]
    if len(got) != len(want):
        raise ValueError(f"{len(got)} predictions for {len(want)} rows")
    return sum(abs(a - b) for a, b in zip(got, want)) / len(want)
"""

# The starter predicts the training mean; a fitted line would do far better.
TRAIN = """\
import csv
import os

with open("train.csv") as f:
    ys = [float(r["y"]) for r in csv.DictReader(f)]
with open("test.csv") as f:
    n = sum(1 for _ in csv.DictReader(f))
with open("submission.csv", "w", newline="") as f:
    csv.writer(f).writerows([("y",), *[(sum(ys) / len(ys),)] * n])
with open("seen_gpus.txt", "w") as f:
    f.write(os.environ.get("CUDA_VISIBLE_DEVICES", "unset"))
print("wrote submission.csv")
"""


def write_task(
    benchmarks: Path, overlays: Path, name: str, *, sources: str = "[]", gpus: int = 0,
    extra: str = "", fetch: str = "", overlay: bool = True,
) -> Path:
    """Write ``benchmarks/<name>`` in the original layout and, unless told not to, its
    overlay in ``overlays``."""
    folder = benchmarks / name
    (folder / "env").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "env" / "train.py").write_text(TRAIN)
    # The starter's own tests are content, never collected as ours.
    (folder / "env" / "model_test.py").write_text("import no_such_module\n")
    (folder / "scripts" / "research_problem.txt").write_text(
        "Fill in train.py to predict y from x; write submission.csv.\n")
    (folder / "scripts" / "prepare.py").write_text(PREPARE.format(fetch=fetch))
    (folder / "scripts" / "eval.py").write_text(EVAL)
    (folder / "scripts" / "read_only_files.txt").write_text("./train.csv\n./test.csv\n")
    if overlay:
        overlays.mkdir(parents=True, exist_ok=True)
        text = OVERLAY.format(name=name, sources=sources, gpus=gpus,
                              extra=textwrap.dedent(extra))
        (overlays / f"{name}.toml").write_text(text)
    return folder


def write_accuracy_task(
    benchmarks: Path, overlays: Path, name: str, *, prepare: str, evaluate: str,
    starter: str, read_only: str, extra: str,
) -> Path:
    """An original-layout task of the given scripts whose overlay scores accuracy (higher
    is better), with ``extra`` keys."""
    folder = write_task(benchmarks, overlays, name, extra=extra)
    (folder / "scripts" / "prepare.py").write_text(prepare)
    (folder / "scripts" / "eval.py").write_text(evaluate)
    (folder / "scripts" / "read_only_files.txt").write_text(read_only)
    (folder / "env" / "train.py").write_text(starter)
    overlay = overlays / f"{name}.toml"
    overlay.write_text(overlay.read_text().replace('name = "mae"', 'name = "accuracy"')
                       .replace('"lower"', '"higher"'))
    return folder


def run_command_agent(pytester: pytest.Pytester, script: str,
                      mlab_args: list[str]) -> pytest.RunResult:
    """Run the folders under benchmarks/ with an agent that runs ``script`` with this
    Python in the workspace, keeping the workspaces."""
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    return pytester.runpytest(str(pytester.path / "benchmarks"), "--agent=command",
                              f"--mlab-agent-cmd={command}", "--mlab-keep-workspaces=all",
                              f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args)


@contextlib.contextmanager
def serving(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` answering on a loopback port while the block runs: its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def http_mirror(folder: Path) -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server standing in for where a task downloads from: its URL, and
    the paths asked of it, in order. It serves the files in ``folder``."""
    asked: list[str] = []

    class Recording(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            super().do_GET()

    with serving(partial(Recording, directory=str(folder))) as url:
        yield url, asked
