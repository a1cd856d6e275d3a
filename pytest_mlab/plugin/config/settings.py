"""Settings, resolved once per session: command line > environment > ini > default."""

from __future__ import annotations

import argparse
import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_mlab.core import data_key
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.env.actions.options import SCRIPT_OUTPUTS, ActionOptions
from pytest_mlab.env.agent import (
    ANSWER_PARSINGS,
    HISTORIES,
    LANGCHAIN_STYLES,
    LONG_PROMPTS,
    AgentOptions,
)
from pytest_mlab.plugin.config import parsers
from pytest_mlab.plugin.config.llm_settings import LLMSettings, resolve_llm_settings
from pytest_mlab.plugin.config.resolve import base_dir, lines, resolve
from pytest_mlab.sandbox.isolation import CHOICES as ISOLATIONS
from pytest_mlab.sandbox.isolation import DESCRIPTIONS, FIXES, best_available
from pytest_mlab.sandbox.spec import SKELETON_IMAGE
from pytest_mlab.trial.spec import (
    REFERENCES,
    REPRODUCE_CHOICES,
    RETENTIONS,
    Overrides,
    Retention,
)


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-mlab"


def parse_data_key(text: str) -> bytes:
    try:
        return data_key.parse_key(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass(frozen=True)
class Settings:
    agents: tuple[str, ...]
    llms: tuple[str, ...]
    trials: int
    overrides: Overrides
    gpus: tuple[str, ...]
    cache_dir: Path
    report_dir: Path
    keep_workspaces: Retention
    record_baseline: int | None
    run_id: str
    validate: bool = False
    """--mlab-validate: check tasks instead of running trials."""
    retry_errors: int = 0
    """--mlab-retry-errors: runs again of a trial that ended in a harness error."""
    reference: str = "validation"
    """--mlab-reference: where the reference solution's score comes from."""
    baseline_runs: int | None = None
    """--mlab-baseline-runs: runs of the starter a measured baseline is made of; None: the
    task's own number."""
    sandbox: str = "local"
    isolation: str = "auto"
    """As asked for; the local sandbox probes what works at its first use."""
    docker_image: str = SKELETON_IMAGE
    score_steps: int | None = None
    resume: str | None = None
    interactive: bool = False
    llm: LLMSettings = field(default_factory=LLMSettings)
    agent_options: AgentOptions = field(default_factory=AgentOptions)
    action_options: ActionOptions = field(default_factory=ActionOptions)
    data_key: bytes | None = field(default=None, repr=False)
    """--mlab-data-key or $MLAB_DATA_KEY; None: the cache's own key."""

    @property
    def run_files(self) -> RunFiles:
        return RunFiles.of(self.report_dir, self.run_id)

    def header(self, *, probe: bool = True) -> str:
        """The run header; ``probe`` names the isolation in force (a probe of this machine)."""
        threshold = self.overrides.threshold
        bar = "task's own, else 10%" if threshold is None else f"{threshold:g}"
        if self.overrides.require_final_answer:
            bar += " (Final Answer required)"
        reproduce = f"reproduce={self.overrides.reproduce}"
        if self.overrides.strict:
            reproduce += " (strict: unreproduced trials fail)"
        trials = f"{self.record_baseline} (recording baselines)" if self.record_baseline else (
            str(self.trials)
        )
        scale = f"reference={self.reference}"
        if self.baseline_runs is not None:
            scale += f" baseline-runs={self.baseline_runs}"
        lines = [
            f"mlab: agents={','.join(self.agents)} llms={','.join(self.llms) or '-'} "
            f"trials={trials} threshold={bar} gpus={','.join(self.gpus) or 'none'} "
            f"{reproduce} {scale} run={self.run_id} "
            f"cache={self.cache_dir} reports={self.report_dir}",
            f"mlab: sandbox={self.sandbox} {self._sandbox_detail(probe)}",
            f"mlab: data key {self._data_key_source()}",
        ]
        if self.llms:
            lines.append(self.llm.header())
            lines += self.llm.sampling_header(self.llms)
            lines.append(f"mlab: agents {self.agent_options.describe()} "
                         f"{self.action_options.describe()}")
        return "\n".join(lines)

    def _data_key_source(self) -> str:
        if self.data_key is not None:
            return f"pinned (id {data_key.key_id(self.data_key)})"
        return f"of the cache ({self.cache_dir / data_key.FILE})"

    def _sandbox_detail(self, probe: bool) -> str:
        if self.sandbox == "docker":
            return f"image={self.docker_image}"
        if self.sandbox != "local":
            return ""
        level = best_available(self.isolation) if probe else None
        if level is None:
            return f"isolation={self.isolation}"
        fix = "" if level == "bwrap" else f"; for more: {FIXES['bwrap']}"
        return f"isolation={level} ({DESCRIPTIONS[level]}){fix}"


def _isolation(config: pytest.Config) -> str:
    requested = resolve(config, "mlab_isolation", None, parsers.choice(ISOLATIONS), "auto")
    # A level the user named is checked now; auto is probed when a sandbox first needs it.
    if requested != "auto" and best_available(requested) is None:
        fix = FIXES[requested]  # type: ignore[index]
        raise pytest.UsageError(f"--mlab-isolation={requested} does not work here: {fix}")
    return requested


def _overrides(config: pytest.Config) -> Overrides:
    return Overrides(
        threshold=resolve(config, "mlab_threshold", None, parsers.fraction, None),
        require_final_answer=resolve(config, "mlab_require_final_answer", None,
                                     parsers.switch, False),
        reproduce=resolve(config, "mlab_reproduce", None, parsers.choice(REPRODUCE_CHOICES),
                          "auto"),
        strict=resolve(config, "mlab_strict", None, parsers.switch, False),
        max_steps=resolve(config, "mlab_max_steps", None, parsers.positive_int, None),
        max_time=resolve(config, "mlab_max_time", None, parsers.positive_float, None),
        script_timeout=resolve(config, "mlab_script_timeout", None, parsers.positive_float,
                               None),
    )


def resolve_settings(config: pytest.Config, run_id: str) -> Settings:
    root = base_dir(config)
    report_dir = resolve(config, "mlab_report_dir", None, Path, Path("reports"))
    cache_dir = resolve(config, "mlab_cache_dir", "MLAB_CACHE_DIR", Path, default_cache_dir())
    no_gpus: tuple[str, ...] = ()
    return Settings(
        agents=lines(config, "mlab_agents") or ("baseline",),
        llms=lines(config, "mlab_llms"),
        trials=resolve(config, "mlab_trials", None, parsers.positive_int, 1),
        retry_errors=resolve(config, "mlab_retry_errors", None, parsers.whole_number, 0),
        reference=resolve(config, "mlab_reference", None, parsers.choice(REFERENCES),
                          "validation"),
        baseline_runs=resolve(config, "mlab_baseline_runs", None, parsers.positive_int, None),
        overrides=_overrides(config),
        gpus=resolve(config, "mlab_gpus", "CUDA_VISIBLE_DEVICES", parsers.gpu_list, no_gpus),
        cache_dir=(root / cache_dir.expanduser()).resolve(),
        report_dir=(root / report_dir).resolve(),
        keep_workspaces=resolve(config, "mlab_keep_workspaces", None,
                                parsers.choice(RETENTIONS), "failed"),
        record_baseline=config.getoption("mlab_record_baseline"),
        validate=bool(config.getoption("mlab_validate")),
        run_id=run_id,
        sandbox=resolve(config, "mlab_sandbox", "MLAB_SANDBOX", str, "local"),
        isolation=_isolation(config),
        docker_image=resolve(config, "mlab_docker_image", "MLAB_DOCKER_IMAGE", str,
                             SKELETON_IMAGE),
        score_steps=config.getoption("mlab_score_steps"),
        resume=config.getoption("mlab_resume"),
        interactive=bool(config.getoption("mlab_interactive")),
        llm=resolve_llm_settings(config),
        agent_options=_agent_options(config),
        data_key=resolve(config, "mlab_data_key", data_key.VARIABLE, parse_data_key, None),
        action_options=ActionOptions(
            script_output=resolve(config, "mlab_script_output", None,
                                  parsers.choice(SCRIPT_OUTPUTS), "paper"),
            understand_limit=resolve(config, "mlab_understand_limit", None,
                                     parsers.positive_int, None),
        ),
    )


def _agent_options(config: pytest.Config) -> AgentOptions:
    return AgentOptions(
        retrieval=bool(config.getoption("mlab_retrieval")),
        tool_calling=bool(config.getoption("mlab_tool_calling")),
        history=resolve(config, "mlab_history", None, parsers.choice(HISTORIES), "paper"),
        system_prompt=bool(config.getoption("mlab_system_prompt")),
        invalid_retries=resolve(config, "mlab_invalid_retries", None, parsers.whole_number, 4),
        langchain_style=resolve(config, "mlab_langchain_style", None,
                                parsers.choice(LANGCHAIN_STYLES), "react"),
        long_prompt=resolve(config, "mlab_long_prompt", None, parsers.choice(LONG_PROMPTS),
                            "retry"),
        answer_parsing=resolve(config, "mlab_answer_parsing", None,
                               parsers.choice(ANSWER_PARSINGS), "paper"),
        command=config.getoption("mlab_agent_cmd"),
        paper_prompt=_paper_prompt(config),
    )


def _paper_prompt(config: pytest.Config) -> str | None:
    """--mlab-paper-prompt's checkout, read once here so that a bad one stops the session
    with its sentence before any trial."""
    given = resolve(config, "mlab_paper_prompt", None, str, "")
    if not given:
        return None
    # The react agent's own reader, loaded by name as the agents are.
    reader = importlib.import_module("pytest_mlab.agents.react_paper_prompt")
    checkout = (config.invocation_params.dir / Path(given).expanduser()).resolve()
    try:
        reader.PaperPrompt.from_checkout(checkout)
    except reader.PaperPromptError as exc:
        raise pytest.UsageError(f"--mlab-paper-prompt: {exc}") from None
    return str(checkout)
