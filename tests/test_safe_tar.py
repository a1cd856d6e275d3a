"""core/safe_tar.py: an archive's members stay inside the folder, with tarfile's filters
(Python 3.11.4 on) and without them (Debian bookworm's 3.11.2, the images' Python)."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.safe_tar import extract

Member = tuple[str, str, str]
"""(kind, name, link target or content): kind is file, link, hardlink, fifo or setuid."""


@pytest.fixture(params=["filters", "no filters"])
def python(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "filters" and not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no extraction filters")
    if request.param == "no filters":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return str(request.param)


def _archive(members: list[Member]) -> tarfile.TarFile:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for kind, name, text in members:
            info = tarfile.TarInfo(name)
            data = b""
            if kind in ("file", "setuid"):
                data = text.encode()
                info.size, info.mode = len(data), 0o4755 if kind == "setuid" else 0o644
            else:
                info.type = {"link": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
                             "fifo": tarfile.FIFOTYPE}[kind]
                info.linkname = text
            tar.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    return tarfile.open(fileobj=buffer, mode="r")


@pytest.fixture
def unpack(tmp_path: Path) -> Callable[..., Path]:
    """Extract members into tmp/folder, beside tmp/outside (which must stay as it is;
    "{outside}" in a member's name or link is its absolute path)."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("the node's")

    def run(members: list[Member], links_out: bool) -> Path:
        folder = tmp_path / "folder"
        folder.mkdir(exist_ok=True)
        outside = str(tmp_path / "outside")
        named = [(kind, name.replace("{outside}", outside), text.replace("{outside}", outside))
                 for kind, name, text in members]
        with contextlib.suppress(tarfile.TarError):  # refused: all that counts is that
            extract(_archive(named), folder, links_out=links_out)  # nothing got out
        assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["secret"]
        assert (tmp_path / "outside" / "secret").read_text() == "the node's"
        return folder

    return run


@pytest.mark.parametrize("members", [
    [("file", "../outside/pwned", "x")],
    [("file", "{outside}/pwned", "x")],
    [("link", "up", "../outside"), ("file", "up/pwned", "x")],
    [("link", "up", "{outside}"), ("file", "up/pwned", "x")],
    [("hardlink", "hard", "../outside/secret")],
], ids=["dot-dot", "absolute", "through a relative link", "through an absolute link",
        "hard link out"])
@pytest.mark.parametrize("links_out", [True, False])
def test_no_member_lands_outside_the_folder(
    python: str, unpack: Callable[..., Path], members: list[Member], links_out: bool,
) -> None:
    folder = unpack(members, links_out)
    hard = folder / "hard"
    assert not hard.exists() or not os.path.samefile(hard, folder.parent / "outside/secret")


def test_a_link_already_in_the_folder_is_not_written_through(
    python: str, unpack: Callable[..., Path], tmp_path: Path,
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "planted").symlink_to(tmp_path / "outside")
    unpack([("file", "planted/pwned", "x")], True)


def test_links_out_come_back_as_links_only_where_asked(
    python: str, unpack: Callable[..., Path], tmp_path: Path,
) -> None:
    folder = unpack([("file", "kept/a.txt", "a"), ("link", "kept/etc", "/etc")], True)
    assert os.readlink(folder / "kept" / "etc") == "/etc"
    assert (folder / "kept" / "a.txt").read_text() == "a"
    with pytest.raises(tarfile.TarError):
        extract(_archive([("link", "etc", "/etc")]), tmp_path / "data", links_out=False)
    assert not (tmp_path / "data" / "etc").is_symlink()


def test_set_id_bits_are_cleared_and_a_fifo_is_refused_as_data(
    python: str, unpack: Callable[..., Path], tmp_path: Path,
) -> None:
    folder = unpack([("setuid", "tool", "#!/bin/sh\n")], True)
    assert not (folder / "tool").stat().st_mode & stat.S_ISUID
    with pytest.raises(tarfile.TarError):
        extract(_archive([("fifo", "pipe", "")]), tmp_path / "data", links_out=False)
    assert not (tmp_path / "data" / "pipe").exists()
