"""Time the workspace's generate() with the scorer's own clock and check its tokens.

The agent's code runs in a child process (pytest_mlab.taskkit.timed_child) that only
sees prompt files and writes token files; the parent owns the clock and a reference
model loaded from the private copy of the weights, so nothing the workspace prints,
writes or patches can change the measured time or the verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit import child_guard
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, TimedChild, start_timed_child

if TYPE_CHECKING:
    from transformers import LlamaForCausalLM

MODEL_DIR = "llama"
VOCAB_SIZE = 2048
TIMED_CALLS = 3
BATCH, PROMPT_LEN, NEW_TOKENS = 24, 12, 8
# An untimed first call with other shapes: it warms the child up, and a function
# that only handles the timed shapes fails it.
CHECK_BATCH, CHECK_PROMPT_LEN, CHECK_NEW_TOKENS = 3, 7, 5
# A returned token counts as greedy when its logit is within this of the best one there:
# batching or caching moves float32 logits by about 1e-6, which can flip a near tie;
# deliberate changes (lower precision, sampling) move them far more.
TIE_TOLERANCE = 1e-4
READY_TIMEOUT = 120.0
CALL_TIMEOUT = 120.0
# Stays under the task's score_timeout so a slow submission is rejected, not an infra error.
TOTAL_TIMEOUT = 270.0
# One thread everywhere: on a shared machine several threads per process wait on one
# another and make timings swing by several times.
CHILD_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
}

# The child's part. The model is loaded before train.py is imported, from files checked
# just before; then torch may not be given more threads, child_guard refuses another
# process or ctypes for the rest of the child's life, and the scorer watches the child
# from outside (one_thread) for a thread the setup did not leave, or another process,
# during each call. One input file holds prompt_ids and max_new_tokens.
_ADAPTER = child_guard.source() + r"""
SETUP_FAILURE = "Loading the model failed"

def _one_thread_only(setter):
    def guarded(count):
        if count != 1:
            raise RuntimeError(f"{setter.__name__}({count}) is refused: generate must run "
                               "on one thread")
        setter(count)
    guarded.__name__ = setter.__name__
    return guarded

def setup(workspace, model_dir):
    global torch
    import torch
    torch.set_num_threads(1)
    from transformers import LlamaForCausalLM
    model = LlamaForCausalLM.from_pretrained(os.path.join(workspace, model_dir)).eval()
    torch.set_num_threads = _one_thread_only(torch.set_num_threads)
    torch.set_num_interop_threads = _one_thread_only(torch.set_num_interop_threads)
    install(proto.fileno(), allowed=None, denied=("threadpoolctl", "psutil", "cffi"))
    return model

def call(fn, inputs, model):
    result = fn(model, torch.from_numpy(inputs["prompt_ids"]), int(inputs["max_new_tokens"]))
    if isinstance(result, torch.Tensor):
        result = result.detach().cpu().numpy()
    return result

def after_call(model):
    if torch.get_num_threads() != 1:
        return "generate changed the number of torch threads; it must stay 1"
    return None
"""
PROGRAM = ChildProgram(
    function="generate",
    adapter=_ADAPTER,
    args=(MODEL_DIR,),
    env=CHILD_ENV,
    one_thread=True,
    loading="loading train.py",
    between_calls="waiting for the next prompts",
)


def _reference_model(private: Path) -> LlamaForCausalLM:
    # Imported here, once the child is starting, so both processes load torch at once.
    import torch
    from transformers import LlamaForCausalLM
    from transformers.utils import logging as hf_logging

    torch.set_num_threads(1)
    hf_logging.disable_progress_bar()
    model: LlamaForCausalLM = LlamaForCausalLM.from_pretrained(private / MODEL_DIR).eval()
    return model


def _check(model: LlamaForCausalLM, prompts: np.ndarray, new_tokens: int, out: np.ndarray) -> None:
    """Raise InvalidSubmission unless ``out`` is the prompts followed by greedy tokens."""
    import torch

    batch, prompt_len = prompts.shape
    want = (batch, prompt_len + new_tokens)
    if out.shape != want:
        raise InvalidSubmission(f"generate returned shape {out.shape}, expected {want}.")
    if not np.issubdtype(out.dtype, np.integer):
        raise InvalidSubmission(f"generate returned {out.dtype} values, not integer token ids.")
    out = out.astype(np.int64)
    if not np.array_equal(out[:, :prompt_len], prompts):
        raise InvalidSubmission("generate's output does not start with the prompts.")
    if out.min() < 0 or out.max() >= VOCAB_SIZE:
        raise InvalidSubmission(f"generate returned token ids outside 0..{VOCAB_SIZE - 1}.")
    # One forward pass over the returned sequence gives the logits at every step: each
    # new token must be the best one there (ties within float noise allowed).
    with torch.inference_mode():
        tokens = torch.from_numpy(out)
        logits = model(input_ids=tokens).logits[:, prompt_len - 1 : -1].double()
        chosen = logits.gather(-1, tokens[:, prompt_len:, None]).squeeze(-1)
        shortfall = logits.max(dim=-1).values - chosen
    bad = (shortfall > TIE_TOLERANCE).nonzero()
    if len(bad):
        row, step = (int(v) for v in bad[0])
        raise InvalidSubmission(
            f"generate's tokens differ from greedy decoding (prompt {row}, new token {step}: "
            f"its logit is {float(shortfall[row, step]):.3g} below the best)."
        )


def _timed_generate(
    child: TimedChild, model: LlamaForCausalLM, prompts: np.ndarray, new_tokens: int, name: str
) -> float:
    """One call in the child; the parent-measured seconds, once the tokens are checked."""
    inputs = {"prompt_ids": prompts, "max_new_tokens": new_tokens}
    elapsed, out = child.call(inputs, name, CALL_TIMEOUT)
    _check(model, prompts, new_tokens, out)
    return elapsed


def score(workspace: Path, private: Path, runner: Runner) -> float:
    """Generated tokens per second: the fastest of three parent-timed calls on fresh prompts."""
    rng = np.random.default_rng()
    with start_timed_child(workspace, runner, PROGRAM, TOTAL_TIMEOUT) as child:
        # Loaded while the child loads its own copy.
        model = _reference_model(private)
        child.wait_until_ready(READY_TIMEOUT)
        check = rng.integers(0, VOCAB_SIZE, (CHECK_BATCH, CHECK_PROMPT_LEN), dtype=np.int64)
        _timed_generate(child, model, check, CHECK_NEW_TOKENS, "check")
        times = [
            _timed_generate(
                child,
                model,
                rng.integers(0, VOCAB_SIZE, (BATCH, PROMPT_LEN), dtype=np.int64),
                NEW_TOKENS,
                f"call{i}",
            )
            for i in range(TIMED_CALLS)
        ]
    return BATCH * NEW_TOKENS / min(times)
