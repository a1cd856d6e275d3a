"""An overlay's mounted_data: an archive downloaded and unpacked once into the cache, shown
read-only at a fixed path under /tmp in the trial's sandbox (CLRS-30 for CLRS)."""

from __future__ import annotations

import io
import shutil
import socket
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from original_folders import http_mirror, run_command_agent, write_task

from pytest_mlab.core.overlay import read_overlay
from pytest_mlab.core.task import TaskFormatError

MOUNTED = "/tmp/shared/v1"
# The agent reads the mounted table, tries to write beside it, says what it saw, then
# runs the starter (which writes the submission).
AGENT = f"""
import os
seen = open("{MOUNTED}/table.txt").read().strip() + " " + open("{MOUNTED}/sub/more.txt").read()
try:
    open("{MOUNTED}/new.txt", "w").write("x")
    seen += " writable"
except OSError:
    seen += " read-only"
open("seen.txt", "w").write(seen)
exec(open("train.py").read())
"""


def _tar(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return buffer.getvalue()


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server for the archives in tmp_path/served, and the paths asked of it."""
    served = tmp_path / "served"
    served.mkdir()
    with http_mirror(served) as mirrored:
        yield mirrored


def _mounted_task(pytester: pytest.Pytester, archive_url: str) -> None:
    extra = f'[[mounted_data]]\npath = "{MOUNTED}"\narchive = "{archive_url}"\n'
    write_task(pytester.path / "benchmarks", pytester.path / "overlays", "mounted", extra=extra)


def test_the_archive_is_fetched_once_and_each_trial_reads_it_read_only(
    pytester: pytest.Pytester, mirror: tuple[str, list[str]], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], tmp_path: Path,
) -> None:
    url, asked = mirror
    (tmp_path / "served" / "shared.tar.gz").write_bytes(
        _tar({"table.txt": b"7 rows\n", "sub/more.txt": b"and more"}))
    _mounted_task(pytester, f"{url}/shared.tar.gz")
    run = run_command_agent(pytester, AGENT, [*mlab_args, "--mlab-trials=2"])
    run.assert_outcomes(failed=2)
    records = read_results()
    assert [r["score"] for r in records] == pytest.approx([40.0, 40.0])  # valid, starter's
    for record in records:
        seen = (Path(record["workspace"]) / "seen.txt").read_text()
        assert seen == "7 rows and more read-only"
    assert asked == ["/shared.tar.gz"]
    # Nothing of it is in the workspace: it is shown, not copied.
    assert not (Path(records[0]["workspace"]) / "table.txt").exists()


def test_an_archive_whose_members_leave_its_folder_is_refused(
    pytester: pytest.Pytester, mirror: tuple[str, list[str]], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], tmp_path: Path,
) -> None:
    url, _ = mirror
    escape = tmp_path / "escaped.txt"
    (tmp_path / "served" / "bad.tar.gz").write_bytes(
        _tar({"table.txt": b"7\n", f"../../../../../../..{escape}": b"out"}))
    (tmp_path / "served" / "link.tar.gz").write_bytes(
        _tar({"table.txt": b"7\n"}, links={"secrets": "/etc"}))
    with zipfile.ZipFile(tmp_path / "served" / "bad.zip", "w") as archive:
        archive.writestr("table.txt", "7\n")
        archive.writestr("../escaped.txt", "out")
    for name in ("bad.tar.gz", "link.tar.gz", "bad.zip"):
        _mounted_task(pytester, f"{url}/{name}")
        run = run_command_agent(pytester, AGENT, mlab_args)
        run.assert_outcomes(errors=1)
        (record,) = read_results()
        assert f"{url}/{name} could not be unpacked" in record["message"]
        assert not escape.exists()
        shutil.rmtree(pytester.path / "benchmarks")
        shutil.rmtree(pytester.path / "overlays")


def test_an_unreachable_archive_skips_the_task_naming_the_network(
    pytester: pytest.Pytester, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _mounted_task(pytester, f"http://127.0.0.1:{port}/shared.tar.gz")
    run_command_agent(pytester, AGENT, mlab_args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"].startswith(
        f"mounted: needs the network to download its data (127.0.0.1:{port} cannot be "
        "reached")


@pytest.mark.parametrize(("entry", "said"), [
    ('path = "/etc/shared"\narchive = "https://example.org/a.tar.gz"', "mounted_data"),
    ('path = "/tmp/../etc"\narchive = "https://example.org/a.tar.gz"', "mounted_data"),
    ('path = "/tmp/shared"\narchive = "https://example.org/a.rar"', "is not one of"),
    # The kind is read from the URL's path, as preparing reads it, not from its query.
    ('path = "/tmp/shared"\narchive = "https://example.org/get?f=a.zip"', "is not one of"),
    ('path = "/tmp/shared"\narchive = "file:///etc/passwd.tar"', "mounted_data"),
])
def test_a_mounted_path_outside_tmp_or_an_unknown_archive_is_one_clear_error(
    tmp_path: Path, entry: str, said: str,
) -> None:
    path = tmp_path / "task.toml"
    path.write_text(f'name = "t"\ndata_source = "d"\neval_sound = true\n[[mounted_data]]\n'
                    f'{entry}\n[metric]\nname = "m"\ndirection = "lower"\n[baseline]\n'
                    'kind = "per-machine"\n')
    with pytest.raises(TaskFormatError, match=said) as raised:
        read_overlay(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert "\n" not in str(raised.value)


def test_mounted_paths_may_not_lie_inside_one_another(tmp_path: Path) -> None:
    path = tmp_path / "task.toml"
    entries = "".join(f'[[mounted_data]]\npath = "{p}"\narchive = "https://x.org/a.tgz"\n'
                      for p in ("/tmp/a", "/tmp/a/b"))
    path.write_text(f'name = "t"\ndata_source = "d"\neval_sound = true\n{entries}[metric]\n'
                    'name = "m"\ndirection = "lower"\n[baseline]\nkind = "per-machine"\n')
    with pytest.raises(TaskFormatError, match="/tmp/a/b is inside /tmp/a"):
        read_overlay(path)


@pytest.mark.parametrize(("keys", "said"), [
    ('manual_steps = [["download_images.sh", "x.json"]]', "does not start with a script"),
    ('manual_steps = [["../../elsewhere.py"]]', "does not start with a script"),
    ('manual_steps = [[]]', "does not start with a script"),
    ('coco_images = "object_detection/train.json"', "must name one kaggle: competition"),
])
def test_a_manual_step_or_an_image_list_that_cannot_be_followed_is_one_clear_error(
    tmp_path: Path, keys: str, said: str,
) -> None:
    path = tmp_path / "task.toml"
    path.write_text(f'name = "t"\ndata_source = "d"\neval_sound = true\n{keys}\n[metric]\n'
                    'name = "m"\ndirection = "lower"\n[baseline]\nkind = "per-machine"\n')
    with pytest.raises(TaskFormatError, match=said) as raised:
        read_overlay(path)
    assert "\n" not in str(raised.value)
