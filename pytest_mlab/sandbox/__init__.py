"""Where an agent's scripts run. Sandboxes hold no keys and know nothing of pytest."""

from __future__ import annotations

from pytest_mlab.sandbox.base import ExecResult, Sandbox
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.resources import ResourceLimits
from pytest_mlab.sandbox.spec import SandboxSpec

__all__ = ["ExecResult", "LocalSandbox", "ResourceLimits", "Sandbox", "SandboxSpec"]
