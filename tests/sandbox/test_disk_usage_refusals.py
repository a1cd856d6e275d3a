"""The quota's walk says a workspace is unmeasurable where a folder or file was refused to
it, and counts what it can otherwise. Root reads everything, so the refusals are made by
the operating-system calls the walk uses, failing as they do for another user."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pytest_mlab.core import tree
from pytest_mlab.core.tree import Walk
from pytest_mlab.sandbox.disk_usage import Unmeasurable, usage


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "shut").mkdir()
    (tmp_path / "shut" / "inside").write_text("x")
    (tmp_path / "open.txt").write_text("y")
    return tmp_path


def _refuse(monkeypatch: pytest.MonkeyPatch, call: str, name: str) -> None:
    real = getattr(os, call)

    def refused(path: object, *args: object, **kwargs: object) -> object:
        if path == name:
            raise PermissionError(errno.EACCES, "Permission denied", name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(tree.os, call, refused)


def test_everything_readable_is_counted(workspace: Path) -> None:
    # root, shut/, shut/inside and open.txt
    assert usage(workspace).files == 4


def test_a_folder_that_cannot_be_entered_makes_the_workspace_unmeasurable(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse(monkeypatch, "open", "shut")
    walk = Walk(workspace)
    assert [e.rel for e in walk] == ["open.txt"]
    assert walk.skipped == ["shut/"] and walk.reasons == {"shut/": errno.EACCES}
    with pytest.raises(Unmeasurable, match="may not read"):
        usage(workspace)


def test_a_file_that_cannot_be_looked_at_makes_the_workspace_unmeasurable(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse(monkeypatch, "stat", "open.txt")
    walk = Walk(workspace)
    assert [e.rel for e in walk] == ["shut/inside"]
    assert walk.unread == [("open.txt", errno.EACCES)]
    with pytest.raises(Unmeasurable):
        usage(workspace)


def test_a_file_gone_since_the_listing_is_simply_not_counted(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.stat

    def gone(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if path == "open.txt":
            raise FileNotFoundError(errno.ENOENT, "gone", "open.txt")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree.os, "stat", gone)
    assert usage(workspace).files == 3
