"""Replacement scorer of MLAgentBench's llama-inference task, which has no eval script.

The submission's inference.py runs in the scoring sandbox up to its first call of
transformers' ``generate``; that call's model and arguments are kept and the script goes
no further. The scorer then sends prompts of its own (the starter's shape: 4 sequences
of 128 tokens, one new token each, after an untimed call with another shape) and times
each call with its own clock; what inference.py prints is never read. Every new token
must be the reference model's greedy choice, up to the rounding of a lower precision.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import numpy as np

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, start_timed_child

SCRIPT = "inference.py"
MODEL_DIR = "decapoda-research/llama-7b-hf"
"""Where the starter loads its model from: the public data holds the weights there."""
BATCH, CONTEXT, NEW_TOKENS = 4, 128, 1
"""The starter's batch size and its fixed context_length and generation_length."""
CHECK_BATCH, CHECK_CONTEXT = 3, 96
TIMED_CALLS = 20
FIRST_TOKEN = 3
"""Prompts avoid the ids below this (padding, begin and end of text)."""
LOGIT_TOLERANCE = 0.5
# float16 or bfloat16 move a 7B model's logits by a few hundredths, which can flip a
# near tie; a token chosen any other way (sampling, a truncated model) is whole logits
# below the best one. So a new token counts as greedy within this of the best logit.
READY_TIMEOUT = 1800.0
CALL_TIMEOUT = 120.0
TOTAL_TIMEOUT = 3300.0
"""Under the overlay's score_timeout, so a slow submission is rejected, not an error."""
CHILD_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
             "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error"}

# The child's part. The driver imports the workspace's train.py and calls one function of
# it; this task has none, so the module it imports is the captured call.
_ADAPTER = f"NEW_TOKENS = {NEW_TOKENS}\n" + r"""
SETUP_FAILURE = "Running inference.py up to its first model.generate call failed"

class _Captured(BaseException):
    "Stops inference.py at its first generate call."

def setup(workspace, script):
    global torch
    import runpy, types
    import torch
    from transformers.generation.utils import GenerationMixin
    real, seen = GenerationMixin.generate, {}

    def capture(self, *args, **kwargs):
        seen.update(model=self, args=args, kwargs=kwargs)
        raise _Captured()

    GenerationMixin.generate = capture
    sys.path.insert(0, workspace)
    sys.argv = [os.path.join(workspace, script)]
    try:
        runpy.run_path(os.path.join(workspace, script), run_name="__main__")
    except _Captured:
        pass
    finally:
        GenerationMixin.generate = real
    if "model" not in seen:
        raise RuntimeError(script + " ended without calling model.generate")
    args = seen["args"]
    if args and torch.is_tensor(args[0]):
        args = args[1:]

    def generate(ids):
        # The captured call's arguments, with the scorer's prompts in place of its batch
        # and one new token asked for (the starter's fixed generation_length).
        kwargs = {key: value for key, value in seen["kwargs"].items() if key != "max_length"}
        kwargs.update(input_ids=ids, max_new_tokens=NEW_TOKENS)
        if "attention_mask" in kwargs:
            kwargs["attention_mask"] = torch.ones_like(ids)
        return seen["model"].generate(*args, **kwargs)

    stand_in = types.ModuleType("train")
    stand_in.generate = generate
    sys.modules["train"] = stand_in
    return seen

def call(fn, inputs, seen):
    ids = torch.from_numpy(inputs["input_ids"]).to(seen["model"].device)
    with torch.no_grad():
        out = fn(ids)
    out = getattr(out, "sequences", out)
    return out.detach().cpu().numpy()
"""
PROGRAM = ChildProgram(
    function="generate", adapter=_ADAPTER, args=(SCRIPT,), env=CHILD_ENV,
    loading="running inference.py up to its first model.generate call",
    between_calls="waiting for the next prompts",
)


def _vocabulary(weights: Path) -> int:
    size = json.loads((weights / "config.json").read_text(encoding="utf-8"))["vocab_size"]
    return int(size)


def _prompts(rng: np.random.Generator, batch: int, length: int, vocab: int) -> np.ndarray:
    return rng.integers(FIRST_TOKEN, vocab, (batch, length), dtype=np.int64)


def _reference(weights: Path) -> Any:
    """The starter's model, in float32 (as the starter loads it), on a GPU if there is one."""
    import torch
    from transformers import AutoModelForCausalLM

    model: Any = AutoModelForCausalLM.from_pretrained(weights, torch_dtype=torch.float32)
    if torch.cuda.is_available():
        model.cuda()
    model.train(False)
    return model


def _check(model: Any, prompts: np.ndarray, out: np.ndarray, vocab: int) -> None:
    """Raise InvalidSubmission unless ``out`` is the prompts and then greedy tokens."""
    import torch

    want = (prompts.shape[0], prompts.shape[1] + NEW_TOKENS)
    if out.shape != want:
        raise InvalidSubmission(f"generate returned shape {out.shape}, expected {want}.")
    if not np.issubdtype(out.dtype, np.integer):
        raise InvalidSubmission(f"generate returned {out.dtype} values, not token ids.")
    if not np.array_equal(out[:, : prompts.shape[1]], prompts):
        raise InvalidSubmission("generate's output does not start with the prompts.")
    new = out[:, prompts.shape[1]:].astype(np.int64)
    if new.min() < 0 or new.max() >= vocab:
        raise InvalidSubmission(f"generate returned token ids outside 0..{vocab - 1}.")
    with torch.inference_mode():
        tokens = torch.from_numpy(prompts).to(model.device)
        logits = model(input_ids=tokens).logits[:, -1].double().cpu()
    chosen = logits.gather(-1, torch.from_numpy(new))[:, 0]
    shortfall = logits.max(dim=-1).values - chosen
    worst = int(shortfall.argmax())
    if float(shortfall[worst]) > LOGIT_TOLERANCE:
        raise InvalidSubmission(
            f"generate's new token is not the greedy one (prompt {worst}: its logit is "
            f"{float(shortfall[worst]):.3g} below the best, more than {LOGIT_TOLERANCE}).")


def score(submission: Path, private: Path, runner: Runner) -> float:
    """New tokens per second: the batch's new tokens over the median harness-timed call."""
    weights = private.parent / "public" / MODEL_DIR
    vocab = _vocabulary(weights)
    rng = np.random.default_rng()
    calls: list[tuple[np.ndarray, np.ndarray]] = []
    seconds: list[float] = []
    with start_timed_child(submission, runner, PROGRAM, TOTAL_TIMEOUT) as child:
        child.wait_until_ready(READY_TIMEOUT)
        check = _prompts(rng, CHECK_BATCH, CHECK_CONTEXT, vocab)
        calls.append((check, child.call({"input_ids": check}, "check", CALL_TIMEOUT)[1]))
        for k in range(TIMED_CALLS):
            prompts = _prompts(rng, BATCH, CONTEXT, vocab)
            elapsed, out = child.call({"input_ids": prompts}, f"call{k}", CALL_TIMEOUT)
            calls.append((prompts, out))
            seconds.append(elapsed)
    # After the child has gone: on one GPU both models may not fit at once.
    model = _reference(weights)
    for prompts, out in calls:
        _check(model, prompts, out, vocab)
    return BATCH * NEW_TOKENS / statistics.median(seconds)
