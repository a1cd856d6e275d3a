"""What an original task's own environment must hold, read from its overlay: the
requirements its install command and ``versions`` pins name, the one family held at the
harness's build, and whether the harness's own interpreter holds it all already."""

from __future__ import annotations

import importlib.util
import shlex
from importlib import metadata

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from pytest_mlab.core.overlay import Overlay

HELD_ALWAYS = frozenset({"torch", "torchvision", "torchaudio", "triton"})
"""Held at the harness's version (where the harness has them)."""


class TaskEnvError(Exception):
    """The environment could not be made; the message is one sentence and the installer's
    last words."""


def task_requirements(overlay: Overlay) -> tuple[str, ...]:
    """The overlay's pip requirements (what its ``install`` command installs, else its
    modules), each range joined with the one its ``versions`` table pins."""
    words = shlex.split(overlay.install) if overlay.install else list(overlay.requirements)
    if overlay.install:  # "pip install ...", "python -m pip install ..."
        words = words[words.index("install") + 1:] if "install" in words else []
    pinned = {canonicalize_name(name): spec for name, spec in overlay.versions.items()}
    wanted: dict[str, str] = {}
    for word in words:
        try:
            requirement = Requirement(word)
        except InvalidRequirement:
            raise TaskEnvError(f"overlay {overlay.name}: key 'install': {word!r} is not a "
                               "pip requirement") from None
        name = canonicalize_name(requirement.name)
        if name in pinned:  # both hold: the command's range and the pinned one
            word = f"{requirement.name}{requirement.specifier & SpecifierSet(pinned[name])}"
        wanted[name] = word
    for name, spec in pinned.items():
        wanted.setdefault(name, f"{name}{spec}")
    return tuple(sorted(wanted.values()))


def harness_constraints(requirements: tuple[str, ...]) -> tuple[str, ...]:
    """torch and its companions at the harness's versions, less those the task pins
    itself: the one family whose other builds are gigabytes (CUDA)."""
    parsed = [Requirement(r) for r in requirements]
    chosen = {canonicalize_name(r.name) for r in parsed if r.specifier}
    pins = []
    for name in sorted(HELD_ALWAYS - chosen):
        try:
            pins.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return tuple(pins)


def harness_meets(overlay: Overlay) -> bool:
    """Whether the harness's own interpreter holds what the task needs: every module its
    code imports, and every release its install command or ``versions`` pins. Then the
    task needs no environment of its own."""
    if any(importlib.util.find_spec(module) is None for module in overlay.requirements):
        return False
    for text in task_requirements(overlay):
        requirement = Requirement(text)
        if not requirement.specifier:
            continue
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            return False
        if not requirement.specifier.contains(version, prereleases=True):
            return False
    return True
