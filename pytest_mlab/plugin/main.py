"""The plugin's entry point: options, session set-up, the run header and collection.

Kept light: everything a trial needs is imported when the session is configured (without
-n, or on a worker), and no LLM library, dataframe or ML stack until a trial needs it
(tests/test_startup_imports.py). pydantic is imported on load: the options' defaults come
from modules of its records (the gate's, through the containment record).
"""

from __future__ import annotations

import os
import secrets
import time
import warnings
from collections.abc import Generator, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.core.task_files import MANIFEST
from pytest_mlab.plugin import hookspecs
from pytest_mlab.plugin.collection import original
from pytest_mlab.plugin.config.options import add_options
from pytest_mlab.plugin.keys import AGENTS_KEY, NAMED_KEY, SETTINGS_KEY
from pytest_mlab.plugin.reporting import attest, forecast
from pytest_mlab.plugin.warnings import MlabWarning

if TYPE_CHECKING:
    from pytest_mlab.env.agent import Agent
    from pytest_mlab.plugin.collect import TaskFile
    from pytest_mlab.plugin.collection.selection import Selection
    from pytest_mlab.plugin.config.settings import Settings


MARKERS = {
    "mlab_gpu": "the task needs a GPU (resources.gpus in task.toml)",
    "mlab_download": "the task's prepare.py downloads its data",
    "mlab_llm": "the trial's agent uses an LLM",
    "mlab_unsound_eval": "an original task scored by its eval.py, which an agent can game",
}


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser)
    pluginmanager.add_hookspecs(hookspecs)
    pluginmanager.register(original, "mlab-original")  # its options join through this hook
    pluginmanager.register(forecast, "mlab-forecast")
    pluginmanager.register(attest, "mlab-attest")


def _new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def _check(settings: Settings, config: pytest.Config, is_worker: bool) -> None:
    """Refuse, in one sentence each, settings that cannot work together."""
    from pytest_mlab.sandbox.factory import sandbox_kinds

    if settings.interactive and (is_worker or getattr(config.option, "numprocesses", None)):
        raise pytest.UsageError("--mlab-interactive needs a terminal: drop -n")
    if settings.interactive and config.getoption("capture") != "no":
        raise pytest.UsageError("--mlab-interactive asks at this terminal: add -s, so pytest "
                                "does not capture it")
    if settings.record_baseline is not None and set(settings.agents) != {"baseline"}:
        raise pytest.UsageError("--mlab-record-baseline runs the baseline agent only; drop --agent")
    if settings.sandbox not in (kinds := sandbox_kinds()):
        raise pytest.UsageError(f"--mlab-sandbox: unknown sandbox {settings.sandbox!r}; choose "
                                f"one of: {', '.join(kinds)}")


def _agents(settings: Settings, named: Iterable[str]) -> dict[str, type[Agent]]:
    """The agents --agent chose, checked, and those node ids name."""
    from pytest_mlab.trial.agents import UnknownAgent, load_agent

    agents = {}
    for name in [*settings.agents, *named]:
        try:
            agents[name] = load_agent(name)
        except UnknownAgent as exc:
            raise pytest.UsageError(f"--agent: {exc}") from None
        if name == "command" and settings.llms:  # given a model, it reaches it by a gateway
            agents[name] = load_agent("command-llm")
        if name.startswith("command") and not settings.agent_options.command:
            raise pytest.UsageError("--agent=command runs an external agent: give its command "
                                    "line with --mlab-agent-cmd")
        if agents[name].uses_llm and not settings.llms and name in settings.agents:
            raise pytest.UsageError(f"--agent={name} uses an LLM: give one with --llm MODEL")
    if settings.llms and not any(agents[name].uses_llm for name in settings.agents):
        warnings.warn(MlabWarning(
            f"--llm {', '.join(settings.llms)} is unused: none of the agents "
            f"({', '.join(settings.agents)}) uses an LLM"), stacklevel=1)
    return agents


