"""--mlab-dispatch: where trials run. ``local`` (this machine, or its xdist workers) or
``ray[:ADDRESS]``: the controller submits every selected trial to a Ray cluster once
collection ends, and each item waits for its own trial's record and files.

Records, results.json, the report and the gate are the controller's as in a local run;
the items just take their records from the cluster instead of running fixtures here.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import threading
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.plugin.config import parsers
from pytest_mlab.plugin.config.dispatch_options import (
    DISPATCH_KEY,
    Dispatch,
    parse_dispatch,
)
from pytest_mlab.plugin.config.resolve import resolve
from pytest_mlab.plugin.keys import RESULT_KEY, SETTINGS_KEY

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult
    from pytest_mlab.plugin.dispatch.ray import RemoteTrial

# Options that belong to the controller's session, not to the node's one-trial session.
_CONTROLLER_ONLY = ("--mlab-dispatch", "--mlab-ray-retries", "--mlab-report-dir", "--mlab-gpus",
                    "--mlab-resume", "--mlab-save", "--mlab-autosave", "--mlab-storage",
                    "--mlab-compare", "--mlab-report-md",
                    # The key travels in the job's environment, never in a printed argv.
                    "--mlab-data-key")
_TRIAL_OPTIONS = ("--agent", "--llm", "--max-steps", "--max-time", "--mlab-")


def configure_dispatch(config: pytest.Config, is_worker: bool) -> None:
    """Resolve --mlab-dispatch; for Ray, check it can work and register the dispatcher."""
    local: tuple[str, str | None] = ("local", None)
    kind, address = resolve(config, "mlab_dispatch", "MLAB_DISPATCH", parse_dispatch, local)
    retries = resolve(config, "mlab_ray_retries", None, parsers.whole_number, 0)
    dispatch = Dispatch(kind, address, retries)
    config.stash[DISPATCH_KEY] = dispatch
    if kind == "local" or is_worker:
        return
    settings = config.stash[SETTINGS_KEY]
    if getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--mlab-dispatch=ray runs trials on the cluster: drop -n")
    if settings.interactive or settings.validate or settings.resume:
        raise pytest.UsageError("--mlab-dispatch=ray runs trials only: drop --mlab-interactive, "
                                "--mlab-validate and --mlab-resume")
    # Looked for, not imported: importing Ray takes a third of a second, which --co,
    # --fixtures and --help would pay for nothing (connect() imports it to submit).
    if importlib.util.find_spec("ray") is None:
        raise pytest.UsageError("--mlab-dispatch=ray needs Ray: pip install "
                                "'pytest-mlab[ray]'")
    config.pluginmanager.register(RayDispatch(config, dispatch), "mlab-dispatch")


def run_remote_item(mlab_remote_result: Any) -> None:
    """The test body of a trial that ran on the cluster: it passes or fails here."""
    if not mlab_remote_result.success:
        pytest.fail(mlab_remote_result.message, pytrace=False)


def trial_args(config: pytest.Config) -> tuple[str, ...]:
    """The controller's trial options, as the node's session is to get them."""
    args, kept = list(config.invocation_params.args), []
    for index, arg in enumerate(args):
        name = arg.partition("=")[0]
        if not name.startswith(_TRIAL_OPTIONS) or name.startswith(_CONTROLLER_ONLY):
            continue
        kept.append(arg)
        dest = "mlab_agents" if name == "--agent" else "mlab_llms" if name == "--llm" else (
            "mlab_" + name.removeprefix("--").removeprefix("mlab-").replace("-", "_"))
        takes_value = not isinstance(getattr(config.option, dest, None), bool)
        if "=" not in arg and takes_value and index + 1 < len(args):
            kept.append(args[index + 1])
    return tuple(kept)


class RayDispatch:
    """Submits every trial at once; each item's fixture waits for its own."""

    def __init__(self, config: pytest.Config, dispatch: Dispatch) -> None:
        self.config = config
        self.dispatch = dispatch
        self.trials: dict[str, RemoteTrial] = {}
        self.summary = ""
        self._stop_watch = threading.Event()

    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Submits as the loop starts, not when collection ends: --fixtures, --co,
        --setup-plan and a collection error collect too, and run no trial."""
        from pytest_mlab.plugin.collection.selection import loop_runs_trials

        if not loop_runs_trials(session):
            return
        from pytest_mlab.plugin.dispatch.ray import connect, submit_items
        from pytest_mlab.plugin.dispatch.ray_tally import watch_session

        connect(self.dispatch.address)
        self.trials = submit_items(self.config, session.items, self.dispatch.retries,
                                   trial_args(self.config))
        if self.trials:
            settings = self.config.stash[SETTINGS_KEY]
            watch = (list(self.trials.values()), settings.llm.max_session_cost,
                     settings.run_files.traces, self._stop_watch)
            threading.Thread(target=watch_session, args=watch, name="mlab-ray-session",
                             daemon=True).start()

    @pytest.fixture
    def mlab_remote_result(self, request: pytest.FixtureRequest) -> TrialResult:
        """The record of this item's trial, once the cluster has run it."""
        from pytest_mlab.core.errors import TrialFault
        from pytest_mlab.core.results import TrialResult
        from pytest_mlab.plugin.dispatch.ray import HeldBack
        from pytest_mlab.plugin.dispatch.remote import moved_record, unpack

        trial = self.trials[request.node.nodeid]
        try:
            outcome = trial.outcome()
        except HeldBack as held:
            pytest.skip(str(held))
        run_dir = self.config.stash[SETTINGS_KEY].run_files.root
        unpack(outcome.files, run_dir)
        if outcome.record is None:
            from pytest_mlab.core.errors import InfrastructureError

            tail = outcome.output.strip().splitlines()[-1:] or ["no output"]
            raise InfrastructureError(f"the trial's session on {trial.nodes[-1]} left no "
                                      f"record: {tail[0]}")
        result = TrialResult.model_validate_json(moved_record(outcome, run_dir))
        if result.outcome == "skipped":
            pytest.skip(result.message.removeprefix(f"{result.task}: "))
        request.node.stash[RESULT_KEY] = result
        if result.outcome == "error":
            raise TrialFault(result.message)
        return result

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from pytest_mlab.plugin.dispatch.ray import shutdown

        self._stop_watch.set()
        for trial in self.trials.values():
            trial.cancel()
        if self.trials:
            nodes = {nodeid: trial.nodes for nodeid, trial in self.trials.items()}
            path = self.config.stash[SETTINGS_KEY].run_files.root / "dispatch.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"address": self.dispatch.address, "nodes": nodes},
                                       indent=2), encoding="utf-8")
        shutdown()

    def pytest_report_header(self) -> str:
        address = self.dispatch.address or "RAY_ADDRESS or a local cluster"
        return (f"mlab: dispatch=ray address={address} retries={self.dispatch.retries} "
                f"trial options: {shlex.join(trial_args(self.config)) or '-'}")

