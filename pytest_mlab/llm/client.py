"""One LLM client for every provider litellm knows, with retries, budgets and a cache.

litellm is imported at the first real call, never at collection, with its network
lookup of the price table off. Every call of a trial goes through one client, so its
tokens and cost are counted once, per step and per trial.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pytest_mlab.llm.budget import capped, model_facts, output_room, prompt_tokens
from pytest_mlab.llm.cache import ReplyCache, request_digest
from pytest_mlab.llm.call_log import CallFacts, CallLog
from pytest_mlab.llm.errors import (
    BudgetExceeded,
    LLMError,
    MissingKey,
    PromptTooLong,
    ReplayMiss,
)
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.llm.sampling import Role, Sampling, SamplingChoice
from pytest_mlab.llm.usage import Completion, ToolCall, Usage

_BACKOFF_CAP = 30.0


def import_litellm() -> ModuleType:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with warnings.catch_warnings():  # its import-time notices are not the user's concern
        warnings.simplefilter("ignore")
        import litellm

    litellm.suppress_debug_info = True
    return litellm


def _transient(litellm: ModuleType) -> tuple[type[BaseException], ...]:
    return (litellm.RateLimitError, litellm.InternalServerError,
            litellm.ServiceUnavailableError, litellm.BadGatewayError, litellm.Timeout,
            litellm.APIConnectionError)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0][:300]


@dataclass(frozen=True)
class LLMConfig:
    """How a trial's LLM calls are made: a model and sampling per role, the server,
    retries, budgets and the reply cache."""

    main: str
    fast: str
    edit: str
    api_base: str | None = None
    timeout: float = 120.0
    retries: int = 4
    """Further attempts after a rate limit, server error or timeout."""
    backoff: float = 1.0
    """Seconds before the first retry; doubled for each further one."""
    sampling: SamplingChoice = field(default_factory=SamplingChoice)
    """Temperature, output tokens and stop sequences per role; the original's by default."""
    max_tokens: int | None = None
    """Tokens (prompt and completion) a trial may spend. Each call's output is bounded by
    what is left after its prompt; a call whose prompt leaves no room is refused."""
    max_cost: float | None = None
    """Dollars a trial may spend. For a model litellm prices, each call's output is bounded
    so that its cost at worst fits; for others (cost 0) it bounds nothing."""
    cache: ReplyCache | None = None
    ledger: CostLedger | None = None

    def model(self, role: Role) -> str:
        return {"main": self.main, "fast": self.fast, "edit": self.edit}[role]

    def sampling_for(self, role: Role) -> Sampling:
        return self.sampling.resolve(self.model(role), role)


