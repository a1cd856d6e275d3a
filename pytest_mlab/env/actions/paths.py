"""Resolve an agent's file name inside the workspace, or refuse it."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.env.actions.base import ActionError

PATH_MAX_BYTES = 4095
NAME_MAX_BYTES = 255
"""Linux's limits on a path and on each of its parts; longer names fail in the kernel."""


def _check_length(name: str) -> None:
    encoded = name.encode("utf-8", "surrogateescape")
    longest = max(len(part) for part in encoded.split(b"/"))
    if len(encoded) > PATH_MAX_BYTES or longest > NAME_MAX_BYTES:
        shown = name if len(name) <= 60 else f"{name[:60]}..."
        raise ActionError(f"{shown!r} is too long for a path ({len(encoded):,} bytes; at "
                          f"most {PATH_MAX_BYTES:,}, and {NAME_MAX_BYTES} for each part).")


def inside(root: Path, name: str) -> Path:
    """The path ``name`` names in ``root``; refuses absolute paths and escapes."""
    _check_length(name)
    if not name or Path(name).is_absolute():
        raise ActionError(f"{name!r} is not a path relative to the workspace.")
    base = root.resolve()
    path = (base / name).resolve()
    if not path.is_relative_to(base):
        raise ActionError(f"{name!r} lies outside the workspace.")
    return path


def relative(root: Path, path: Path) -> str:
    return path.relative_to(root.resolve()).as_posix()
