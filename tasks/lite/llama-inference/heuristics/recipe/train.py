"""The ladder's recipe rung: all prompts in one batch, the starter's loop run once over the
whole batch (no padding needed, every prompt has one length), without a key/value cache."""

from __future__ import annotations

import torch
from generation import time_generate
from transformers import LlamaForCausalLM


def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """Greedy decoding: append the most likely next token, max_new_tokens times.

    prompt_ids: int64 tensor (batch, prompt_len). Returns an int64 tensor
    (batch, prompt_len + max_new_tokens): each prompt followed by its new tokens.
    """
    sequence = prompt_ids
    with torch.inference_mode():
        for _ in range(max_new_tokens):
            logits = model(input_ids=sequence, use_cache=False).logits
            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            sequence = torch.cat([sequence, next_id], dim=1)
    return sequence


if __name__ == "__main__":
    time_generate(generate)
