"""Settings, resolved once per session: command line > environment > ini > default."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import pytest

from pytest_mlab.env.agent import AgentOptions
from pytest_mlab.llm.cache import CACHE_MODES, CacheMode
from pytest_mlab.sandbox.isolation import DESCRIPTIONS, FIXES, Isolation, best_available
from pytest_mlab.core.task import TaskSpec

T = TypeVar("T")
S = TypeVar("S", bound=str)
Retention = Literal["all", "failed", "none"]
RETENTIONS: tuple[Retention, ...] = ("all", "failed", "none")
DEFAULT_THRESHOLD = 0.10


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a number >= {low}, got {value}")
        return value

    return parse


positive_int = _int_at_least(1)
whole_number = _int_at_least(0)


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {value:g}")
    return value


def fraction(text: str) -> float:
    value = positive_float(text)
    if value >= 10:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.10, got {value:g}")
    return value


def gpu_list(text: str) -> tuple[str, ...]:
    """``0,1`` (device ids) or ``none``; CUDA_VISIBLE_DEVICES uses the same form."""
    if text.strip().lower() in ("", "none", "-1"):
        return ()
    ids = tuple(part.strip() for part in text.split(","))
    if any(not part for part in ids):
        raise argparse.ArgumentTypeError(f"expected GPU ids such as 0,1, got {text!r}")
    return ids


def choice(options: tuple[S, ...]) -> Callable[[str], S]:
    def parse(text: str) -> S:
        for option in options:
            if text == option:
                return option
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(options)}, got {text!r}")

    return parse


retention = choice(RETENTIONS)
cache_mode = choice(CACHE_MODES)


SANDBOXES = ("local", "docker")
ISOLATIONS = ("auto", "bwrap", "netns", "none")
DEFAULT_DOCKER_IMAGE = "pytest-mlab-sandbox:latest"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-mlab"


@dataclass(frozen=True)
class LLMSettings:
    fast: str | None = None
    """--mlab-fast-llm; None: the trial's --llm."""
    edit: str | None = None
    api_base: str | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    max_tokens: int | None = None
    max_cost: float | None = None
    max_session_cost: float | None = None
    cache: CacheMode = "off"
    cache_dir: Path = Path(".mlab/llm-cache")

    def header(self) -> str:
        budgets = [f"{self.max_tokens} tokens" if self.max_tokens else "",
                   f"${self.max_cost:g}" if self.max_cost else ""]
        cache = self.cache + (f" ({self.cache_dir})" if self.cache != "off" else "")
        return (
            f"mlab: llm fast={self.fast or '(--llm)'} edit={self.edit or '(--llm)'} "
            f"api_base={self.api_base or 'provider'} cache={cache} "
            f"budget per trial={' and '.join(b for b in budgets if b) or 'none'}"
            + (f" per session=${self.max_session_cost:g}" if self.max_session_cost else "")
        )


@dataclass(frozen=True)
class Settings:
    agents: tuple[str, ...]
    llms: tuple[str, ...]
    trials: int
    threshold: float | None
    """Set only when the user gave one; otherwise the task's own, else 10%."""
    max_steps: int | None
    max_time: float | None
    gpus: tuple[str, ...]
    cache_dir: Path
    report_dir: Path
    keep_workspaces: Retention
    record_baseline: int | None
    run_id: str
    sandbox: str = "local"
    isolation: Isolation = "none"
    """The level in force for the local sandbox: the strongest asked for that works here."""
    script_timeout: float | None = None
    docker_image: str = DEFAULT_DOCKER_IMAGE
    score_steps: int | None = None
    resume: str | None = None
    interactive: bool = False
    llm: LLMSettings = field(default_factory=LLMSettings)
    agent_options: AgentOptions = field(default_factory=AgentOptions)

    def threshold_for(self, task: TaskSpec) -> float:
        return self.threshold or task.manifest.threshold or DEFAULT_THRESHOLD

    def header(self) -> str:
        threshold = "task's own, else 10%" if self.threshold is None else f"{self.threshold:g}"
        trials = f"{self.record_baseline} (recording baselines)" if self.record_baseline else (
            str(self.trials)
        )
        return (
            f"mlab: agents={','.join(self.agents)} llms={','.join(self.llms) or '-'} "
            f"trials={trials} threshold={threshold} gpus={','.join(self.gpus) or 'none'} "
            f"run={self.run_id} cache={self.cache_dir} reports={self.report_dir}\n"
            f"mlab: sandbox={self.sandbox} " + (
                f"image={self.docker_image}" if self.sandbox == "docker"
                else f"isolation={self.isolation} ({DESCRIPTIONS[self.isolation]})"
                + ("" if self.isolation == "bwrap" else f"; for more: {FIXES['bwrap']}")
            )
        ) + (f"\n{self.llm.header()}" if self.llms else "")


