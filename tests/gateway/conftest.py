"""The sandboxes the gateway's trials are tried in: local (bubblewrap) and docker."""

from __future__ import annotations

import pytest
from docker_engine import require_docker_engine


@pytest.fixture(params=["local", "docker"])
def sandbox_args(request: pytest.FixtureRequest) -> list[str]:
    """The options that put a pytester run's trials in that sandbox."""
    if request.param == "local":
        return []
    require_docker_engine()
    return ["--mlab-sandbox=docker"]
