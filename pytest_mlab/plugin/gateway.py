"""External agents' fixtures: the trial's LLM gateway and the agent's own installation.

An agent that declares ``uses_gateway`` gets a gateway over the trial's LLM client; one
that declares ``venv_name`` runs from a virtual environment made by ``python -m pytest_mlab
agent-venv NAME`` (or the one --mlab-agent-venv names). Both are shown read-only in the
trial's sandbox, never in its scorer's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.llm import LLMClient
from pytest_mlab.llm.gateway import Gateway
from pytest_mlab.plugin.config.settings import Settings
from pytest_mlab.plugin.keys import AGENTS_KEY
from pytest_mlab.sandbox.isolation import best_available
from pytest_mlab.sandbox.spec import SandboxAdditions
from pytest_mlab.trial.agent_venv import agent_venv_dir, venv_python
from pytest_mlab.trial.spec import TrialSpec


def sandbox_additions(gateway: Gateway | None, venv: Path | None) -> SandboxAdditions | None:
    """The gateway's variables and mounts, and the agent's environment, read-only, its
    tools on PATH after the trial's ``python``: an agent's own python and pip would run
    the agent's experiments without the task's libraries."""
    if gateway is None and venv is None:
        return None
    environment = gateway.environment() if gateway is not None else {}
    mounts = gateway.mounts() if gateway is not None else ()
    if venv is not None:
        mounts = (*mounts, (str(venv), str(venv)))
        environment = environment | {"PATH": str(venv / "bin")}
    return SandboxAdditions(environment, mounts)


def _agent_class(config: pytest.Config, spec: TrialSpec) -> Any:
    return config.stash[AGENTS_KEY][spec.agent]


@pytest.fixture
def mlab_agent_venv(pytestconfig: pytest.Config, mlab_trial_spec: TrialSpec,
                    mlab_settings: Settings) -> Path | None:
    """The external agent's virtual environment; None for agents that bring none."""
    name = getattr(_agent_class(pytestconfig, mlab_trial_spec), "venv_name", None)
    chosen = pytestconfig.getoption("mlab_agent_venv", None) or pytestconfig.getini(
        "mlab_agent_venv")
    if chosen:
        venv = Path(chosen).expanduser().resolve()
        if not venv_python(venv).exists():
            raise pytest.UsageError(f"--mlab-agent-venv {chosen}: not a virtual environment "
                                    "(it has no bin/python)")
        return venv
    if name is None:
        return None
    venv = agent_venv_dir(mlab_settings.cache_dir, name)
    if not venv_python(venv).exists():
        pytest.skip(f"the {mlab_trial_spec.agent} agent runs from its own environment, not "
                    f"made yet: python -m pytest_mlab agent-venv {name}")
    return venv


@pytest.fixture
def mlab_gateway(request: pytest.FixtureRequest, mlab_trial_spec: TrialSpec,
                 mlab_llm: LLMClient | None, mlab_settings: Settings) -> Iterator[Gateway | None]:
    """The trial's LLM gateway, for agents that declare ``uses_gateway``; else None."""
    agent = _agent_class(request.config, mlab_trial_spec)
    if mlab_llm is None or not getattr(agent, "uses_gateway", False):
        yield None
        return
    settings = mlab_settings
    if settings.sandbox == "local" and best_available(settings.isolation) == "none":
        pytest.skip(f"the {mlab_trial_spec.agent} agent reaches its model through a gateway "
                    "in the sandbox's own network namespace, which --mlab-isolation=none "
                    "does not make: use bwrap, netns or --mlab-sandbox=docker")
    trace = settings.run_files.trial(request.node.nodeid).trace
    gateway = Gateway(mlab_llm, log=trace.with_name(trace.stem + ".llm-calls.jsonl")).start()
    try:
        yield gateway
    finally:
        gateway.close()
