"""How many output tokens one LLM call may be given within its trial's budgets.

A budget checked only before a call lets a single call spend without bound (an agent that
asked for ten million output tokens with two thousand left was given them). So each call's
output is bounded by what its prompt leaves of the token budget and, for a model litellm
prices, of the cost budget, and a call whose prompt leaves no room is refused unsent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pytest_mlab.llm.errors import BudgetExceeded
from pytest_mlab.llm.usage import Usage

TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")
"""The request fields that bound a call's output tokens, in the names litellm takes."""


@dataclass(frozen=True)
class ModelFacts:
    """What litellm's table knows of a model; None where it does not know."""

    input_price: float | None = None
    """Dollars per prompt token."""
    output_price: float | None = None
    """Dollars per completion token."""
    max_output: int | None = None
    """The most output tokens the model gives in one reply."""


def model_facts(litellm: ModuleType, model: str) -> ModelFacts:
    """The model's prices and longest reply, where litellm's table has them."""
    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm knows only the models in its table
        return ModelFacts()
    return ModelFacts(info.get("input_cost_per_token"), info.get("output_cost_per_token"),
                      info.get("max_output_tokens"))


def prompt_tokens(litellm: ModuleType, request: dict[str, Any]) -> int:
    """About how many tokens the request's messages and tools are, counted as their JSON
    text with the one tokenizer litellm ships: never a model's own tokenizer (some would be
    downloaded) nor its message walk (which fetches the URLs of images)."""
    text = json.dumps([request["messages"], request.get("tools")], default=str)
    try:
        return int(litellm.token_counter(model="gpt-4", text=text))
    except Exception:  # no tokenizer to hand: about four characters a token
        return len(text) // 4


def output_room(spent: Usage, prompt: int, max_tokens: int | None, max_cost: float | None,
                facts: ModelFacts) -> int | None:
    """The output tokens a call whose prompt is about ``prompt`` tokens may be given within
    the trial's budgets, at worst; None where no budget bounds them (no budget, or a cost
    budget for a model without a price). Raises BudgetExceeded where none fits."""
    rooms: list[int] = []
    if max_tokens is not None:
        left = max(max_tokens - spent.tokens_in - spent.tokens_out, 0)
        if prompt >= left:
            raise BudgetExceeded(f"a prompt of about {prompt} tokens leaves no room for "
                                 f"output in the {left} tokens left of the token budget "
                                 f"of {max_tokens}")
        rooms.append(left - prompt)
    if max_cost is not None and facts.output_price:
        left_cost = max(max_cost - spent.cost, 0.0)
        free = left_cost - prompt * (facts.input_price or 0.0)
        room = int(free / facts.output_price) if free > 0 else 0
        if room < 1:
            raise BudgetExceeded(f"a prompt of about {prompt} tokens leaves no room for "
                                 f"output in the ${left_cost:.6f} left of the cost budget "
                                 f"of ${max_cost:g}")
        rooms.append(room)
    return min(rooms) if rooms else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def capped(request: dict[str, Any], room: int, max_output: int | None) -> dict[str, Any]:
    """``request`` with its output bounded by ``room`` tokens over all its choices (``n``
    multiplies them): each token field it has is lowered to the room, and ``max_tokens``
    is set where it has none, unless the model's own longest reply fits (a provider may
    refuse a bound past that). Raises BudgetExceeded where the room does not hold one
    token per choice."""
    choices = max(_count(request.get("n")) or 1, 1)
    each = room // choices
    if each < 1:
        raise BudgetExceeded(f"{choices} choices do not fit in the {room} output tokens the "
                             "budget has left")
    sent = dict(request)
    asked = [name for name in TOKEN_FIELDS if request.get(name) is not None]
    for name in asked:
        value = _count(request[name])
        sent[name] = each if value is None else min(value, each)
    if not asked and (max_output is None or max_output > each):
        sent["max_tokens"] = each
    return sent
