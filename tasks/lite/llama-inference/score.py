"""Time the workspace's generate() with the scorer's own clock and check its tokens.

The agent's code runs in a child process that only sees prompt files and writes
token files; the parent owns the clock and a reference model loaded from the
private copy of the weights, so nothing the workspace prints, writes or patches
can change the measured time or the verdict.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

from pytest_mlab import InvalidSubmission

if TYPE_CHECKING:
    from transformers import LlamaForCausalLM

MODEL_DIR = "llama"
VOCAB_SIZE = 2048
TIMED_CALLS = 3
BATCH, PROMPT_LEN, NEW_TOKENS = 24, 12, 8
# An untimed first call with other shapes: it warms the child up, and a function
# that only handles the timed shapes fails it.
CHECK_BATCH, CHECK_PROMPT_LEN, CHECK_NEW_TOKENS = 3, 7, 5
# A token that differs from the reference still counts as greedy when its logit is this
# close to the best one: batching or caching moves float32 logits by about 1e-6, which
# can flip a near tie; deliberate changes (lower precision, sampling) move them far more.
TIE_TOLERANCE = 1e-4
READY_TIMEOUT = 120.0
CALL_TIMEOUT = 120.0
# Stays under the task's score_timeout so a slow submission is rejected, not an infra error.
TOTAL_TIMEOUT = 270.0
SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
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

# Runs in the child. The protocol goes over a private copy of stdout and fd 1 is
# pointed at stderr, so prints from train.py cannot be mistaken for protocol lines.
# The model is loaded before train.py is imported, from files checked just before.
_DRIVER = r"""
import os, sys
proto = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

def say(line):
    proto.write(line + "\n")
    proto.flush()

def brief(exc):
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]

workspace, model_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, workspace)
try:
    import numpy as np
    import torch
    torch.set_num_threads(1)
    from transformers import LlamaForCausalLM
    model = LlamaForCausalLM.from_pretrained(os.path.join(workspace, model_dir)).eval()
except BaseException as exc:
    say("error Loading the model failed (" + brief(exc) + ")")
    sys.exit(1)
try:
    import train
except BaseException as exc:
    say("error Importing train.py failed (" + brief(exc) + ")")
    sys.exit(1)
fn = getattr(train, "generate", None)
if not callable(fn):
    say("error The workspace's train.py defines no function generate")
    sys.exit(1)
say("ready")
while True:
    in_path = sys.stdin.readline().strip()
    if not in_path:
        break
    out_path = in_path[: -len(".npz")] + ".out.npy"
    try:
        with np.load(in_path) as data:
            prompt_ids = torch.from_numpy(data["prompt_ids"])
            max_new_tokens = int(data["max_new_tokens"])
        result = fn(model, prompt_ids, max_new_tokens)
        if isinstance(result, torch.Tensor):
            result = result.detach().cpu().numpy()
        np.save(out_path, np.asarray(result), allow_pickle=False)
    except BaseException as exc:
        say("error The call to generate failed (" + brief(exc) + ")")
        sys.exit(1)
    if torch.get_num_threads() != 1:
        say("error generate changed the number of torch threads; it must stay 1")
        sys.exit(1)
    say("done " + out_path)