@dataclass
class LLMClient:
    """Every LLM call of one trial: counted, budgeted, retried and cached."""

    config: LLMConfig
    label: str
    """Names the trial in error messages."""
    usage: Usage = field(default_factory=Usage)
    step: int = 1
    """The step being prepared; the environment moves it on."""
    call_log: CallLog | None = None
    """Where each call is written whole, for the run browser; None writes nothing."""
    _occurrences: dict[str, int] = field(default_factory=dict)
    _overrun: str | None = None
    """Why the budget ended early: a reply went past the output the budget had left."""

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        role: Role = "main",
        tools: list[dict[str, Any]] | None = None,
        stop: Sequence[str] = (),
        sampling: dict[str, Any] | None = None,
        via: str | None = None,
    ) -> Completion:
        """The ``role`` model's answer to ``messages``, sampled as configured for the role;
        ``stop`` adds stop sequences to the role's own, and ``sampling`` (request fields
        such as temperature, from an external agent) replaces them. The request, sampling
        included, is what the reply cache is keyed on. ``via`` names who asked, for the
        call log, where not the agent's own code (an external agent's gateway endpoint)."""
        if self.call_log is None:
            return self._complete(messages, role, tools, stop, sampling)[0]
        facts = CallFacts(self.step, role, self.config.model(role), messages, tools, via)
        started = time.monotonic()
        try:
            completion, cached = self._complete(messages, role, tools, stop, sampling)
        except (LLMError, BudgetExceeded, PromptTooLong) as exc:
            self.call_log.record(facts, completion=None, seconds=time.monotonic() - started,
                                 error=f"{type(exc).__name__}: {exc}")
            raise
        self.call_log.record(facts, completion=completion, cached=cached,
                             seconds=time.monotonic() - started)
        return completion

    def _complete(self, messages: list[dict[str, Any]], role: Role,
                  tools: list[dict[str, Any]] | None, stop: Sequence[str],
                  sampling: dict[str, Any] | None) -> tuple[Completion, bool]:
        """The answer, and whether the reply cache gave it."""
        self.check_budget()
        model = self.config.model(role)
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request["tools"] = tools
        request.update(self.config.sampling_for(role).request_fields(stop)
                       if sampling is None else sampling)
        sent, room = self._within_budget(request)
        digest = request_digest(request)
        occurrence = self._occurrences.get(digest, 0)
        self._occurrences[digest] = occurrence + 1
        key = f"{digest}-{occurrence}"
        cache = self.config.cache
        if cache is not None and cache.reads:
            hit = cache.get(key)
            if hit is not None:
                self._count(hit, room)
                return hit, True
            if cache.mode == "replay":
                raise ReplayMiss(
                    f"{self.label} step {self.step}: no recorded reply for this {role}-model "
                    f"request to {model} (key {key[:16]}) in {cache.directory}; record it "
                    "with --mlab-llm-cache=record"
                )
        completion = self._call(sent)
        if cache is not None and cache.writes:
            cache.put(key, request, completion)
        if self.config.ledger is not None:
            self.config.ledger.add(completion.usage.cost)
        self._count(completion, room)
        return completion, False

    def _within_budget(self, request: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
        """The request to send, its output bounded by what the budgets leave, and that
        bound (None where no budget bounds it); BudgetExceeded where nothing fits."""
        config = self.config
        if config.max_tokens is None and config.max_cost is None:
            return request, None
        litellm = import_litellm()
        facts = model_facts(litellm, request["model"])
        room = output_room(self.usage, prompt_tokens(litellm, request), config.max_tokens,
                           config.max_cost, facts)
        if room is None:
            return request, None
        return capped(request, room, facts.max_output), room

    def _count(self, completion: Completion, room: int | None) -> None:
        """Count what the reply says it used, all of it; a reply past its bound (a
        provider that ignored it) ends the budget, whatever is left on paper."""
        self.usage.add(completion.usage)
        if room is not None and completion.usage.tokens_out > room:
            self._overrun = (f"a reply used {completion.usage.tokens_out} output tokens, "
                             f"past the {room} the budget had left for it")

    def check_budget(self) -> None:
        """Raise BudgetExceeded once the trial's token or cost budget is spent."""
        if self._overrun is not None:
            raise BudgetExceeded(self._overrun)
        spent = self.usage.tokens_in + self.usage.tokens_out
        if self.config.max_tokens is not None and spent >= self.config.max_tokens:
            raise BudgetExceeded(f"token budget of {self.config.max_tokens} spent ({spent})")
        if self.config.max_cost is not None and self.usage.cost >= self.config.max_cost:
            raise BudgetExceeded(
                f"cost budget of ${self.config.max_cost:g} spent (${self.usage.cost:.4f})"
            )

    def _credentials(self, litellm: ModuleType, model: str) -> dict[str, str]:
        missing: list[str] = litellm.validate_environment(model).get("missing_keys") or []
        if self.config.api_base is not None:
            local = {"api_base": self.config.api_base}
            if missing:  # local servers take any key; a real one in the environment still wins
                local["api_key"] = "none"
            return local
        if missing:
            raise MissingKey(f"{self.label}: {model} needs {', '.join(missing)} in the "
                             "environment (or --mlab-llm-api-base for a local server)")
        return {}

    def _call(self, request: dict[str, Any]) -> Completion:
        litellm = import_litellm()
        model = request["model"]
        # drop_params: a model that takes no temperature or stop (reasoning models) gets
        # the request without them instead of an error.
        kwargs = {**request, **self._credentials(litellm, model), "drop_params": True,
                  "timeout": self.config.timeout, "num_retries": 0, "max_retries": 0}
        transient = _transient(litellm)
        attempts = self.config.retries + 1
        for attempt in range(attempts):
            try:
                with warnings.catch_warnings():
                    # litellm's own pydantic models warn about themselves at first use.
                    warnings.filterwarnings("ignore", ".*ReadOnly. qualifier", UserWarning)
                    response = litellm.completion(**kwargs)
                return self._completion(litellm, response, model)
            except transient as exc:
                last: BaseException = exc
            except litellm.ContextWindowExceededError as exc:
                raise PromptTooLong(f"{self.label} step {self.step}: the request is too "
                                    f"long for {model}: {_first_line(exc)}") from None
            except Exception as exc:  # anything else will not get better by asking again
                raise LLMError(f"{self.label} step {self.step}: {model} failed: "
                               f"{type(exc).__name__}: {_first_line(exc)}",
                               type(exc).__name__) from None
            if attempt + 1 < attempts:
                time.sleep(min(self.config.backoff * 2**attempt, _BACKOFF_CAP))
        times = "once" if attempts == 1 else f"{attempts} times"
        raise LLMError(f"{self.label} step {self.step}: {model} failed {times}; "
                       f"last: {type(last).__name__}: {_first_line(last)}",
                       type(last).__name__)

    @staticmethod
    def _completion(litellm: ModuleType, response: Any, model: str) -> Completion:
        message = response.choices[0].message
        calls = tuple(ToolCall(c.function.name, c.function.arguments or "", c.id or "")
                      for c in (message.tool_calls or ()))
        tokens_in = int(response.usage.prompt_tokens or 0)
        tokens_out = int(response.usage.completion_tokens or 0)
        try:
            cost = float(litellm.completion_cost(completion_response=response, model=model))
        except Exception:  # litellm prices only the models in its table
            cost = 0.0
        return Completion(message.content or "", calls,
                          Usage(tokens_in, tokens_out, cost, 1), model)
