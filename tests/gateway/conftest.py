"""The sandboxes the gateway's trials are tried in: local (bubblewrap) and docker."""

from __future__ import annotations

import contextlib

import pytest

# Imported before any pytester run takes its snapshot of sys.modules: a run forgets the
# modules imported during it, and the docker SDK does not survive being imported twice.
with contextlib.suppress(ImportError):
    import docker  # noqa: F401


def _docker_engine() -> bool:
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return False
    return True


@pytest.fixture(params=["local", "docker"])
def sandbox_args(request: pytest.FixtureRequest) -> list[str]:
    """The options that put a pytester run's trials in that sandbox."""
    if request.param == "local":
        return []
    if not _docker_engine():
        pytest.skip("no Docker engine answers: export DOCKER_HOST=$(bash scripts/dockerd.sh start)")
    return ["--mlab-sandbox=docker"]
