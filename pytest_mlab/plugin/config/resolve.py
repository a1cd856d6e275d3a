"""Where a setting comes from: the command line, else a variable, else an ini key."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def resolve(
    config: pytest.Config, option: str, env: str | None, parse: Callable[[str], T], default: T,
) -> T:
    """The option's value from the command line, else ``env``, else its ini key (of the
    same name, where one is declared), else ``default``."""
    given = config.getoption(option)
    if given is not None:
        value: T = given
        return value
    try:
        ini = config.getini(option)
    except ValueError:  # no ini twin declared
        ini = None
    for source, raw in ((f"environment variable {env}", os.environ.get(env) if env else None),
                        (f"ini key {option}", ini)):
        if raw:
            try:
                return parse(str(raw))
            except argparse.ArgumentTypeError as exc:
                raise pytest.UsageError(f"{source}: {exc}") from None
    return default


def lines(config: pytest.Config, option: str) -> tuple[str, ...]:
    given: list[str] | None = config.getoption(option)
    if given:
        return tuple(given)
    raw: list[str] = config.getini(option)
    return tuple(item for line in raw for item in line.split() if item)


def base_dir(config: pytest.Config) -> Path:
    """What relative folders (reports, saved runs, recorded replies) are relative to: the
    rootdir where a config file or --rootdir set it, else the folder pytest was run in.
    Without either, pytest roots the session at the paths' common folder, which for tasks
    outside a project is a task's own folder, or a parent of several."""
    if config.inipath is not None or config.getoption("rootdir", None):
        return config.rootpath
    return config.invocation_params.dir


def storage_dir(config: pytest.Config) -> Path:
    """The folder of saved runs (--mlab-storage, ini mlab_storage), from ``base_dir``."""
    from pytest_mlab.analysis.saved_runs import DEFAULT_STORAGE

    folder = config.getoption("mlab_storage") or config.getini("mlab_storage") or DEFAULT_STORAGE
    return base_dir(config) / folder
