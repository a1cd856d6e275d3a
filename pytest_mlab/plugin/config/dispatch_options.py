"""Where trials run, as the options say: --mlab-dispatch and --mlab-ray-retries, their
parsed value in the config's stash, and whether this session hands its trials to Ray."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from pytest_mlab.plugin.config import parsers


@dataclass(frozen=True)
class Dispatch:
    kind: str
    address: str | None = None
    retries: int = 0


def parse_dispatch(text: str) -> tuple[str, str | None]:
    kind, _, address = text.partition(":")
    if kind == "local" and not address:
        return "local", None
    if kind == "ray":
        return "ray", address or None
    raise argparse.ArgumentTypeError(f"expected local or ray[:ADDRESS], got {text!r}")


def add_dispatch_options(option: Callable[..., None]) -> None:
    """Declare the options with ``option`` (options.py's declarer of one group)."""
    option("--mlab-dispatch", "mlab_dispatch", "Where trials run: local, or ray[:ADDRESS] "
           "(a Ray cluster; without an address RAY_ADDRESS's, else one started on this "
           "machine). Default: local.", type=parse_dispatch, metavar="WHERE",
           ini="Where trials run")
    option("--mlab-ray-retries", "mlab_ray_retries", "Run a trial again this many times when "
           "the node running it is lost. Default: 0.", type=parsers.whole_number, metavar="N",
           ini="Retries after a lost Ray node")


DISPATCH_KEY = pytest.StashKey[Dispatch]()


def dispatched(config: pytest.Config) -> bool:
    dispatch = config.stash.get(DISPATCH_KEY, None)
    return dispatch is not None and dispatch.kind == "ray" and not hasattr(config, "workerinput")
