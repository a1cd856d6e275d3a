"""An original task's own environment: its pins win over the harness's libraries, the
harness's helpers stay importable, it is made once per machine, and a failure names the
package and leaves nothing half made."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

import pytest

from pytest_mlab.core.overlay import Overlay, read_overlay
from pytest_mlab.env.task_env import (
    RECORD,
    EnvPlan,
    env_dir,
    env_python,
    make_task_env,
    plan_env,
    read_record,
)
from pytest_mlab.env.task_requirements import (
    TaskEnvError,
    harness_constraints,
    task_requirements,
)

REPO = Path(__file__).parent.parent
OVERLAYS = REPO / "tasks" / "mlagentbench"
ORIGINALS = REPO.parent / "shared" / "mlagentbench" / "mlagentbench-5d71205-benchmarks.tar.gz"


def _overlay(**keys: object) -> Overlay:
    base = read_overlay(OVERLAYS / "vectorization.toml").model_dump()
    return Overlay.model_validate({**base, **keys})


def _in(env: Path, code: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env_python(env)), "-c", code], capture_output=True, text=True,
                          cwd=cwd, check=False)


def test_the_install_command_takes_the_versions_table_where_it_pins_nothing() -> None:
    overlay = _overlay(install="pip install torch 'scikit-learn' pandas>=2",
                       versions={"scikit-learn": "<1.6", "numpy": "<2"})
    assert task_requirements(overlay) == ("numpy<2", "pandas>=2", "scikit-learn<1.6", "torch")
    # Without a command, the modules are the distributions.
    assert task_requirements(_overlay(install="")) == ("numpy<2.4",)


def test_a_word_of_the_install_command_that_is_no_requirement_is_one_sentence() -> None:
    with pytest.raises(TaskEnvError, match=r"overlay vectorization: key 'install': '>=2' is "
                                           r"not a pip requirement"):
        task_requirements(_overlay(install="pip install numpy '>=2'"))


def test_only_torch_and_its_companions_are_held_at_the_harness_version() -> None:
    constraints = harness_constraints(("numpy<2.4", "pandas"))
    assert constraints == (f"torch=={metadata.version('torch')}",)  # no other build
    assert harness_constraints(("torch<2.6",)) == ()  # the task's own pin wins


def test_the_environment_key_follows_its_contents() -> None:
    plan = EnvPlan("t", ("numpy<2.4",), ("pandas==3",), "uv")
    assert plan.key() == EnvPlan("t", ("numpy<2.4",), ("pandas==3",), "uv").key()
    assert plan.key() != EnvPlan("t", ("numpy<2.3",), ("pandas==3",), "uv").key()
    assert plan.key() != EnvPlan("t", ("numpy<2.4",), ("pandas==2",), "uv").key()
    assert plan.key() != EnvPlan("t", ("numpy<2.4",), ("pandas==3",), "pip").key()


@pytest.fixture(scope="module")
def vectorization_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    plan = plan_env(read_overlay(OVERLAYS / "vectorization.toml"))
    return make_task_env(tmp_path_factory.mktemp("cache"), plan)


def test_the_task_pin_wins_inside_while_the_harness_keeps_its_own(
    vectorization_env: Path,
) -> None:
    import numpy

    assert tuple(int(p) for p in numpy.__version__.split(".")[:2]) >= (2, 4)
    inside = _in(vectorization_env, "import numpy, pandas, pytest_mlab.taskkit.original; "
                                    "print(numpy.__version__, numpy.__file__)")
    assert inside.returncode == 0, inside.stderr
    version, location = inside.stdout.split()
    assert tuple(int(p) for p in version.split(".")[:2]) < (2, 4)
    assert Path(location).is_relative_to(vectorization_env)


def test_a_made_environment_is_taken_again_and_an_unfinished_one_made_again(
    vectorization_env: Path,
) -> None:
    plan = plan_env(read_overlay(OVERLAYS / "vectorization.toml"))
    cache = vectorization_env.parent.parent
    record = (vectorization_env / RECORD).stat().st_mtime_ns
    assert make_task_env(cache, plan) == vectorization_env
    assert (vectorization_env / RECORD).stat().st_mtime_ns == record
    (vectorization_env / RECORD).unlink()  # as if the maker had been killed
    assert make_task_env(cache, plan) == vectorization_env
    assert read_record(vectorization_env) is not None
    assert _in(vectorization_env, "import numpy").returncode == 0


def test_the_original_starter_runs_in_its_environment_and_not_in_the_harness(
    vectorization_env: Path, tmp_path: Path,
) -> None:
    checkout = os.environ.get("MLAB_MLAGENTBENCH")
    member = "MLAgentBench/MLAgentBench/benchmarks/vectorization/env/train.py"
    if checkout:
        starter = Path(checkout) / "MLAgentBench" / "benchmarks" / "vectorization" / "env"
    elif ORIGINALS.is_file():
        with tarfile.open(ORIGINALS) as archive:
            archive.extract(member, tmp_path, filter="data")
        starter = (tmp_path / member).parent
    else:
        pytest.skip("no MLAgentBench checkout: set MLAB_MLAGENTBENCH to one, or put "
                    f"{ORIGINALS.name} in {ORIGINALS.parent}")
    work = tmp_path / "work"
    work.mkdir()
    code = (starter / "train.py").read_text()
    harness = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True,
                             text=True, timeout=300, check=False)
    assert harness.returncode != 0 and "setting an array element" in harness.stderr
    inside = subprocess.run([str(env_python(vectorization_env)), "-c", code], cwd=work,
                            capture_output=True, text=True, timeout=300, check=False)
    assert inside.returncode == 0, inside.stderr[-2000:]
    assert (work / "submission.csv").read_text().strip()


def test_a_package_that_cannot_be_installed_is_named_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    plan = plan_env(_overlay(install="pip install mlab-no-such-package-3b1f", versions={}))
    with pytest.raises(TaskEnvError, match="installing mlab-no-such-package-3b1f for "
                                           "vectorization failed") as failure:
        make_task_env(tmp_path, plan)
    _sentence, installer_said = str(failure.value).split("\n", 1)
    assert "mlab-no-such-package-3b1f" in installer_said
    assert not env_dir(tmp_path, plan).exists()


@pytest.mark.slow
def test_pip_makes_the_same_environment_where_uv_is_absent(tmp_path: Path) -> None:
    uv_plan = plan_env(read_overlay(OVERLAYS / "vectorization.toml"))
    plan = EnvPlan(uv_plan.task, uv_plan.requirements, uv_plan.constraints, "pip")
    env = make_task_env(tmp_path, plan)
    inside = _in(env, "import numpy, pytest_mlab.taskkit.original; print(numpy.__version__)")
    assert inside.returncode == 0, inside.stderr
    assert tuple(int(p) for p in inside.stdout.split(".")[:2]) < (2, 4)
    record = read_record(env)
    assert record is not None
    assert (record["installer"], record["requirements"]) == ("pip", ["numpy<2.4"])


@pytest.mark.slow
def test_a_pin_the_harness_versions_cannot_meet_is_resolved_with_torch_held(
    tmp_path: Path,
) -> None:
    # identify-contrails pins numpy<2; the harness's pandas needs numpy 2.
    plan = plan_env(read_overlay(OVERLAYS / "identify-contrails.toml"))
    assert "numpy<2" in plan.requirements
    env = make_task_env(tmp_path, plan)
    record = read_record(env)
    assert record is not None and record["held"] == [f"torch=={metadata.version('torch')}"]
    inside = _in(env, "import numpy, pandas, torch; print(numpy.__version__, torch.__version__)")
    assert inside.returncode == 0, inside.stderr
    numpy_version, torch_version = inside.stdout.split()
    assert int(numpy_version.split(".")[0]) < 2
    assert torch_version == metadata.version("torch")
