"""The fixtures a trial is built from; each can be overridden from a conftest.py.

They only wire pytest to ``pytest_mlab.trial``: each makes one part, and ``mlab_result``
hands the parts to ``run_trial``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.errors import TaskUnavailable, TrialFault
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.tree import remove_tree
from pytest_mlab.env.agent import Agent, AgentContext
from pytest_mlab.env.data import (
    PreparedData,
    is_prepared,
    missing_requirements,
    prepare_task,
    prepared_root,
)
from pytest_mlab.env.workspace import Workspace, provision_workspace
from pytest_mlab.llm import LLMClient
from pytest_mlab.llm.call_log import CallLog
from pytest_mlab.llm.gateway import Gateway
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.plugin.config.settings import Settings
from pytest_mlab.plugin.gateway import sandbox_additions
from pytest_mlab.plugin.keys import AGENTS_KEY, CONTROL_KEY, RESULT_KEY, SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.plugin.reporting.setup_phases import announced, kept
from pytest_mlab.plugin.reproduction import reproducer_for
from pytest_mlab.plugin.rule_checks import rule_parts
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.sandbox.factory import make_sandbox
from pytest_mlab.sandbox.python_bin import python_bin
from pytest_mlab.sandbox.spec import SandboxAdditions
from pytest_mlab.trial.cpus import cpu_lock_dir, lease_cores
from pytest_mlab.trial.fresh import SandboxMaker
from pytest_mlab.trial.gpu import NoGPU, gpu_lock_dir, lease
from pytest_mlab.trial.provision import sandbox_spec
from pytest_mlab.trial.reference import Reference
from pytest_mlab.trial.run import TrialParts, run_trial
from pytest_mlab.trial.scoring import ScoringSandbox
from pytest_mlab.trial.spec import TrialSpec


def _scoring(
    config: pytest.Config, task: TaskSpec, workspace: Workspace, gpus: tuple[str, ...],
    seed: int, cpus: tuple[int, ...] = (),
) -> ScoringSandbox:
    """The sandbox kind and spec of a trial: its scripts' own, and its scorer's."""
    settings, python = config.stash[SETTINGS_KEY], task.interpreter()
    spec = sandbox_spec(
        task, workspace, gpus, settings.overrides.limits_for(task),
        isolation=settings.isolation, image=settings.docker_image, run_id=settings.run_id,
        seed=seed, cpus=cpus, prepared=prepared_root(task, settings.cache_dir, settings.data_key),
        python_bin=python_bin(settings.cache_dir, python), python=python,
    )
    return ScoringSandbox(settings.sandbox, spec)


@pytest.hookimpl(trylast=True)
def pytest_mlab_make_sandbox(
    config: pytest.Config, task: TaskSpec, workspace: Workspace, gpus: tuple[str, ...],
    seed: int, cpus: tuple[int, ...], additions: SandboxAdditions | None = None,
) -> Sandbox:
    chosen = _scoring(config, task, workspace, gpus, seed, cpus)
    spec = chosen.spec if additions is None else additions.applied(chosen.spec)
    return make_sandbox(chosen.kind, spec)


def sandbox_maker(
    config: pytest.Config, task: TaskSpec, gpus: tuple[str, ...], cpus: tuple[int, ...] = ()
) -> SandboxMaker:
    """Makes the sandbox of a fresh workspace through the hook, as for a trial."""

    def scripts(workspace: Workspace, seed: int) -> Sandbox:
        sandbox: Sandbox = config.hook.pytest_mlab_make_sandbox(
            config=config, task=task, workspace=workspace, gpus=gpus, seed=seed, cpus=cpus,
            additions=None)
        return sandbox

    def scoring(workspace: Workspace, seed: int) -> ScoringSandbox:
        return _scoring(config, task, workspace, gpus, seed, cpus)

    return SandboxMaker(scripts, scoring)


@pytest.fixture(scope="session")
def mlab_settings(pytestconfig: pytest.Config) -> Settings:
    """The session's settings, resolved once from options, variables and ini keys."""
    settings: Settings = pytestconfig.stash[SETTINGS_KEY]
    return settings


@pytest.fixture
def mlab_trial_spec(request: pytest.FixtureRequest) -> TrialSpec:
    """Which task, agent, model and trial number this item runs."""
    spec: TrialSpec | None = request.node.stash.get(TRIAL_KEY, None)
    if spec is None:
        pytest.fail(f"{request.node.nodeid} is not a pytest-mlab trial", pytrace=False)
    return spec


