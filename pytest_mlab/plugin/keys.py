"""Stash keys: all session and item state lives here, never on config attributes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    # Named in the string subscripts below, so that importing this module stays cheap.
    from pathlib import Path

    from pytest_mlab.core.results import TrialResult  # noqa: F401
    from pytest_mlab.env.agent import Agent
    from pytest_mlab.env.control import TrialControl  # noqa: F401
    from pytest_mlab.plugin.collection.trial_ids import NamedTrial
    from pytest_mlab.plugin.config.settings import Settings  # noqa: F401
    from pytest_mlab.trial.spec import TrialSpec  # noqa: F401

SETTINGS_KEY = pytest.StashKey["Settings"]()
AGENTS_KEY = pytest.StashKey[dict[str, type["Agent"]]]()
TRIAL_KEY = pytest.StashKey["TrialSpec"]()
RESULT_KEY = pytest.StashKey["TrialResult"]()
CONTROL_KEY = pytest.StashKey["TrialControl"]()
"""Lets the timeout stop a running trial."""
NAMED_KEY = pytest.StashKey[dict["Path", set["NamedTrial"]]]()
"""Trials that node ids name (given on the command line, or remembered for --lf)."""
