"""Whether a Docker engine answers, for the tests that need one."""

from __future__ import annotations

import contextlib

import pytest

# Imported before any pytester run takes its snapshot of sys.modules: a run forgets the
# modules imported during it, and the docker SDK does not survive being imported twice.
with contextlib.suppress(ImportError):
    import docker  # noqa: F401

NO_ENGINE = "no Docker engine answers: export DOCKER_HOST=$(bash scripts/dockerd.sh start)"


def docker_engine() -> bool:
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return False
    return True


def require_docker_engine() -> None:
    """Skip the test, with the command that starts an engine, unless one answers."""
    if not docker_engine():
        pytest.skip(NO_ENGINE)
