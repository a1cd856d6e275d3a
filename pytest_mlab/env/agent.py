"""What an agent is: the protocol every agent follows, and what it is built from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from pytest_mlab.env.environment import Environment
    from pytest_mlab.llm.gateway import Gateway

History = Literal["paper", "compact"]
HISTORIES: tuple[History, ...] = ("paper", "compact")
LangChainStyle = Literal["react", "tools"]
LongPrompt = Literal["retry", "stop", "fail"]
LONG_PROMPTS: tuple[LongPrompt, ...] = ("retry", "stop", "fail")
AnswerParsing = Literal["paper", "lenient"]
ANSWER_PARSINGS: tuple[AnswerParsing, ...] = ("paper", "lenient")
LANGCHAIN_STYLES: tuple[LangChainStyle, ...] = ("react", "tools")


@dataclass(frozen=True)
class AgentOptions:
    """Command-line choices for the built-in agents; others may ignore them. The defaults
    are MLAgentBench's (docs/paper-parity.md)."""

    retrieval: bool = False
    """react: keep a research log and work from what is retrieved from it."""
    tool_calling: bool = False
    """react: use the provider's native tool calling instead of named text fields."""
    history: History = "paper"
    """react: ``paper`` shows the last 3 steps and nothing older; ``compact`` also lists
    every older step in one line."""
    system_prompt: bool = False
    """react: send the instructions as a system message, not all in one user message."""
    invalid_retries: int = 4
    """react, langchain: how often an unusable answer is asked for again (5 attempts)."""
    langchain_style: LangChainStyle = "react"
    """langchain: a text ReAct agent (``react``) or a tool-calling loop (``tools``)."""
    long_prompt: LongPrompt = "retry"
    """react: when its prompt is too long for the model, ``retry`` once with only the last
    step, telling the model older steps were dropped; ``stop`` ends its turn there (the
    workspace is scored); ``fail`` ends it and fails the trial unscored, as MLAgentBench's
    run failed. Either way ``ended_by`` is "prompt too long"."""
    answer_parsing: AnswerParsing = "paper"
    """react: ``paper`` reads an answer as MLAgentBench did (every field as written, in
    order; the action's exact name); ``lenient`` also takes any order and case, markdown
    bold, and an action name in quotes or backticks."""
    command: str | None = None
    """command: the external agent's command line."""
    paper_prompt: str | None = None
    """react: a checkout of MLAgentBench whose own prompt texts (instructions, answer
    fields, tool descriptions) the agent uses verbatim; None: this project's wording."""

    def describe(self) -> str:
        """The choices of the LLM agents, for the run header."""
        return (f"history={self.history} system-prompt={'on' if self.system_prompt else 'off'} "
                f"invalid-retries={self.invalid_retries} "
                f"retrieval={'on' if self.retrieval else 'off'} "
                f"tool-calling={'on' if self.tool_calling else 'off'} "
                f"langchain-style={self.langchain_style} long-prompt={self.long_prompt} "
                f"answer-parsing={self.answer_parsing} "
                + (f"prompt=the paper's, from {self.paper_prompt}" if self.paper_prompt else
                   "prompt=pytest-mlab's wording (differs from the paper's: "
                   "--mlab-paper-prompt=CHECKOUT for its own)"))


@dataclass(frozen=True)
class AgentContext:
    """What an agent is built from. It never holds the scorer or private answers."""

    task: str
    llm: str | None
    solution_dir: Path | None = None
    """Set only for agents that declare ``needs_solution`` (the oracle)."""
    options: AgentOptions = field(default_factory=AgentOptions)
    gateway: Gateway | None = None
    """The trial's LLM gateway, for agents that declare ``uses_gateway``."""
    agent_venv: Path | None = None
    """An external agent's own installation, shown read-only in the sandbox."""


class Agent(Protocol):
    """What every agent is. Two optional class attributes are read where present:
    ``requires`` (modules the agent imports when it runs; a trial is skipped while one is
    missing) and ``extra`` (the pytest-mlab extra that installs them, named in the reason)."""

    uses_llm: ClassVar[bool]
    """Whether items are multiplied by ``--llm``."""
    needs_solution: ClassVar[bool]
    """Whether the agent is handed the task's reference solution (only the oracle is)."""

    def __init__(self, context: AgentContext) -> None: ...

    def run(self, env: Environment) -> str:
        """Act in ``env`` and return the final answer."""
        ...