class XdistHooks:
    """Hands the controller's run id and trial history to every worker, so all share one run
    and one order, and learns from the workers which trials were selected (the controller
    collects nothing itself)."""

    def __init__(self, config: pytest.Config, run_id: str, selection: Selection,
                 cache_dir: Path) -> None:
        self.config = config
        self.run_id = run_id
        self.selection = selection
        self.cache_dir = cache_dir
        self.trial_seconds: dict[str, float] | None = None

    def pytest_configure_node(self, node: Any) -> None:
        from pytest_mlab.core.trial_seconds import read_history

        if self.trial_seconds is None:  # read once: a restarted worker orders as the first
            self.trial_seconds = read_history(self.cache_dir)
        node.workerinput["mlab_run_id"] = self.run_id
        node.workerinput["mlab_trial_seconds"] = self.trial_seconds
        node.workerinput["mlab_worksteal"] = getattr(self.config.option, "dist", "") == "worksteal"

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.selection.add_ids(ids)


def _saves_or_compares(config: pytest.Config) -> bool:
    wanted = ("mlab_save", "mlab_compare", "mlab_compare_fail", "mlab_report_md",
              "mlab_compare_normalised_drop")
    return bool(config.getoption("mlab_autosave")) or any(
        config.getoption(name) is not None for name in wanted
    )


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, object, object]:
    """With -n and no --dist, idle workers take waiting trials from busy ones (xdist's
    worksteal): trials differ in length by minutes, and under xdist's default (load) each
    worker keeps the items it was dealt at the start, so two long ones can queue on one
    worker while the other idles. Runs before xdist turns an unset --dist into load."""
    option = config.option
    if (getattr(option, "numprocesses", None) and getattr(option, "dist", None) == "no"
            and not getattr(option, "distload", False)):
        option.dist = "worksteal"
    return (yield)


def _node_run(config: pytest.Config) -> str | None:
    """The run id a Ray node's one-trial session was given; None for any other session."""
    from pytest_mlab.core.run_files import RUN_ID_VARIABLE

    return None if hasattr(config, "workerinput") else os.environ.get(RUN_ID_VARIABLE)


def _register_controller_extras(config: pytest.Config, selection: Selection) -> None:
    """The API keys checked before any trial, whole sentences under the short summary,
    and each plugin's header only where it applies."""
    from pytest_mlab.plugin.collection.llm_keys import KeyCheck
    from pytest_mlab.plugin.reporting import headers, whole_sentences

    config.pluginmanager.register(KeyCheck(config, selection), "mlab-keys")
    config.pluginmanager.register(whole_sentences, "mlab-whole-sentences")
    config.pluginmanager.register(headers, "mlab-headers")


def _register_records(config: pytest.Config, retries: int) -> None:
    """Each trial's record on its report, and the runs again of an errored trial."""
    from pytest_mlab.plugin.reporting.records import TrialRecords
    from pytest_mlab.plugin.reporting.retry_errors import RetryErrors

    config.pluginmanager.register(TrialRecords(), "mlab-records")
    if retries:
        config.pluginmanager.register(RetryErrors(retries), "mlab-retry-errors")


