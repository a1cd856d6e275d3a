"""Replacement scorer of MLAgentBench's CLRS task: the original eval.py's ``get_score``, run
in the scoring sandbox, with pickle made to load data and nothing else.

The original eval.py unpickles the submission's ``checkpoints/spec_list.pkl``,
``model_params.pkl`` and ``best.pkl`` (the latter through the starter's
``BaselineModel.restore_model``). A pickle can name any function to call, so as it stands
a submission could run its own code in the scorer and set its score. Here every load
goes through an unpickler that builds only what the starter's checkpoints hold: numpy
and JAX arrays, numpy dtypes and scalars, optax's state tuples, and Python's own
containers. A file that names anything else makes the submission invalid, and says
what it named.

eval.py, and the starter modules it imports from ``../env``, are the original's (the
prepared private half), copied beside the submission for the child; the submission's
own files are never on the child's module path. The test split is read from
/tmp/CLRS30, where the task's ``mounted_data`` shows CLRS-30 in every sandbox.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

from pytest_mlab.core.errors import InvalidSubmission, ScorerError
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, start_timed_child

EVAL_FOLDER = ".mlab-eval"
"""Inside the submission's copy: the original eval.py in scripts/, the starter's modules
in env/, as eval.py expects them."""
READY_TIMEOUT = 900.0
CALL_TIMEOUT = 3000.0
TOTAL_TIMEOUT = 3300.0
"""Under the overlay's score_timeout, so a slow submission is rejected, not an error."""
CHILD_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}

# The child's part (see timed_child). `train` is a stand-in of its own: the submission's
# train.py is never imported, and its folder leaves the module path before eval.py loads.
_ADAPTER = r"""
import importlib.util, io, pickle, types

SETUP_FAILURE = "Loading the original eval.py failed"
EXACT = {
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("jax._src.array", "_reconstruct_array"), ("_codecs", "encode"),
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
    ("builtins", "complex"), ("builtins", "slice"),
}
STATE_MODULES = ("optax.",)

class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in EXACT:
            return super().find_class(module, name)
        if module.startswith(STATE_MODULES) and "." not in name:
            found = super().find_class(module, name)
            # A named tuple of state: making one calls no code but tuple's own.
            if isinstance(found, type) and issubclass(found, tuple) and hasattr(found, "_fields"):
                return found
        raise pickle.UnpicklingError(
            f"a checkpoint file names {module}.{name}, which the scorer does not load")

def load(file, **options):
    return DataOnly(file, **options).load()

def loads(data, /, **options):
    return DataOnly(io.BytesIO(data), **options).load()

def setup(workspace, eval_folder):
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != workspace]
    pickle.load, pickle.loads, pickle.Unpickler = load, loads, DataOnly
    path = os.path.join(workspace, eval_folder, "scripts", "eval.py")
    spec = importlib.util.spec_from_file_location("mlab_original_eval", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stand_in = types.ModuleType("train")
    stand_in.test_score = test_score
    sys.modules["train"] = stand_in
    return {"eval": module, "workspace": workspace}

def test_score(context):
    try:
        return np.array([float(context["eval"].get_score(context["workspace"])), 0.0])
    except OSError as exc:
        name = exc.filename
        if name is not None and not os.path.abspath(os.fsdecode(name)).startswith(
                context["workspace"] + os.sep):
            return np.array([np.nan, 1.0])  # its own files, not the submission's
        raise

def call(fn, inputs, context):
    return fn(context)
"""
PROGRAM = ChildProgram(
    function="test_score", adapter=_ADAPTER, args=(EVAL_FOLDER,), env=CHILD_ENV,
    loading="loading the original eval.py", between_calls="finishing", max_output_bytes=4096,
)


def _place_eval(submission: Path, private: Path) -> None:
    """The original eval.py and the starter's modules, where eval.py looks for them."""
    folder = submission / EVAL_FOLDER
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    eval_script = private / "scripts" / "eval.py"
    if not eval_script.is_file():
        raise ScorerError(f"the prepared data has no {eval_script}")
    (folder / "scripts").mkdir(parents=True)
    shutil.copyfile(eval_script, folder / "scripts" / "eval.py")
    shutil.copytree(private / "env", folder / "env",
                    ignore=shutil.ignore_patterns("__pycache__"))


def score(submission: Path, private: Path, runner: Runner) -> float:
    """The original get_score of the submission's checkpoints, on the test split."""
    _place_eval(submission, private)
    with start_timed_child(submission, runner, PROGRAM, TOTAL_TIMEOUT) as child:
        try:
            child.wait_until_ready(READY_TIMEOUT)
        except InvalidSubmission as exc:
            # Loading eval.py and the starter's modules reads nothing of the submission.
            raise ScorerError(f"the original eval.py did not load: {exc}") from None
        out = child.call({}, "test", CALL_TIMEOUT)[1]
    if out.shape != (2,):
        raise InvalidSubmission("The original eval.py gave no single score.")
    value, own_files = float(out[0]), bool(out[1])
    if own_files:
        raise ScorerError("the original eval.py could not read its own files (the CLRS-30 "
                          "test split in /tmp/CLRS30, or its starter modules)")
    if not math.isfinite(value):
        raise InvalidSubmission(f"The original eval.py scored the submission {value}.")
    return value