def _resolve(
    config: pytest.Config,
    option: str,
    ini: str | None,
    env: str | None,
    parse: Callable[[str], T],
    default: T,
) -> T:
    given = config.getoption(option)
    if given is not None:
        value: T = given
        return value
    for source, raw in (
        (f"environment variable {env}", os.environ.get(env) if env else None),
        (f"ini key {ini}", config.getini(ini) if ini else None),
    ):
        if raw:
            try:
                return parse(str(raw))
            except argparse.ArgumentTypeError as exc:
                raise pytest.UsageError(f"{source}: {exc}") from None
    return default


def _isolation(requested: str) -> Isolation:
    level = best_available(requested)
    if level is None:
        fix = FIXES[requested]  # type: ignore[index]
        raise pytest.UsageError(f"--mlab-isolation={requested} does not work here: {fix}")
    return level


def _lines(config: pytest.Config, option: str, ini: str) -> tuple[str, ...]:
    given: list[str] | None = config.getoption(option)
    if given:
        return tuple(given)
    raw: list[str] = config.getini(ini)
    return tuple(item for line in raw for item in line.split() if item)


def resolve_settings(config: pytest.Config, run_id: str) -> Settings:
    root = config.rootpath
    report_dir = _resolve(config, "mlab_report_dir", "mlab_report_dir", None, Path, Path("reports"))
    cache_dir = _resolve(
        config, "mlab_cache_dir", "mlab_cache_dir", "MLAB_CACHE_DIR", Path, default_cache_dir()
    )
    no_gpus: tuple[str, ...] = ()
    gpus = _resolve(config, "mlab_gpus", "mlab_gpus", "CUDA_VISIBLE_DEVICES", gpu_list, no_gpus)
    return Settings(
        agents=_lines(config, "mlab_agents", "mlab_agents") or ("baseline",),
        llms=_lines(config, "mlab_llms", "mlab_llms"),
        trials=_resolve(config, "mlab_trials", "mlab_trials", None, positive_int, 1),
        threshold=_resolve(config, "mlab_threshold", "mlab_threshold", None, fraction, None),
        max_steps=_resolve(config, "mlab_max_steps", "mlab_max_steps", None, positive_int, None),
        max_time=_resolve(config, "mlab_max_time", "mlab_max_time", None, positive_float, None),
        gpus=gpus,
        cache_dir=(root / cache_dir.expanduser()).resolve(),
        report_dir=(root / report_dir).resolve(),
        keep_workspaces=_resolve(
            config, "mlab_keep_workspaces", "mlab_keep_workspaces", None, retention, "failed"
        ),
        record_baseline=config.getoption("mlab_record_baseline"),
        run_id=run_id,
        sandbox=_resolve(
            config, "mlab_sandbox", "mlab_sandbox", "MLAB_SANDBOX", choice(SANDBOXES), "local"
        ),
        isolation=_isolation(
            _resolve(config, "mlab_isolation", "mlab_isolation", None, choice(ISOLATIONS), "auto")
        ),
        script_timeout=_resolve(
            config, "mlab_script_timeout", "mlab_script_timeout", None, positive_float, None
        ),
        docker_image=_resolve(
            config, "mlab_docker_image", "mlab_docker_image", "MLAB_DOCKER_IMAGE", str,
            DEFAULT_DOCKER_IMAGE,
        ),
        score_steps=config.getoption("mlab_score_steps"),
        resume=config.getoption("mlab_resume"),
        interactive=bool(config.getoption("mlab_interactive")),
        llm=_llm_settings(config),
        agent_options=AgentOptions(
            retrieval=bool(config.getoption("mlab_retrieval")),
            tool_calling=bool(config.getoption("mlab_tool_calling")),
            invalid_retries=_resolve(config, "mlab_invalid_retries", None, None, whole_number, 5),
            command=config.getoption("mlab_agent_cmd"),
        ),
    )


def _llm_settings(config: pytest.Config) -> LLMSettings:
    cache_dir = _resolve(config, "mlab_llm_cache_dir", "mlab_llm_cache_dir", "MLAB_LLM_CACHE_DIR",
                         Path, Path(".mlab/llm-cache"))
    return LLMSettings(
        fast=config.getoption("mlab_fast_llm"),
        edit=config.getoption("mlab_edit_llm"),
        api_base=_resolve(config, "mlab_llm_api_base", "mlab_llm_api_base", "MLAB_LLM_API_BASE",
                          str, None),
        timeout=_resolve(config, "mlab_llm_timeout", None, None, positive_float, 120.0),
        retries=_resolve(config, "mlab_llm_retries", None, None, whole_number, 4),
        backoff=_resolve(config, "mlab_llm_backoff", None, None, positive_float, 1.0),
        max_tokens=config.getoption("mlab_max_tokens"),
        max_cost=config.getoption("mlab_max_cost"),
        max_session_cost=config.getoption("mlab_max_session_cost"),
        cache=_resolve(config, "mlab_llm_cache", "mlab_llm_cache", "MLAB_LLM_CACHE", cache_mode,
                       "off"),
        cache_dir=(config.rootpath / cache_dir.expanduser()).resolve(),
    )
