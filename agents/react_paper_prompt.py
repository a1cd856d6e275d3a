"""The research agent's instructions in the paper's own words, read at run time from a
checkout of MLAgentBench that the user has (``--mlab-paper-prompt=CHECKOUT``): nothing of
its text is in this project.

Read from the checkout's source, never imported (its modules import its LLM clients):

- ``MLAgentBench/agents/agent_research.py``: the ``initial_prompt`` template, the
  ``format_prompt_dict`` of the answer's fields, and the text ``run()`` adds before the
  first step;
- ``MLAgentBench/agents/agent.py``: the f-strings that lay out one tool (its description,
  then a usage block) and the list of tools, and the separator of a tool's arguments;
- ``MLAgentBench/low_level_actions.py`` and ``high_level_actions.py``: each action's
  ``ActionInfo`` (description, usage, return value).

They are put together as the original's ``Agent.construct_tools_prompt`` and
``initial_prompt.format`` do, for the actions this agent shows (in its order). A checkout
whose files do not hold these is one sentence naming the file and what is missing.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .react_format import FIELDS

PACKAGE = Path("MLAgentBench")


class PaperPromptError(Exception):
    """The checkout cannot give the paper's prompt: one sentence naming what it lacks."""


@dataclass(frozen=True)
class Template:
    """An f-string of the checkout: its literal parts and the names it fills in."""

    parts: tuple[str | tuple[str, ...], ...]
    """A literal, or the dotted name of a value (``tool.description``)."""

    def fill(self, values: Mapping[str, Any]) -> str:
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = values[part[0]]
            for attribute in part[1:]:
                value = value[attribute] if isinstance(value, Mapping) else getattr(
                    value, attribute)
            out.append(str(value))
        return "".join(out)


def _template(node: ast.expr, where: str) -> Template:
    """Only literals and plain names (``k``, ``tool.usage``): nothing of it is run."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Template((node.value,))
    if not isinstance(node, ast.JoinedStr):
        raise PaperPromptError(f"{where} is not an f-string")
    parts: list[str | tuple[str, ...]] = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value)
            continue
        inner = value.value if isinstance(value, ast.FormattedValue) else None
        dotted: list[str] = []
        while isinstance(inner, ast.Attribute):
            dotted.insert(0, inner.attr)
            inner = inner.value
        if not isinstance(inner, ast.Name) or (isinstance(value, ast.FormattedValue) and (
                value.format_spec is not None or value.conversion != -1)):
            raise PaperPromptError(f"{where} fills in more than names")
        parts.append((inner.id, *dotted))
    return Template(tuple(parts))


def _tree(root: Path, name: str) -> ast.Module:
    path = root / PACKAGE / name
    try:
        return ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, ValueError) as exc:
        raise PaperPromptError(f"{path} cannot be read as Python ({exc}); give "
                               "--mlab-paper-prompt a checkout of MLAgentBench") from None


def _assigned(module: ast.Module, name: str, where: str) -> Any:
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                break
    raise PaperPromptError(f"{where} has no literal {name}")


def _function(module: ast.Module, name: str, where: str) -> ast.FunctionDef:
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise PaperPromptError(f"{where} has no function {name}")


@dataclass(frozen=True)
class ActionText:
    description: str
    usage: dict[str, str]
    return_value: str


def _actions(root: Path) -> dict[str, ActionText]:
    found: dict[str, ActionText] = {}
    for name in ("low_level_actions.py", "high_level_actions.py"):
        for node in ast.walk(_tree(root, name)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "ActionInfo"):
                continue
            words: dict[str, Any] = {}
            for keyword in node.keywords:
                try:
                    words[str(keyword.arg)] = ast.literal_eval(keyword.value)
                except ValueError:
                    continue  # the function it runs, not text
            if {"name", "description", "usage", "return_value"} <= words.keys():
                found[words["name"]] = ActionText(words["description"], dict(words["usage"]),
                                                  words["return_value"])
    return found


@dataclass(frozen=True)
class PaperPrompt:
    initial_prompt: str
    fields: dict[str, str]
    start: str
    """What run() adds after the instructions before the first step."""
    tool: Template
    usage_entry: Template
    usage_separator: str
    tool_header: Template
    actions: dict[str, ActionText]

    @classmethod
    def from_checkout(cls, root: Path) -> PaperPrompt:
        research = _tree(root, "agents/agent_research.py")
        where = str(root / PACKAGE / "agents/agent_research.py")
        initial, fields = (_assigned(research, "initial_prompt", where),
                           _assigned(research, "format_prompt_dict", where))
        start = next((node.value.value for node in ast.walk(_function(research, "run", where))
                      if isinstance(node, ast.AugAssign) and isinstance(node.value, ast.Constant)
                      and isinstance(node.value.value, str)), None)
        if start is None:
            raise PaperPromptError(f"{where}: run() adds no text before the first step")
        agent = _tree(root, "agents/agent.py")
        there = str(root / PACKAGE / "agents/agent.py")
        one = _function(agent, "construct_tool_prompt", there)
        strings = [n for n in ast.walk(one) if isinstance(n, ast.JoinedStr)]
        joins = [n for n in ast.walk(one) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "join"
                 and isinstance(n.func.value, ast.Constant)]
        header = [n for n in ast.walk(_function(agent, "construct_tools_prompt", there))
                  if isinstance(n, ast.JoinedStr)]
        if len(strings) < 2 or not joins or not header:
            raise PaperPromptError(f"{there}: the tools' layout is not where the original "
                                   "has it (construct_tool_prompt, construct_tools_prompt)")
        separator = joins[0].func.value.value  # type: ignore[attr-defined]
        return cls(
            initial_prompt=initial, fields=fields, start=start,
            tool=_template(max(strings, key=lambda s: len(ast.unparse(s))), there),
            usage_entry=_template(min(strings, key=lambda s: len(ast.unparse(s))), there),
            usage_separator=str(separator), tool_header=_template(header[0], there),
            actions=_actions(root))

    def tools_prompt(self, names: Sequence[str]) -> str:
        """The tools as the original lists them: each header, then its block stripped of
        the f-string's outer white space, then a blank line."""
        missing = [name for name in names if name not in self.actions]
        if missing:
            raise PaperPromptError(f"the checkout's actions lack {', '.join(missing)}")
        out = []
        for name in names:
            action = self.actions[name]
            usage = self.usage_separator.join(
                self.usage_entry.fill({"k": k, "v": v}) for k, v in action.usage.items())
            block = self.tool.fill({"tool": action, "tool_name": name, "usage": usage})
            out.append(self.tool_header.fill({"tool_name": name}) + block.strip() + "\n\n")
        return "".join(out)

    def instructions(self, research_problem: str, names: Sequence[str]) -> str:
        """The original's initial prompt, filled in as its agent fills it."""
        missing = [name for name in FIELDS if name not in self.fields]
        if missing:
            raise PaperPromptError(f"the checkout's format_prompt_dict lacks {missing[0]}")
        return self.initial_prompt.format(
            tools_prompt=self.tools_prompt(names), tool_names=list(names),
            task_description=research_problem,
            format_prompt="\n".join(f"{name}: {self.fields[name]}" for name in FIELDS))
