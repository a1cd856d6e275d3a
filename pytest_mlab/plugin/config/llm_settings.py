"""The LLM settings of a session, and the client each trial gets from them."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

from pytest_mlab.llm import LLMClient, LLMConfig, SamplingChoice
from pytest_mlab.llm.cache import CACHE_MODES, CacheMode, ReplyCache
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.llm.sampling import ROLES, Role
from pytest_mlab.plugin.config import parsers
from pytest_mlab.plugin.config.resolve import base_dir, resolve

T = TypeVar("T")


@dataclass(frozen=True)
class LLMSettings:
    fast: str | None = None
    """--mlab-fast-llm; None: the trial's --llm."""
    edit: str | None = None
    judge: str | None = None
    """--mlab-judge-llm: the model that judges each trial's steps; None: no LLM judge."""
    api_base: str | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    max_tokens: int | None = None
    max_cost: float | None = None
    max_session_cost: float | None = None
    cache: CacheMode = "off"
    cache_dir: Path = Path(".mlab/llm-cache")
    sampling: SamplingChoice = field(default_factory=SamplingChoice)

    def sampling_header(self, llms: Sequence[str]) -> list[str]:
        """Each role's sampling for each main model, as it will be sent."""
        lines = []
        for model in llms:
            config = self._config(model, None)
            lines += [f"mlab: sampling {model} {role}={config.model(role)} "
                      f"{config.sampling_for(role).describe()}" for role in ROLES]
        return lines

    def header(self) -> str:
        budgets = [f"{self.max_tokens} tokens" if self.max_tokens else "",
                   f"${self.max_cost:g}" if self.max_cost else ""]
        cache = self.cache + (f" ({self.cache_dir})" if self.cache != "off" else "")
        return (
            f"mlab: llm fast={self.fast or '(--llm)'} edit={self.edit or '(--llm)'} "
            + (f"judge={self.judge} " if self.judge else "") +
            f"api_base={self.api_base or 'provider'} cache={cache} "
            f"budget per trial={' and '.join(b for b in budgets if b) or 'none'}"
            + (f" per session=${self.max_session_cost:g}" if self.max_session_cost else "")
        )

    def role_models(self, model: str) -> dict[Role, str]:
        """The model each role calls in a trial whose main model is ``model``."""
        config = self._config(model, None)
        return {role: config.model(role) for role in ROLES}

    def client(self, model: str, ledger: CostLedger, label: str) -> LLMClient:
        """The client of one trial whose main model is ``model``."""
        return LLMClient(self._config(model, ledger), label=label)

    def _config(self, model: str, ledger: CostLedger | None) -> LLMConfig:
        return LLMConfig(
            main=model, fast=self.fast or model, edit=self.edit or model,
            api_base=self.api_base, timeout=self.timeout, retries=self.retries,
            backoff=self.backoff, sampling=self.sampling, max_tokens=self.max_tokens,
            max_cost=self.max_cost,
            cache=None if self.cache == "off" else ReplyCache(self.cache_dir, self.cache),
            ledger=ledger,
        )


def resolve_llm_settings(config: pytest.Config) -> LLMSettings:
    cache_dir = resolve(config, "mlab_llm_cache_dir", "MLAB_LLM_CACHE_DIR", Path,
                        Path(".mlab/llm-cache"))
    return LLMSettings(
        fast=config.getoption("mlab_fast_llm"),
        edit=config.getoption("mlab_edit_llm"),
        judge=config.getoption("mlab_judge_llm"),
        api_base=resolve(config, "mlab_llm_api_base", "MLAB_LLM_API_BASE", str, None),
        timeout=resolve(config, "mlab_llm_timeout", None, parsers.positive_float, 120.0),
        retries=resolve(config, "mlab_llm_retries", None, parsers.whole_number, 4),
        backoff=resolve(config, "mlab_llm_backoff", None, parsers.positive_float, 1.0),
        max_tokens=config.getoption("mlab_max_tokens"),
        max_cost=config.getoption("mlab_max_cost"),
        max_session_cost=config.getoption("mlab_max_session_cost"),
        cache=resolve(config, "mlab_llm_cache", "MLAB_LLM_CACHE", parsers.choice(CACHE_MODES),
                      "off"),
        cache_dir=(base_dir(config) / cache_dir.expanduser()).resolve(),
        sampling=_sampling(config),
    )


def _appended(config: pytest.Config, name: str, parse: Callable[[str], T]) -> list[T]:
    """A repeatable option's values: the command line's, else its ini key's lines."""
    given: list[T] | None = config.getoption(name)
    if given:
        return given
    values = []
    for line in config.getini(name):
        try:
            values.append(parse(line))
        except argparse.ArgumentTypeError as exc:
            raise pytest.UsageError(f"ini key {name}: {exc}") from None
    return values


def _per_role(pairs: list[parsers.RoleValues[T]]) -> dict[Role, T | None]:
    chosen: dict[Role, T | None] = {}
    for role, value in (pair for given in pairs for pair in given):
        chosen.update(dict.fromkeys([role] if role else ROLES, value))
    return chosen


def _sampling(config: pytest.Config) -> SamplingChoice:
    stops = _appended(config, "mlab_stop", parsers.stop_sequence)
    return SamplingChoice(
        temperature=_per_role(_appended(config, "mlab_temperature", parsers.temperatures)),
        max_output_tokens=_per_role(
            _appended(config, "mlab_max_output_tokens", parsers.output_tokens)),
        stop=None if not stops else tuple(s for s in stops if s is not None),
    )