def pytest_configure(config: pytest.Config) -> None:
    from pytest_mlab.plugin.collection.trial_ids import named_trials
    from pytest_mlab.plugin.config.settings import resolve_settings
    from pytest_mlab.plugin.dispatch.where import configure_dispatch
    from pytest_mlab.plugin.reporting.reporter import Reporter
    from pytest_mlab.plugin.reporting.resume import resumed_run
    from pytest_mlab.trial.agents import available_agents

    workerinput = getattr(config, "workerinput", None)
    node_run = _node_run(config)
    if node_run is not None:
        from pytest_mlab.plugin.dispatch.remote import end_with_worker

        end_with_worker()
    settings = resolve_settings(config, workerinput["mlab_run_id"] if workerinput
                                else node_run or _new_run_id())
    if settings.resume and not workerinput:
        from pytest_mlab.plugin.reporting.resume import resumed_run_id

        settings = replace(settings, run_id=resumed_run_id(settings.report_dir, settings.resume))
    _check(settings, config, workerinput is not None)
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    config.stash[SETTINGS_KEY] = settings
    named = named_trials(config, [*available_agents(), *settings.agents])
    config.stash[NAMED_KEY] = named
    config.stash[AGENTS_KEY] = _agents(settings, {t.agent for ts in named.values() for t in ts})
    # The controller of -n runs no trial, so it never imports the trial machinery.
    if workerinput is not None or getattr(config.option, "dist", "no") == "no":
        from pytest_mlab.plugin import fixtures, gateway, scale_fixtures, warm_scoring

        for module in (fixtures, scale_fixtures, gateway, warm_scoring):
            config.pluginmanager.register(module, f"mlab-{module.__name__.rsplit('.')[-1]}")
    _register_records(config, settings.retry_errors)
    configure_dispatch(config, workerinput is not None)
    if settings.validate:
        from pytest_mlab.plugin.collection import validate

        config.pluginmanager.register(validate, "mlab-validate")
        if workerinput is None:
            config.pluginmanager.register(validate.ValidationWriter(config),
                                          "mlab-validation-writer")
    if config.pluginmanager.hasplugin("timeout"):
        from pytest_mlab.plugin.dispatch.timeouts import TrialTimeouts

        config.pluginmanager.register(TrialTimeouts(), "mlab-timeouts")
    if workerinput is None:
        resumed = resumed_run(config, settings) if settings.resume else None
        reporter = Reporter(config, resumed, node_session=node_run is not None)
        config.pluginmanager.register(reporter, "mlab-reporter")
        if node_run is None:
            _register_controller_extras(config, reporter.selection)
        if config.pluginmanager.hasplugin("xdist"):
            xdist = XdistHooks(config, settings.run_id, reporter.selection, settings.cache_dir)
            config.pluginmanager.register(xdist, "mlab-xdist")
        if _saves_or_compares(config):
            from pytest_mlab.plugin.reporting import compare

            compare.register(config)



@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Live progress at -v: polled files under -n and on Ray, the item's own line
    otherwise. Set up here, where the terminal reporter exists."""
    from pytest_mlab.plugin.config.dispatch_options import dispatched
    from pytest_mlab.plugin.reporting.progress import InlineProgress, LiveProgress

    config = session.config
    settings: Settings = config.stash[SETTINGS_KEY]
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if config.get_verbosity() < 1 or terminal is None or hasattr(config, "workerinput"):
        return
    if getattr(config.option, "dist", "no") != "no" or dispatched(config):
        polling = LiveProgress(config, settings.run_files)
        config.pluginmanager.register(polling, "mlab-progress")
        polling.start()
    elif terminal.isatty:
        config.pluginmanager.register(InlineProgress(config, terminal), "mlab-progress")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Where trials run side by side (-n, Ray), the longest start first."""
    from pytest_mlab.core.trial_seconds import read_history
    from pytest_mlab.plugin.config.dispatch_options import dispatched
    from pytest_mlab.plugin.dispatch.longest_first import order_longest_first

    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        workers = workerinput["workercount"] if workerinput.get("mlab_worksteal") else 1
        order_longest_first(items, workerinput.get("mlab_trial_seconds", {}), workers)
    elif dispatched(config):
        order_longest_first(items, read_history(config.stash[SETTINGS_KEY].cache_dir))


def pytest_report_header(config: pytest.Config) -> str | None:
    from pytest_mlab.plugin.reporting.headers import mlab_header_applies

    if not mlab_header_applies(config):  # e.g. the benchmarks of tests/benchmarks
        return None
    settings: Settings = config.stash[SETTINGS_KEY]
    # Collecting only: no sandbox will run, so the machine is not probed for one.
    return settings.header(probe=not config.option.collectonly)


def pytest_sessionfinish(session: pytest.Session) -> None:
    settings = session.config.stash.get(SETTINGS_KEY, None)
    # Only the controller: workers end while others may still be running trials. A Ray
    # node's session removes only its own: its siblings of the same run may still run.
    if settings and settings.sandbox == "docker" and not hasattr(session.config, "workerinput"):
        from pytest_mlab.sandbox.docker import remove_containers

        remove_containers(settings.run_id, own_only=_node_run(session.config) is not None)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> TaskFile | None:
    if file_path.name != MANIFEST:
        return None
    from pytest_mlab.plugin.collect import TaskFile

    return TaskFile.from_parent(parent, path=file_path)
