"""Folders a task's sandboxes show at a fixed path (an original task's mounted_data, the
startup folder): readable there, in both kinds of sandbox, and never writable."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import SandboxFactory

SHOWN = "/tmp/shared/v1"
SCRIPT = f"""
import os
seen = [open("{SHOWN}/table.txt").read()]
for path in ("{SHOWN}/table.txt", "{SHOWN}/new.txt"):
    try:
        with open(path, "a") as f:
            f.write("changed")
        seen.append("wrote " + os.path.basename(path))
    except OSError:
        seen.append("refused")
open("/tmp/shared/beside.txt", "w").write("the rest of /tmp is the sandbox's own")
seen.append("tmp")
print(" ".join(seen))
"""


def test_a_mounted_folder_is_shown_read_only_at_its_path(
    make_sandbox: SandboxFactory, tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "table.txt").write_text("7-rows")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    sandbox = make_sandbox(workspace, mounts=((str(data), SHOWN),))
    result = sandbox.run([sys.executable, "-c", SCRIPT], timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["7-rows", "refused", "refused", "tmp"]
    assert sorted(p.name for p in data.iterdir()) == ["table.txt"]
    assert (data / "table.txt").read_text() == "7-rows"
