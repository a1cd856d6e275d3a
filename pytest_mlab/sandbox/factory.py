"""Sandboxes found by name, like agents: the entry-point group ``pytest_mlab.sandboxes``."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from pytest_mlab.sandbox.base import Sandbox
from pytest_mlab.sandbox.spec import SandboxSpec

ENTRY_POINT_GROUP = "pytest_mlab.sandboxes"
SandboxClass = Callable[[SandboxSpec], Sandbox]


class UnknownSandbox(Exception):
    """No sandbox of that name is installed; the message lists those that are."""


def sandbox_kinds() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))


_LOADED: dict[str, SandboxClass] = {}
"""Classes found already: reading every installed distribution's entry points takes
milliseconds, and a trial makes its sandbox through here."""


def load_sandbox(kind: str) -> SandboxClass:
    """The sandbox class registered as ``kind``."""
    if (known := _LOADED.get(kind)) is not None:
        return known
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == kind]
    if not matches:
        raise UnknownSandbox(f"unknown sandbox {kind!r}; choose one of: "
                             f"{', '.join(sandbox_kinds())}")
    loaded: SandboxClass = matches[0].load()
    _LOADED[kind] = loaded
    return loaded


def make_sandbox(kind: str, spec: SandboxSpec) -> Sandbox:
    return load_sandbox(kind)(spec)
