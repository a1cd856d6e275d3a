"""Heuristic: the starter with two torch threads during the call, which the rule refuses."""

from __future__ import annotations

import torch
from generation import time_generate
from transformers import LlamaForCausalLM


def _decode(model: LlamaForCausalLM, prompt: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    sequence = prompt.unsqueeze(0)
    for _ in range(max_new_tokens):
        next_id = model(input_ids=sequence).logits[:, -1, :].argmax(dim=-1, keepdim=True)
        sequence = torch.cat([sequence, next_id], dim=1)
    return sequence


def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """The starter's greedy decoding, one prompt at a time, on two threads."""
    torch.set_num_threads(2)  # back to 1 before returning
    rows = [_decode(model, prompt, max_new_tokens) for prompt in prompt_ids]
    torch.set_num_threads(1)
    return torch.cat(rows, dim=0)


if __name__ == "__main__":
    time_generate(generate)
