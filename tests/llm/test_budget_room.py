"""The room a call is given within its budgets, and the request bounded to it."""

from __future__ import annotations

import pytest

from pytest_mlab.llm.budget import ModelFacts, capped, output_room
from pytest_mlab.llm.errors import BudgetExceeded
from pytest_mlab.llm.usage import Usage

PRICED = ModelFacts(input_price=1e-6, output_price=2e-6, max_output=4096)


def test_the_token_budget_leaves_what_is_left_after_the_prompt() -> None:
    assert output_room(Usage(300, 200), 100, 2000, None, ModelFacts()) == 1400


def test_the_tighter_of_two_budgets_wins() -> None:
    # $0.001 left: 100 prompt tokens cost $0.0001, leaving 450 output tokens.
    assert output_room(Usage(0, 0, 0.009), 100, 2000, 0.01, PRICED) == 450
    assert output_room(Usage(0, 0, 0.0), 100, 300, 0.01, PRICED) == 200


def test_a_cost_budget_bounds_nothing_for_a_model_without_a_price() -> None:
    assert output_room(Usage(0, 0, 5.0), 100, None, 0.01, ModelFacts()) is None


@pytest.mark.parametrize(("spent", "budget", "words"), [
    (Usage(1900, 50), 2000, "in the 50 tokens left of the token budget of 2000"),
    (Usage(2500, 50), 2000, "in the 0 tokens left of the token budget of 2000"),
])
def test_a_prompt_that_leaves_no_room_is_refused_in_one_sentence(
    spent: Usage, budget: int, words: str
) -> None:
    with pytest.raises(BudgetExceeded, match="leaves no room for output") as caught:
        output_room(spent, 100, budget, None, ModelFacts())
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_cost_budget_whose_prompt_costs_all_that_is_left_is_refused() -> None:
    with pytest.raises(BudgetExceeded, match=r"cost budget of \$0.01"):
        output_room(Usage(0, 0, 0.0099), 100, None, 0.01, PRICED)


def test_every_bounding_field_is_lowered_and_a_smaller_ask_kept() -> None:
    sent = capped({"max_tokens": 10_000_000, "max_completion_tokens": 50}, 300, None)
    assert sent == {"max_tokens": 300, "max_completion_tokens": 50}


def test_a_request_that_bounds_nothing_is_given_the_room_unless_the_model_fits_it() -> None:
    assert capped({}, 300, None) == {"max_tokens": 300}
    assert capped({}, 300, 4096) == {"max_tokens": 300}
    assert capped({}, 10_000, 4096) == {}  # a provider may refuse a bound past its longest


def test_choices_share_the_room() -> None:
    assert capped({"n": 3, "max_tokens": 1000}, 300, None)["max_tokens"] == 100
    with pytest.raises(BudgetExceeded, match="4 choices do not fit in the 3 output tokens"):
        capped({"n": 4}, 3, None)
