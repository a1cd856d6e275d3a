"""CLRS's replacement scorer (tasks/mlagentbench/scorers/clrs.py): the original eval.py's
get_score in the scoring sandbox, where the submission's pickles load as data only.

The eval.py here is these tests' own, shaped as the original's: it imports a starter
module from ../env, unpickles the submission's checkpoints, and reads the test split from
/tmp/CLRS30/CLRS30_v1.0.0 (a folder mounted as the task's mounted_data would be).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_mlab.core.errors import InvalidSubmission, ScorerError
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.spec import SandboxSpec
from pytest_mlab.taskkit import original

pytestmark = pytest.mark.slow
OVERLAY = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench" / "CLRS.toml"
DATA = "/tmp/CLRS30/CLRS30_v1.0.0"
EVAL = """\
import importlib.util
import os
import pickle
import subprocess
import sys
import sys

sys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), "../env")))
from scoring_rule import closeness


def get_score(submission_folder):
    folder = os.path.join(submission_folder, "checkpoints")
    params = pickle.load(open(os.path.join(folder, "model_params.pkl"), "rb"))
    with open(os.path.join(folder, "best.pkl"), "rb") as f:
        best = pickle.load(f)
    with open("/tmp/CLRS30/CLRS30_v1.0.0/target.txt") as f:
        target = float(f.read())
    return closeness(float(best["params"]["w"].sum()) * params["scale"], target)
"""
RULE = "def closeness(value, target):\n    return 1.0 / (1.0 + abs(value - target))\n"
TARGET = 3.0


class RunsCode:
    """A pickle that runs a command when it is loaded."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.system, (self.command,)


def _honest_checkpoint() -> dict[str, Any]:
    # The kinds the starter's checkpoints hold: arrays in nested dicts, tuples of state.
    state = (np.zeros(2, np.float32), OrderedDict(count=np.int32(3)), {1, 2}, complex(1, 2))
    return {"params": {"w": np.full(4, 1.5, np.float32)}, "opt_state": state}


def _submission(folder: Path, best: Any, params: Any) -> None:
    (folder / "checkpoints").mkdir(parents=True)
    best_bytes = best if isinstance(best, bytes) else pickle.dumps(best)
    (folder / "checkpoints" / "best.pkl").write_bytes(best_bytes)
    (folder / "checkpoints" / "model_params.pkl").write_bytes(pickle.dumps(params))
    # The agent's own version of the starter module, and a train.py with a side effect:
    # neither may be imported by the scorer.
    (folder / "scoring_rule.py").write_text("def closeness(value, target):\n    return 99.0\n")
    (folder / "train.py").write_text("open('imported.txt', 'w').write('yes')\n")


@pytest.fixture
def score(tmp_path: Path) -> Iterator[Callable[..., float]]:
    """Score a submission of the given checkpoints with the real CLRS overlay and scorer,
    in a bwrap sandbox that shows the data folder at DATA (unless ``mounted`` is False),
    without the checkpoint file ``drop`` if one is named, with ``evaluate`` as eval.py."""
    private = tmp_path / "private"
    (private / "scripts").mkdir(parents=True)
    (private / "env").mkdir()
    (private / "env" / "scoring_rule.py").write_text(RULE)
    data = tmp_path / "data"
    data.mkdir()
    (data / "target.txt").write_text(str(TARGET))
    sandboxes: list[LocalSandbox] = []

    def run(best: Any, params: Any, *, mounted: bool = True, drop: str = "",
            evaluate: str = EVAL) -> float:
        (private / "scripts" / "eval.py").write_text(evaluate)
        submission = tmp_path / f"submission{len(sandboxes)}"
        _submission(submission, best, params)
        if drop:
            (submission / "checkpoints" / drop).unlink()
        mounts = ((str(data), DATA),) if mounted else ()
        sandboxes.append(LocalSandbox(SandboxSpec(submission, isolation="bwrap", mounts=mounts)))
        return original.score(OVERLAY, submission, private, sandboxes[-1])

    yield run
    for sandbox in sandboxes:
        sandbox.close()


