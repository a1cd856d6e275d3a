"""pip's package sources as uv's options: what setup and the original tasks' environments
install from when uv does the installing."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.core.pip_sources import pip_sources


def _python_whose_pip_says(tmp_path: Path, config: str) -> str:
    """A stand-in interpreter whose ``-m pip config list`` prints ``config``."""
    (tmp_path / "config.txt").write_text(config)
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\ncat {tmp_path / 'config.txt'}\n")
    fake.chmod(0o755)
    return str(fake)


def test_indexes_wheel_folders_and_constraints_become_uv_options(tmp_path: Path) -> None:
    mirror = tmp_path / "simple"
    mirror.mkdir()
    python = _python_whose_pip_says(tmp_path, (
        "global.cert='/etc/ssl/certs/ca-certificates.crt'\n"
        "global.index-url='https://mirror.example/simple'\n"
        f"global.extra-index-url='file://{mirror} file:///nonexistent/simple'\n"
        ":env:.find-links='/opt/wheels'\n"
        "global.find-links='/opt/wheels'\n"
        "global.constraint='/etc/pip-constraints.txt'\n"))
    assert pip_sources(python) == [
        "--index-url", "https://mirror.example/simple",
        "--extra-index-url", f"file://{mirror}",  # the missing local index is left out
        "--find-links", "/opt/wheels",  # said twice in a row, given once
        "--constraint", "/etc/pip-constraints.txt",
        "--index-strategy", "unsafe-best-match",
    ]


def test_no_configuration_is_no_option(tmp_path: Path) -> None:
    assert pip_sources(_python_whose_pip_says(tmp_path, "")) == []
