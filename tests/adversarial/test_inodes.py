"""Issue 39, cause 7: 300,000 empty files in a trial with a 0.1 GB quota took 300,000 of
the host's inodes, and nothing stopped the script (the quota counts blocks only). The
workspace and /tmp together may gain a limited number of files: the script that passes
it is stopped with a sentence naming it, and the files it made stay few."""

from __future__ import annotations

import dataclasses
import os
import re

import pytest

from conftest import LIMITS, SandboxFactory, run_script
from pytest_mlab.core.task import TrialLimits
from pytest_mlab.core.tree import remove_tree
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox.resources import FILES

ATTEMPT = 300_000
# On stderr, which is what the agent sees of a script that failed.
FLOOD = """
import os, sys, time
os.makedirs({folder!r}, exist_ok=True)
for n in range({attempt}):
    os.close(os.open(f"{folder}/f{{n}}", os.O_CREAT | os.O_WRONLY, 0o644))
    if n % 1000 == 0:
        print("MADE", n, file=sys.stderr, flush=True)
print("MADE ALL", file=sys.stderr, flush=True)
time.sleep({linger})
"""
CLEAN_UP = """
import shutil
shutil.rmtree({folder!r}, ignore_errors=True)
print("clean")
"""
PLACES = {"workspace": "flood", "tmp": "/tmp/flood"}
LINGER = {"workspace": 0, "tmp": 3}
"""/tmp is counted while its script runs (its files go when the script ends): a fast machine
makes 300,000 empty files in under the second before the first check, so the flood of /tmp
stays a while after, as a script that uses its files would."""


def _stopped(observation: str, limit: int) -> int:
    """The files the sentence says the trial gained; fails unless the script was stopped
    with it."""
    stopped = re.match(r"The script was stopped: the workspace and /tmp gained ([\d,]+) "
                       rf"files, more than the trial's limit of {limit:,}; delete files to go "
                       r"on\.", observation)
    assert stopped is not None, observation[:2000]
    return int(stopped[1].replace(",", ""))


def _unfinished(observation: str) -> None:
    """The flood printed how far it got, and it did not get to the end."""
    assert re.search(r"MADE \d+", observation), observation[:2000]
    assert "MADE ALL" not in observation, observation[-500:]


def _environment(world: tuple[Workspace, PreparedData], make_sandbox: SandboxFactory,
                 files: int) -> Environment:
    workspace, _ = world
    limits = dataclasses.replace(LIMITS, files=files)
    return Environment(
        research_problem="attack", entry="train.py", workspace=workspace,
        sandbox=make_sandbox(workspace.root, limits, protected=tuple(workspace.protected)),
        limits=TrialLimits(max_steps=20, max_time=600, script_timeout=120),
    )


def _clean_up(env: Environment, folder: str) -> None:
    """Remove the flood through scripts: each runs until the check after its first
    second, so a big one may take a few."""
    for attempt in range(20):
        observation = run_script(env, CLEAN_UP.format(folder=folder), f"clean{attempt}.py")
        if "ran to completion" in observation:
            return
    raise AssertionError(f"{folder} could not be removed: {observation[:500]}")


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_flood_of_files_is_stopped_at_the_trials_limit(
    world: tuple[Workspace, PreparedData], make_sandbox: SandboxFactory, place: str,
) -> None:
    limit, folder = 2_000, PLACES[place]
    env = _environment(world, make_sandbox, limit)
    observation = run_script(env, FLOOD.format(folder=folder, attempt=ATTEMPT,
                                                linger=LINGER[place]))
    gained = _stopped(observation, limit)
    if place == "workspace":
        _unfinished(observation)
        on_disk = len(os.listdir(env.workspace.root / folder))
        # The count is of what is there: the files, their folder and the script (made
        # after the trial began), less what the flood made between the check and its end.
        assert limit < gained <= on_disk + 2 < ATTEMPT
        # Still past the limit: every script is stopped until the files go.
        _stopped(run_script(env, "print('on')", "next.py"), limit)
    _clean_up(env, folder)
    assert "ran to completion" in run_script(env, FLOOD.format(folder=folder, attempt=limit // 2,
                                                           linger=0),
                                             "fewer.py")


@pytest.mark.slow
@pytest.mark.parametrize("place", sorted(PLACES))
def test_the_default_limit_stops_300000_files(
    world: tuple[Workspace, PreparedData], make_sandbox: SandboxFactory, place: str,
) -> None:
    folder = PLACES[place]
    env = _environment(world, make_sandbox, FILES)
    try:
        observation = run_script(env, FLOOD.format(folder=folder, attempt=ATTEMPT,
                                                    linger=LINGER[place]))
        gained = _stopped(observation, FILES)
        if place == "workspace":
            _unfinished(observation)
            # The host's inodes: what the workspace holds, not the 300,000 asked for.
            assert FILES < gained <= len(os.listdir(env.workspace.root / folder)) + 2 < ATTEMPT
    finally:
        remove_tree(env.workspace.root / PLACES["workspace"])
