"""The harness's LLM client: every provider through litellm, counted, cached and budgeted."""

from pytest_mlab.llm.client import LLMClient, LLMConfig
from pytest_mlab.llm.errors import BudgetExceeded, LLMError, MissingKey, PromptTooLong, ReplayMiss
from pytest_mlab.llm.sampling import Role, Sampling, SamplingChoice
from pytest_mlab.llm.usage import Completion, ToolCall, Usage

__all__ = ["BudgetExceeded", "Completion", "LLMClient", "LLMConfig", "LLMError", "MissingKey",
           "PromptTooLong", "ReplayMiss", "Role", "Sampling", "SamplingChoice", "ToolCall", "Usage"]
