"""Replacement scorer of MLAgentBench's babylm task: bits per byte of the held-out test text
under the model and tokenizer the submission saved in ``output/``.

The original eval.py reports perplexity per token of the submission's own tokenizer, so a
tokenizer that cuts the text differently (or maps words it does not know to one unknown
token) changes the number without a better model. Bits per byte do not depend on how the
text is cut: every token of the text is scored, the first of each block after a
start-of-text token, and the total is divided by the text's UTF-8 bytes. Three rules keep
the total honest: the tokenizer must give back every line it encodes, the model's
prediction at a position must not change when later tokens do (a causal language model),
and the weights must be safetensors, so that loading them runs no code of the agent's.

The test text is the non-blank lines of the held-back ``babylm_test/*.test`` files, as the
original's dataset script reads them; each line is tokenized on its own, as the starter
does, and the tokens are joined. The model runs in the scoring sandbox.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from pytest_mlab.core.errors import InvalidSubmission, ScorerError
from pytest_mlab.taskkit.held_back import HELD
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, start_timed_child

MODEL_FOLDER = "output"
TEST_FILES = Path("babylm_data") / "babylm_test"
PART_BYTES = 1 << 20
"""The test text goes to the child in parts of about this many bytes, one call each."""
BLOCK = 1024
"""The longest block the model sees (the starter's block size), start token included."""
LOGITS_PER_CALL = 1 << 28
"""Blocks go through the model together up to this many logits (1 GiB in float32)."""
CAUSAL_TOLERANCE = 1e-3
"""In log-probability: the same inputs give the same predictions up to rounding."""
READY_TIMEOUT = 900.0
CALL_TIMEOUT = 900.0
TOTAL_TIMEOUT = 3300.0
"""Under the overlay's score_timeout, so a slow submission is rejected, not an error."""
CHILD_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
             "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error",
             "TOKENIZERS_PARALLELISM": "false"}

# The child's part (see timed_child). It loads the model and tokenizer before anything
# else and never imports a module of the submission: `train` is a stand-in of its own.
_ADAPTER = (f"BLOCK, LOGITS_PER_CALL, CAUSAL_TOLERANCE = {BLOCK}, {LOGITS_PER_CALL}, "
            f"{CAUSAL_TOLERANCE}\n") + r"""
import math

SETUP_FAILURE = "Loading the model and tokenizer from output/ failed"

def setup(workspace, folder):
    global torch
    import types
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    path = os.path.join(workspace, folder)
    if not os.path.isdir(path):
        raise FileNotFoundError("the submission has no " + folder + "/ folder")
    model = AutoModelForCausalLM.from_pretrained(path, use_safetensors=True)
    tokenizer = AutoTokenizer.from_pretrained(path)
    start = tokenizer.bos_token_id
    if start is None:
        start = tokenizer.eos_token_id
    if start is None:
        raise ValueError("the tokenizer has no beginning- or end-of-text token to start a block")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    model.train(False)
    limits = [BLOCK, getattr(tokenizer, "model_max_length", BLOCK)]
    for key in ("n_positions", "max_position_embeddings"):
        value = getattr(model.config, key, None)
        if isinstance(value, int):
            limits.append(value)
    block = int(min(limits))
    if block < 2:
        raise ValueError(f"the model takes blocks of {block} tokens; at least 2 are needed")
    stand_in = types.ModuleType("train")
    stand_in.bits = bits
    sys.modules["train"] = stand_in
    return {"model": model, "tokenizer": tokenizer, "start": int(start), "block": block,
            "vocab": int(model.get_input_embeddings().num_embeddings), "device": device}

def token_ids(text, ends, context):
    tokenizer = context["tokenizer"]
    data, begin, lines = text.tobytes(), 0, []
    for end in ends.tolist():
        lines.append(data[begin:end].decode("utf-8"))
        begin = end
    ids = tokenizer(lines, add_special_tokens=False)["input_ids"]
    back = tokenizer.batch_decode(ids, skip_special_tokens=False,
                                  clean_up_tokenization_spaces=False)
    for line, got in zip(lines, back):
        if got != line:
            at = next((i for i, (a, b) in enumerate(zip(line, got)) if a != b),
                      min(len(line), len(got)))
            want_char = repr(line[at]) if at < len(line) else "the end of the line"
            got_char = repr(got[at]) if at < len(got) else "the end of the line"
            raise ValueError(
                "the tokenizer does not give back the text it encodes: a line decodes with "
                f"{got_char} where the text has {want_char} (character {at + 1})")
    flat = [token for line_ids in ids for token in line_ids]
    if flat and (min(flat) < 0 or max(flat) >= context["vocab"]):
        raise ValueError("the tokenizer gives token ids outside the model's "
                         f"0..{context['vocab'] - 1}")
    return flat

def log_probs(rows, context):
    ids = torch.tensor(rows, device=context["device"])
    with torch.no_grad():
        logits = context["model"](input_ids=ids).logits
    return ids, logits.float().log_softmax(dim=-1)

def check_causal(window, context):
    # The predictions up to a position must not change when every later token does.
    if len(window) < 2:
        return
    seen = len(window) // 2 + 1
    row = [context["start"]] + window
    changed = row[:seen] + [(token + 1) % context["vocab"] for token in row[seen:]]
    _, probs = log_probs([row, changed], context)
    worst = float((probs[0, :seen] - probs[1, :seen]).abs().max())
    if not worst <= CAUSAL_TOLERANCE:
        raise ValueError(
            "the model is not a causal language model: its prediction at a position changes "
            f"when later tokens change (by {worst:.3g} in log-probability)")

def bits(text, ends, context):
    flat = token_ids(text, ends, context)
    width = context["block"] - 1
    windows = [flat[i:i + width] for i in range(0, len(flat), width)]
    if windows:
        check_causal(windows[0], context)
    full = [w for w in windows if len(w) == width]
    batch = max(1, LOGITS_PER_CALL // (context["block"] * context["vocab"]))
    groups = [full[i:i + batch] for i in range(0, len(full), batch)]
    groups += [[w] for w in windows if len(w) < width]
    nats = 0.0
    for group in groups:
        ids, probs = log_probs([[context["start"]] + w for w in group], context)
        nats -= float(probs[:, :-1].gather(-1, ids[:, 1:, None]).sum())
    return np.array([nats / math.log(2), len(flat)], dtype=np.float64)

def call(fn, inputs, context):
    return fn(inputs["text"], inputs["ends"], context)
"""
PROGRAM = ChildProgram(
    function="bits", adapter=_ADAPTER, args=(MODEL_FOLDER,), env=CHILD_ENV,
    loading="loading the model and tokenizer from output/",
    between_calls="waiting for the next part of the test text", max_output_bytes=4096,
)


