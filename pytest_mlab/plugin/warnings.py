"""The plugin's warning category, so users can filter it in one line."""

from __future__ import annotations

import pytest


class MlabWarning(pytest.PytestWarning):
    """Something about a task or run deserves attention but does not stop it."""