@pytest.fixture
def mlab_task(mlab_trial_spec: TrialSpec) -> TaskSpec:
    """The validated task directory of this trial."""
    return mlab_trial_spec.task


@pytest.fixture
def mlab_data(pytestconfig: pytest.Config, mlab_task: TaskSpec,
              mlab_settings: Settings) -> PreparedData:
    """The task's public data and private answers, prepared once per machine."""
    cache, key = mlab_settings.cache_dir, mlab_settings.data_key
    quiet = is_prepared(mlab_task, cache, key) or missing_requirements(mlab_task)
    said = contextlib.nullcontext() if quiet else announced(
        pytestconfig, mlab_task.name, "prepare", "preparing its data...", "data prepared")
    try:
        with said:
            return prepare_task(mlab_task, cache, key)
    except TaskUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def mlab_gpu(
    mlab_task: TaskSpec, mlab_settings: Settings, mlab_reference: Reference | None
) -> Iterator[tuple[str, ...]]:
    """The GPUs this trial holds, exclusively across xdist workers, while it runs; leased
    after its baseline and reference, whose measuring may wait for every lease."""
    lock_dir = gpu_lock_dir(mlab_settings.cache_dir)
    try:
        with lease(mlab_settings.gpus, mlab_task.manifest.resources.gpus, lock_dir) as gpus:
            yield gpus
    except NoGPU as exc:
        pytest.skip(f"{mlab_task.name} {exc}")


@pytest.fixture
def mlab_cpus(
    mlab_task: TaskSpec, mlab_settings: Settings, mlab_reference: Reference | None
) -> Iterator[tuple[int, ...]]:
    """The cores this trial holds, exclusively across xdist workers, while it runs; leased
    after its baseline and reference, whose measuring may wait for every lease."""
    lock_dir = cpu_lock_dir(mlab_settings.cache_dir)
    with lease_cores(mlab_task.manifest.resources.cpus, lock_dir) as cpus:
        yield cpus


@pytest.fixture
def mlab_workspace(
    request: pytest.FixtureRequest, mlab_task: TaskSpec, mlab_data: PreparedData,
    mlab_settings: Settings,
) -> Iterator[Workspace]:
    """A fresh copy of the task's env/ with its public data, in the run folder, where it
    stays per --mlab-keep-workspaces (so every path in results.json still exists)."""
    root = mlab_settings.run_files.trial(request.node.nodeid).workspace
    remove_tree(root)  # a resumed trial restores its own snapshot
    workspace = provision_workspace(mlab_task, mlab_data, root)
    yield workspace
    result = request.node.stash.get(RESULT_KEY, None)
    # Without a result the trial errored: keep its workspace unless told to keep none.
    unwanted = mlab_settings.keep_workspaces == "none"
    if unwanted or (result is not None and result.workspace is None):
        remove_tree(root)  # not rmtree: the agent may have left a tree too deep for it


@pytest.fixture
def mlab_sandbox(
    pytestconfig: pytest.Config, mlab_trial_spec: TrialSpec, mlab_workspace: Workspace,
    mlab_gpu: tuple[str, ...], mlab_cpus: tuple[int, ...], mlab_gateway: Gateway | None,
    mlab_agent_venv: Path | None,
) -> Iterator[Sandbox]:
    """Where the trial's scripts run (the pytest_mlab_make_sandbox hook makes it)."""
    sandbox: Sandbox = pytestconfig.hook.pytest_mlab_make_sandbox(
        config=pytestconfig, task=mlab_trial_spec.task, workspace=mlab_workspace,
        gpus=mlab_gpu, seed=mlab_trial_spec.mlab_seed, cpus=mlab_cpus,
        additions=sandbox_additions(mlab_gateway, mlab_agent_venv),
    )
    try:
        yield sandbox
    finally:
        close = getattr(sandbox, "close", None)  # optional for a plugin's own sandbox
        if close is not None:
            close()


@pytest.fixture
def mlab_agent(pytestconfig: pytest.Config, mlab_trial_spec: TrialSpec,
               mlab_gateway: Gateway | None, mlab_agent_venv: Path | None) -> Agent:
    """The agent chosen by --agent, built for this trial."""
    spec = mlab_trial_spec
    agent_class = pytestconfig.stash[AGENTS_KEY][spec.agent]
    # Read with getattr: agents from other packages need not declare these.
    for module in getattr(agent_class, "requires", ()):
        if importlib.util.find_spec(module) is None:
            extra = getattr(agent_class, "extra", None)
            fix = f"pytest-mlab[{extra}]" if extra else module
            pytest.skip(f"the {spec.agent} agent needs {module}: pip install '{fix}'")
    solution = spec.task.solution_dir if agent_class.needs_solution else None
    return agent_class(AgentContext(
        task=spec.task.name, llm=spec.llm, solution_dir=solution,
        options=pytestconfig.stash[SETTINGS_KEY].agent_options, gateway=mlab_gateway,
        agent_venv=mlab_agent_venv,
    ))