def test_the_original_get_score_runs_on_the_data_and_the_originals_modules(
    score: Callable[..., float], tmp_path: Path,
) -> None:
    value = score(_honest_checkpoint(), {"scale": 0.5, "factory": ("triplet_gmpnn", True, 8)})
    # 4 x 1.5 x 0.5 = 3.0, the target: the original rule's best, not the agent's 99.
    assert value == pytest.approx(1.0)
    assert not (tmp_path / "submission0" / "imported.txt").exists()
    off = score(_honest_checkpoint(), {"scale": 1.0})
    assert off == pytest.approx(1.0 / (1.0 + abs(6.0 - TARGET)))


# Made in a process of its own: JAX starts threads, which later forks of a test worker
# would inherit.
JAX_CHECKPOINT = """
import pickle, sys
import haiku as hk, jax, optax
net = hk.transform(lambda x: hk.nets.MLP([8, 4])(x))
params = net.init(jax.random.PRNGKey(0), jax.numpy.ones((2, 3)))
chain = optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(), optax.scale(-1e-3))
saved = jax.device_get if sys.argv[1] == "numpy" else (lambda tree: tree)
best = {"params": saved({"w": jax.numpy.full(4, 1.5)}), "opt_state": saved(chain.init(params)),
        "net": saved(params)}
sys.stdout.buffer.write(pickle.dumps(best))
"""


@pytest.mark.parametrize("kind", ["jax", "numpy"])
def test_the_starters_checkpoints_load_jax_arrays_haiku_parameters_and_optax_state(
    score: Callable[..., float], kind: str,
) -> None:
    """As the starter's BaselineModel saves them: its optimizer (clipping, Adam, a scale)
    over haiku parameters, pickled as JAX arrays or, through jax.device_get, numpy ones."""
    for module in ("jax", "haiku", "optax"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}: pip install -e '.[test]'")
    made = subprocess.run([sys.executable, "-c", JAX_CHECKPOINT, kind], capture_output=True,
                          check=True, timeout=300)
    assert score(made.stdout, {"scale": 0.5}) == pytest.approx(1.0)


@pytest.mark.parametrize(("where", "named"), [("best", "posix.system"),
                                              ("params", "posix.system")])
def test_a_checkpoint_that_names_code_is_invalid_and_the_code_never_runs(
    score: Callable[..., float], tmp_path: Path, where: str, named: str,
) -> None:
    hostile = RunsCode("touch ran.txt")
    best = {"params": {"w": hostile}} if where == "best" else _honest_checkpoint()
    params = {"scale": hostile} if where == "params" else {"scale": 0.5}
    with pytest.raises(InvalidSubmission, match=f"names {named}, which the scorer does not "
                                                "load"):
        score(best, params)
    assert not (tmp_path / "submission0" / "ran.txt").exists()


def test_a_submission_without_its_checkpoints_is_invalid(
    score: Callable[..., float],
) -> None:
    with pytest.raises(InvalidSubmission, match="FileNotFoundError"):
        score(_honest_checkpoint(), {"scale": 0.5}, drop="model_params.pkl")


def test_data_the_eval_cannot_read_is_the_harnesss_error_not_the_submissions(
    score: Callable[..., float],
) -> None:
    with pytest.raises(ScorerError, match="could not read its own files"):
        score(_honest_checkpoint(), {"scale": 0.5}, mounted=False)


def test_an_eval_that_cannot_load_is_the_harnesss_error_not_the_submissions(
    score: Callable[..., float],
) -> None:
    with pytest.raises(ScorerError, match=r"eval\.py did not load.*no_such_library"):
        score(_honest_checkpoint(), {"scale": 0.5}, evaluate="import no_such_library\n" + EVAL)
