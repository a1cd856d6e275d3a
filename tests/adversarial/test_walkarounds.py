"""Limits an agent once walked around: the disk quota skipped what it could not stat (a
tree too deep, or a path too long, to reach from the workspace's root), and one Execute
Script observation could run to 130,000 characters."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from conftest import run_script
from pytest_mlab.core.tree import remove_tree
from pytest_mlab.env.environment import Environment
from pytest_mlab.sandbox.disk_usage import disk_usage
from pytest_mlab.sandbox.resources import DiskQuota

DEPTH, NAME = 3000, "d" * 20
"""3000 folders of 21 bytes a level: a path of 63,000 bytes, far past PATH_MAX (4096)."""
DEEP_WRITE = f"""
import os, time
os.mkdir("deep")
os.chdir("deep")
for _ in range({DEPTH}):
    os.mkdir("{NAME}")
    os.chdir("{NAME}")
for n in range(30):
    with open(f"fill{{n}}", "wb") as handle:
        handle.write(b"0" * (10 << 20))
print("WROTE 300 MB", flush=True)
time.sleep(30)
"""
DEEP_CLEAN_UP = f"""
import os
os.chdir("deep")
for _ in range({DEPTH}):
    os.chdir("{NAME}")
for name in os.listdir("."):
    os.remove(name)
for _ in range({DEPTH}):
    os.chdir("..")
    os.rmdir("{NAME}")
os.chdir("..")
os.rmdir("deep")
print("clean")
"""
STOPPED = (r"The script was stopped: the workspace grew by ([\d.]+) GB, more than the "
           r"trial's disk quota of 0\.1 GB; delete files to go on\.")


def test_a_write_far_down_a_path_past_path_max_is_counted_and_stopped(
    env: Environment
) -> None:
    try:
        observation = run_script(env, DEEP_WRITE)
        stopped = re.match(STOPPED, observation)
        assert stopped is not None, observation[:2000]
        assert float(stopped[1]) >= 0.1
        assert re.match(STOPPED, run_script(env, "print('on')", "next.py"))
        assert "ran to completion" in run_script(env, DEEP_CLEAN_UP, "clean.py")
        assert "ran to completion" in run_script(env, "print('on')", "next.py")
    finally:
        remove_tree(env.workspace.root / "deep")


def _deep_tree(root: Path, depth: int, payload: bytes) -> None:
    """``depth`` nested folders below ``root`` and, at the bottom, a file and its hard link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(NAME, dir_fd=fd)
            below = os.open(NAME, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        out = os.open("big", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        os.write(out, payload)
        os.close(out)
        os.link("big", "big-again", src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)


def test_disk_usage_counts_every_inode_once_however_deep(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    empty = disk_usage(root)
    _deep_tree(root, DEPTH, b"1" * (8 << 20))
    try:
        grown = disk_usage(root) - empty
        # The 8 MiB once (its hard link adds nothing) and 3000 folders of a block or so.
        assert 8 << 20 <= grown < (8 << 20) + DEPTH * 8192, grown
        quota = DiskQuota(root, 4 << 20)
        assert quota() is None  # grown since the quota began: nothing yet
        (root / "more").write_bytes(b"2" * (6 << 20))
        time.sleep(0.1)
        quota._next = 0.0  # measure now, whatever the pause after the last walk
        assert quota() is not None
    finally:
        remove_tree(root)


def test_a_long_output_is_cut_to_its_head_and_tail(env: Environment) -> None:
    code = ("print('HEAD-MARK')\nfor n in range(13_000):\n    print(f'line {n:06d}')\n"
            "print('TAIL-MARK')\n")
    observation = run_script(env, code)
    assert "ran to completion" in observation
    assert "HEAD-MARK" in observation and "TAIL-MARK" in observation
    assert "line 000100" in observation and "line 012900" in observation
    assert "line 006500" not in observation
    cut = re.search(r"\[\.\.\. (\d+) characters of output cut here", observation)
    assert cut is not None, observation[:300]
    # 156,019 characters printed; the sandbox keeps 64 KiB of each end of a stream.
    assert int(cut[1]) > 100_000
    assert len(observation) < 20_500
