"""What every version of train.py shares: the model as the harness loads it, the shapes
it times, and a local timing run of generate()."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import torch
from transformers import LlamaForCausalLM
from transformers.utils import logging as hf_logging

MODEL_DIR = Path(__file__).resolve().parent / "llama"
VOCAB_SIZE = 2048
# The same shapes the harness times: 24 prompts of 12 tokens, 8 new tokens each.
BATCH, PROMPT_LEN, NEW_TOKENS = 24, 12, 8

Generate = Callable[[LlamaForCausalLM, torch.Tensor, int], torch.Tensor]


def load_model(path: Path = MODEL_DIR) -> LlamaForCausalLM:
    """The model exactly as the harness builds it: float32, evaluation mode."""
    model: LlamaForCausalLM = LlamaForCausalLM.from_pretrained(path).eval()
    return model


def time_generate(generate: Generate) -> None:
    """Time one call of generate on the harness's shapes, prompts drawn with MLAB_SEED."""
    torch.set_num_threads(1)  # as the harness does
    hf_logging.disable_progress_bar()
    model = load_model()
    seed = int(os.environ.get("MLAB_SEED", "0"))  # the harness sets it per run
    prompts = torch.randint(
        0, VOCAB_SIZE, (BATCH, PROMPT_LEN), generator=torch.Generator().manual_seed(seed)
    )
    generate(model, prompts[:1], 2)  # warm-up, as the harness does with an untimed call
    start = time.perf_counter()
    output = generate(model, prompts, NEW_TOKENS)
    elapsed = time.perf_counter() - start
    tokens = BATCH * NEW_TOKENS
    print(f"output shape: {tuple(output.shape)}")
    print(f"first continuation: {output[0, PROMPT_LEN:].tolist()}")
    print(
        f"{tokens} tokens in {elapsed:.3f} s: {tokens / elapsed:.1f} tokens/s "
        "(for information; the harness times generate() itself)"
    )