@pytest.fixture
def mlab_llm(request: pytest.FixtureRequest, mlab_settings: Settings,
             mlab_trial_spec: TrialSpec) -> LLMClient | None:
    """The trial's LLM client, each call logged beside its trace; None for agents
    without a model."""
    spec, chosen = mlab_trial_spec, mlab_settings.llm
    if spec.llm is None:
        return None
    ledger = CostLedger(mlab_settings.run_files.spend_ledger)
    cap = chosen.max_session_cost
    if cap is not None and (spent := ledger.total()) >= cap:
        pytest.skip(f"the session's LLM budget of ${cap:g} is spent (${spent:.4f}); "
                    "no new trial starts")
    label = f"{spec.task.name}/{spec.agent}/{spec.llm} trial {spec.trial}"
    client = chosen.client(spec.llm, ledger, label)
    log = mlab_settings.run_files.trial(request.node.nodeid).calls
    # A resumed trial's trace goes on where it stopped, and so does its call log.
    client.call_log = CallLog(log) if mlab_settings.resume else CallLog.fresh(log)
    return client


def _terminal_ask(config: pytest.Config) -> Callable[[str], str]:
    """Request Help, answered by the person at this terminal."""
    capture = config.pluginmanager.getplugin("capturemanager")

    def ask(question: str) -> str:
        with capture.global_and_fixture_disabled():
            print(f"\n[mlab] The agent asks: {question}")
            return input("[mlab] Your answer: ")

    return ask


@pytest.fixture
def mlab_result(
    request: pytest.FixtureRequest, mlab_settings: Settings, mlab_trial_spec: TrialSpec,
    mlab_data: PreparedData, mlab_baseline: Baseline | None,
    mlab_reference: Reference | None, mlab_workspace: Workspace, mlab_sandbox: Sandbox,
    mlab_agent: Agent, mlab_llm: LLMClient | None,
    mlab_gpu: tuple[str, ...], mlab_cpus: tuple[int, ...], mlab_warm_scorers: None,
) -> TrialResult:
    """Run the trial and judge it; the test body only passes or fails on this record."""
    settings, task = mlab_settings, mlab_trial_spec.task
    started = time.monotonic()
    result = run_trial(TrialParts(
        nodeid=request.node.nodeid, spec=mlab_trial_spec, data=mlab_data,
        baseline=mlab_baseline, reference=mlab_reference, workspace=mlab_workspace,
        sandbox=mlab_sandbox,
        agent=mlab_agent, llm=mlab_llm, limits=settings.overrides.limits_for(task),
        threshold=settings.overrides.threshold_for(task),
        files=settings.run_files.trial(request.node.nodeid), resume=bool(settings.resume),
        score_steps=settings.score_steps, keep_workspace=settings.keep_workspaces,
        ask=_terminal_ask(request.config) if settings.interactive else None,
        control=request.node.stash.get(CONTROL_KEY, None),
        show_progress=getattr(request.config.pluginmanager.get_plugin("mlab-progress"),
                              "show", None),
        action_options=settings.action_options,
        require_final_answer=settings.overrides.require_final_answer,
        **rule_parts(settings, mlab_trial_spec),
        reproducer=reproducer_for(request.config, mlab_trial_spec, mlab_gpu, mlab_cpus),
        scoring=_scoring(request.config, task, mlab_workspace, mlab_gpu,
                         mlab_trial_spec.mlab_seed, mlab_cpus),
    ))
    request.node.stash[RESULT_KEY] = result
    if result.outcome in ("passed", "failed") and not settings.resume:
        # What the trial took beyond the agent's turn: scoring and the checks after it.
        kept(request.config, task.name, "scoring",
             max(0.0, time.monotonic() - started - result.seconds))
    if result.outcome == "error":
        # The harness's fault (the provider failed, a timeout): the item errors, and its
        # record, scored as far as it got, is the one the reporter keeps.
        raise TrialFault(result.message)
    return result
