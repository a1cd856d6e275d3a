"""The source the timed child runs around a task's adapter (see ``timed_child``)."""

from __future__ import annotations

# Runs in the child. The protocol goes over a private copy of stdout and fd 1 is
# pointed at stderr, so prints from train.py cannot be mistaken for protocol lines.
# The adapter's setup runs before train.py is imported, so what it loads (say, a model
# from files checked just before) comes from a state train.py has not touched. The child
# starts isolated (``python -I``: neither its working directory, the submission, nor
# PYTHON* variables or the user's site on its path), and the workspace joins the path
# only after setup (where a task installs its guard), and last, so that no module of
# the workspace stands in for a standard or installed one, nor runs before the guard.
# Between setup and train.py the child waits for the scorer, which takes then what the
# setup left (see child_watch). argv: the watch's token, the function, the environment,
# the adapter's arguments.
DRIVER_HEAD = r"""
import json, os, sys
os.environ.update(json.loads(sys.argv[3]))
proto = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

def say(line):
    proto.write(line + "\n")
    proto.flush()

def brief(exc):
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]

SETUP_FAILURE = "Importing train.py failed"

def setup(workspace, *args):
    return None

def after_call(context):
    return None
"""

DRIVER_LOOP = r"""
workspace, function_name = os.getcwd(), sys.argv[2]
try:
    import numpy as np
    context = setup(workspace, *sys.argv[4:])
except BaseException as exc:
    say("error " + SETUP_FAILURE + " (" + brief(exc) + ")")
    sys.exit(1)
say("set up")
if sys.stdin.readline().strip() != "go":
    sys.exit(1)
if "train" not in sys.modules:
    sys.path.append(workspace)
try:
    import train
except BaseException as exc:
    say("error Importing train.py failed (" + brief(exc) + ")")
    sys.exit(1)
fn = getattr(train, function_name, None)
if not callable(fn):
    say("error The workspace's train.py defines no function " + function_name)
    sys.exit(1)
say("ready")
while True:
    in_path = sys.stdin.readline().strip()
    if not in_path:
        break
    out_path = in_path[: -len(".npz")] + ".out.npy"
    try:
        with np.load(in_path) as data:
            inputs = {key: data[key] for key in data.files}
        result = call(fn, inputs, context)
        np.save(out_path, np.asarray(result), allow_pickle=False)
    except BaseException as exc:
        say("error The call to " + function_name + " failed (" + brief(exc) + ")")
        sys.exit(1)
    problem = after_call(context)
    if problem:
        say("error " + problem)
        sys.exit(1)
    say("done " + out_path)
"""
