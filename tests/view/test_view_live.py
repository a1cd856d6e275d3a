"""A run under way in the run browser's data: found, marked live, its trials' steps as they
land, an unchanged run answered with its token alone, and live no more once results.json is
written. Over the files of a real run too."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from view_live import LiveRun
from view_runs import two_runs

from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.report.browse.live import is_live, live_update, run_state
from pytest_mlab.report.browse.runs import RunIndex, run_table
from pytest_mlab.report.browse.server import Api


def test_a_run_under_way_is_listed_live_and_its_steps_show(tmp_path: Path) -> None:
    two_runs(tmp_path)
    live = LiveRun(tmp_path)
    live.step(0, 1)
    live.step(1, 1, "Edit Script")
    api = Api(RunIndex([tmp_path]))
    rows = {row["folder"]: row for row in run_table(api.index)["runs"]}
    assert rows["live-run"]["live"] and not rows["live-run"]["complete"]
    assert not rows["run-a"]["live"] and not rows["run-b"]["live"]
    key = rows["live-run"]["key"]
    first = api.routes["/api/live"]({"run": [key]})
    assert first["live"] and first["running"] == 2 and first["finished"] == 0
    assert [(t["trial"], t["step"], t["action"]) for t in first["trials"]] == [
        ("house-price[react-0]", 1, "Execute Script"), ("house-price[react-1]", 1, "Edit Script")]
    assert all(t["elapsed"] is not None and t["elapsed"] >= 0 for t in first["trials"])
    assert api.routes["/api/live"]({"run": [key], "since": [first["token"]]}) == {
        "token": first["token"], "unchanged": True}

    live.step(0, 2, "Final Answer")
    live.judge(0)
    second = api.routes["/api/live"]({"run": [key], "since": [first["token"]]})
    assert not second["unchanged"] and second["running"] == 1 and second["finished"] == 1
    done = next(t for t in second["trials"] if t["done"])
    assert (done["trial"], done["step"], done["outcome"]) == ("house-price[react-0]", 2, "passed")
    # The run page of a run under way: its trials judged so far.
    page = api.routes["/api/run"]({"run": [key]})
    assert [t["outcome"] for t in page["trials"]] == ["passed"] and not page["info"]["complete"]

    live.finish()
    final = api.routes["/api/live"]({"run": [key], "since": [second["token"]]})
    assert not final["live"] and final["finished"] == 2
    assert api.routes["/api/run"]({"run": [key]})["all"] == 2


def test_a_resumed_run_is_live_until_it_writes_results_again(tmp_path: Path) -> None:
    live = LiveRun(tmp_path)
    live.step(0, 3)
    live.step(1, 1)
    folder = live.finish()
    assert not is_live(folder)
    # Trial 1 was interrupted: in results.json, with no result file for a resume to skip.
    RunFiles(folder).trial(live.results[1].nodeid).result.unlink()
    stamp = RunFiles(folder).results.stat().st_mtime_ns
    live.step(1, 1)
    os.utime(live.progress[1].path, ns=(stamp + 10**9, stamp + 10**9))
    assert is_live(folder)
    state = live_update(folder, "")
    assert (state["running"], state["finished"]) == (1, 1)
    index = RunIndex([tmp_path])
    run = index.results(index.entries()[0])
    assert not isinstance(run, str) and not run.run.complete and len(run.results) == 2


def test_the_files_of_a_real_run_under_way(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
) -> None:
    recorded("guess")
    pytester.runpytest("tasks", "--agent=baseline", "--mlab-report-dir=runs", *mlab_args)
    (folder,) = (pytester.path / "runs").iterdir()
    # The run as it was at its last step: before its trial was judged and results.json.
    RunFiles(folder).results.unlink()
    for result in RunFiles(folder).traces.glob("*.result.json"):
        result.unlink()
    (row,) = run_table(RunIndex([pytester.path / "runs"]))["runs"]
    # session.json names the session that wrote the run: this process, still alive.
    assert json.loads(RunFiles(folder).owner.read_text())["pid"] == os.getpid()
    assert row["live"] and row["state"] == "running" and row["folder"] == folder.name
    state = live_update(folder, "")
    (trial,) = state["trials"]
    assert state["live"] and not trial["done"]
    assert trial["trial"] == "guess[baseline-t0]" and trial["action"] == "Final Answer"
    assert trial["step"] == 2 and trial["max_steps"] == 10 and trial["elapsed"] >= 0


def test_a_progress_file_linked_from_outside_the_run_is_not_read(tmp_path: Path) -> None:
    live = LiveRun(tmp_path / "reports")
    live.step(0, 1)
    outside = tmp_path / "outside.json"
    outside.write_text('{"trial": "a secret", "step": 9, "max_steps": 9, "action": "x"}')
    live.progress[1].path.symlink_to(outside)
    state = live_update(live.files.root, "")
    assert [t["trial"] for t in state["trials"]] == ["house-price[react-0]"]


def test_a_run_whose_session_was_killed_is_stopped_not_running(tmp_path: Path) -> None:
    live = LiveRun(tmp_path)
    live.own()
    live.step(0, 2)
    live.step(1, 1)
    live.judge(0)
    api = Api(RunIndex([tmp_path]))
    (row,) = run_table(api.index)["runs"]
    assert (row["live"], row["state"]) == (True, "running")
    first = api.routes["/api/live"]({"run": [row["key"]]})

    live.kill_owner()  # no file of the trials changes: only its session is gone
    assert run_state(live.files.root) == "stopped" and not is_live(live.files.root)
    after = api.routes["/api/live"]({"run": [row["key"]], "since": [first["token"]]})
    assert not after["unchanged"] and (after["live"], after["state"]) == (False, "stopped")
    (row,) = run_table(api.index)["runs"]
    assert (row["live"], row["state"], row["complete"]) == (False, "stopped", False)
    page = api.routes["/api/run"]({"run": [row["key"]]})
    assert page["state"] == "stopped" and [t["outcome"] for t in page["trials"]] == ["passed"]

    live.finish()  # a resume that finished the run: results.json has it all
    (row,) = run_table(api.index)["runs"]
    assert (row["live"], row["state"]) == (False, None)


def test_a_session_record_of_another_machine_or_unreadable_never_says_stopped(
    tmp_path: Path
) -> None:
    live = LiveRun(tmp_path)
    live.step(0, 1)
    assert run_state(live.files.root) == "running"  # no session.json: an older run
    for text in ('{"host": "elsewhere", "pid": 1, "start": 0}', "{", '{"host": 3}'):
        live.files.owner.write_text(text)
        assert run_state(live.files.root) == "running", text
