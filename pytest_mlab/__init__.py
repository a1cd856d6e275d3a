"""pytest-mlab: can a language-model agent do ML experimentation?

Only the names a task's ``prepare.py`` and ``score.py`` need are imported here,
so that importing them stays cheap and never pulls in pytest.
"""

from __future__ import annotations

from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable

__all__ = ["InvalidSubmission", "TaskUnavailable", "__version__"]
__version__ = "0.1.0"
