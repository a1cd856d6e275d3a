"""The run browser's pages, timed as a user meets them: ``python -m pytest_mlab view`` in a
process of its own (its heap holding only what it read), each page's requests one after
another, on the first visit and again. Each page is timed twice over: the wall time the
page took, and the server's CPU time for it (what the page costs where nothing else runs;
on a loaded machine the wall time also counts the other processes' turns)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse.server import PAGE

IDLE_SECONDS = 0.5
"""The server is idle once its CPU time stood still this long (its start, scipy's import
in the background, is done)."""


@dataclass(frozen=True)
class Page:
    first: float
    again: float
    first_cpu: float
    again_cpu: float


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of the process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _idle(pid: int, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    before = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(IDLE_SECONDS)
        now = cpu_seconds(pid)
        if now == before:
            return
        before = now
    raise AssertionError(f"the server was still busy after {limit:g} s")


@contextmanager
def view_server(root: Path) -> Iterator[tuple[str, int]]:
    """The server's URL and process id, once it is idle."""
    command = [sys.executable, "-m", "pytest_mlab", "view", str(root)]
    server = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        url = line.split(" at ", 1)[1].split(" ", 1)[0].rstrip("/")
        _idle(server.pid)
        yield url, server.pid
    finally:
        server.terminate()
        server.wait(timeout=60)


def _get(url: str) -> None:
    with urllib.request.urlopen(url, timeout=300) as answer:
        assert answer.status == 200
        answer.read()


def pages(key: str, run: RunResults) -> dict[str, list[str]]:
    """Each page of the browser by the requests it makes: its files, or its answers."""
    size = len(run.results)
    trial = next(n for n in range(size // 2, size) if run.results[n].trace is not None)
    query = f"run={key}"
    return {
        "run list": ["/", "/app.js", "/tables.js", "/app.css", "/api/runs"],
        "run": [f"/api/run?{query}", f"/api/chart?{query}&name=success",
                f"/api/chart?{query}&name=improvement"],
        "last trials": [f"/api/run?{query}&offset={(size - 1) // PAGE * PAGE}"],
        "errors only": [f"/api/run?{query}&outcome=error"],
        "trial": [f"/api/trial?{query}&i={trial}",
                  f"/api/steps?{query}&i={trial}&start=0&count=20"],
    }


def visit(run_dir: Path, run: RunResults) -> dict[str, Page]:
    """Each page of the run in ``run_dir`` (alone in its folder), visited twice."""
    asked = pages(f"0.{run_dir.name}", run)
    walls: dict[str, list[float]] = {name: [] for name in asked}
    cpus: dict[str, list[float]] = {name: [] for name in asked}
    with view_server(run_dir.parent) as (base, pid):
        for _ in range(2):
            for name, paths in asked.items():
                start, cpu = time.perf_counter(), cpu_seconds(pid)
                for path in paths:
                    _get(base + path)
                walls[name].append(time.perf_counter() - start)
                cpus[name].append(cpu_seconds(pid) - cpu)
    return {name: Page(*walls[name], *cpus[name]) for name in asked}