"""


def _is_secret(name: str) -> bool:
    return any(marker in name.upper() for marker in SECRET_MARKERS)


class _Child:
    """The child process running the driver, with a non-blocking view of its protocol lines."""

    def __init__(self, workspace: Path, stderr: TextIO) -> None:
        env = {k: v for k, v in os.environ.items() if not _is_secret(k)} | CHILD_ENV
        self._stderr = stderr
        self.proc = subprocess.Popen(
            [sys.executable, "-B", "-c", _DRIVER, str(workspace), MODEL_DIR],
            cwd=workspace,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def send(self, line: str) -> None:
        """Send a request; a line already waiting (say, a forged early "done") is rejected."""
        with contextlib.suppress(queue.Empty):
            stale = self._judge(self._lines.get_nowait(), "waiting for the next prompts")
            raise InvalidSubmission(f"The scoring process wrote {stale[:100]!r} unprompted.")
        assert self.proc.stdin is not None
        # If the child died, the next read reports it.
        with contextlib.suppress(OSError):
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()

    def read(self, timeout: float, what: str) -> str:
        """The next protocol line, or InvalidSubmission if the child fails, dies or stalls."""
        try:
            line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise InvalidSubmission(f"Timed out after {timeout:.0f} s while {what}.") from None
        return self._judge(line, what)

    def _judge(self, line: str | None, what: str) -> str:
        if line is None:
            raise InvalidSubmission(
                f"The scoring process exited while {what}{self._stderr_tail()}."
            )
        if line.startswith("error "):
            raise InvalidSubmission(line[len("error ") :] + ".")
        return line

    def _stderr_tail(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        lines = [ln.strip() for ln in self._stderr.read().splitlines() if ln.strip()]
        return f" (last stderr line: {lines[-1][:300]})" if lines else ""

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self._pump_thread.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            # A broken pipe to a dead child has nothing left to flush.
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


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
    prompt_tensor = torch.from_numpy(prompts)
    with torch.inference_mode():
        reference = model.generate(
            prompt_tensor,
            attention_mask=torch.ones_like(prompt_tensor),
            max_new_tokens=new_tokens,
            min_new_tokens=new_tokens,
            do_sample=False,
            num_beams=1,
            use_cache=True,
            pad_token_id=0,
        )
        if np.array_equal(out, reference.numpy()):
            return
        # Where the tokens differ, score the returned sequence itself, one step at a time.
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


def _call(
    child: _Child,
    model: LlamaForCausalLM,
    prompts: np.ndarray,
    new_tokens: int,
    path: Path,
    deadline: float,
) -> float:
    """One call in the child; the parent-measured seconds, once the tokens are checked."""
    np.savez(path, prompt_ids=prompts, max_new_tokens=new_tokens)
    expected_out = str(path)[: -len(".npz")] + ".out.npy"
    timeout = min(CALL_TIMEOUT, deadline - time.monotonic())
    start = time.perf_counter()
    child.send(str(path))
    line = child.read(timeout, "running generate")
    elapsed = time.perf_counter() - start
    if line != f"done {expected_out}":
        raise InvalidSubmission(f"The scoring process answered {line[:100]!r}, not its output.")
    try:
        out = np.load(expected_out, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InvalidSubmission(f"The output of generate is unreadable ({exc}).") from None
    _check(model, prompts, new_tokens, out)
    return elapsed


def score(workspace: Path, private: Path) -> float:
    """Generated tokens per second: the fastest of three parent-timed calls on fresh prompts."""
    rng = np.random.default_rng()
    deadline = time.monotonic() + TOTAL_TIMEOUT
    with (
        tempfile.TemporaryDirectory(prefix="mlab-llama-inference-") as tmp,
        open(Path(tmp) / "stderr.txt", "w+", encoding="utf-8", errors="replace") as stderr,
    ):
        scratch = Path(tmp)
        child = _Child(Path(workspace).resolve(), stderr)
        try:
            model = _reference_model(private)
            first = child.read(min(READY_TIMEOUT, deadline - time.monotonic()), "loading train.py")
            if first != "ready":
                raise InvalidSubmission(
                    f"The scoring process answered {first[:100]!r}, not 'ready'."
                )
            check = rng.integers(0, VOCAB_SIZE, (CHECK_BATCH, CHECK_PROMPT_LEN), dtype=np.int64)
            _call(child, model, check, CHECK_NEW_TOKENS, scratch / "check.npz", deadline)
            times = []
            for i in range(TIMED_CALLS):
                prompts = rng.integers(0, VOCAB_SIZE, (BATCH, PROMPT_LEN), dtype=np.int64)
                path = scratch / f"call{i}.npz"
                times.append(_call(child, model, prompts, NEW_TOKENS, path, deadline))
        finally:
            child.close()
    return BATCH * NEW_TOKENS / min(times)