def held_out_lines(private: Path) -> list[bytes]:
    """The non-blank lines of the held-back test files, in UTF-8, each with its newline."""
    files = sorted((private / HELD / TEST_FILES).glob("*.test"))
    if not files:
        raise ScorerError(f"no held-back test text: {private / HELD / TEST_FILES} has no "
                          "*.test file")
    lines: list[bytes] = []
    for path in files:
        with path.open(encoding="utf-8") as handle:
            lines += [line.encode() for line in handle if line.strip()]
    return lines


def parts(lines: list[bytes], size: int = PART_BYTES) -> Iterator[list[bytes]]:
    """Consecutive runs of whole lines, each about ``size`` bytes."""
    part: list[bytes] = []
    held = 0
    for line in lines:
        part.append(line)
        held += len(line)
        if held >= size:
            yield part
            part, held = [], 0
    if part:
        yield part


def _checked(out: np.ndarray) -> tuple[float, int]:
    if out.shape != (2,) or not np.all(np.isfinite(out)) or out[0] < 0 or out[1] < 0:
        raise InvalidSubmission("The model's log-probabilities of the test text are not "
                                "finite numbers.")
    return float(out[0]), int(out[1])


def score(submission: Path, private: Path, runner: Runner) -> float:
    """The test text's total negative log2-probability over its UTF-8 bytes."""
    lines = held_out_lines(private)
    total_bits, tokens = 0.0, 0
    with start_timed_child(submission, runner, PROGRAM, TOTAL_TIMEOUT) as child:
        child.wait_until_ready(READY_TIMEOUT)
        for k, part in enumerate(parts(lines)):
            inputs: dict[str, np.ndarray] = {
                "text": np.frombuffer(b"".join(part), dtype=np.uint8),
                "ends": np.cumsum([len(line) for line in part], dtype=np.int64)}
            part_bits, part_tokens = _checked(child.call(inputs, f"part{k}", CALL_TIMEOUT)[1])
            total_bits += part_bits
            tokens += part_tokens
    if tokens == 0:
        raise InvalidSubmission("The tokenizer gives no tokens for the test text.")
    return total_bits / sum(len(line) for line in lines)
