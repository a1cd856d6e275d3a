"""Resolve an agent's file name inside the workspace, or refuse it."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.env.actions.base import ActionError


def inside(root: Path, name: str) -> Path:
    """The path ``name`` names in ``root``; refuses absolute paths and escapes."""
    if not name or Path(name).is_absolute():
        raise ActionError(f"{name!r} is not a path relative to the workspace.")
    base = root.resolve()
    path = (base / name).resolve()
    if not path.is_relative_to(base):
        raise ActionError(f"{name!r} lies outside the workspace.")
    return path


def relative(root: Path, path: Path) -> str:
    return path.relative_to(root.resolve()).as_posix()
