"""Cores a trial cannot leave. On cgroup v1 a trial's cores were only its starting affinity:
a script widened it to every core, ran spinners there, and slowed the other worker's
baseline runs enough for an unchanged starter to pass. The kernel holds a trial to its
cores now (a cpuset), whatever affinity a script or its children ask for.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import SandboxFactory

PROBE = r'''
import json, os, subprocess, sys
try:
    os.sched_setaffinity(0, range(os.cpu_count()))
except OSError:
    pass
child = subprocess.run([sys.executable, "-c",
    "import os\ntry:\n    os.sched_setaffinity(0, range(os.cpu_count()))\nexcept OSError:\n"
    "    pass\nprint(sorted(os.sched_getaffinity(0)))"], capture_output=True, text=True)
print(json.dumps({"script": sorted(os.sched_getaffinity(0)), "child": json.loads(child.stdout)}))
'''


def test_a_script_cannot_widen_its_cores(make_sandbox: SandboxFactory, tmp_path: Path) -> None:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one core only: a trial holds it all, and there is nothing to widen to")
    leased = (cores[-1],)
    sandbox = make_sandbox(tmp_path, cpus=leased)
    (tmp_path / "probe.py").write_text(PROBE)
    result = sandbox.run([sys.executable, "probe.py"], timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report == {"script": list(leased), "child": list(leased)}
