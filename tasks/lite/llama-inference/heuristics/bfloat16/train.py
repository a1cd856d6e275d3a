"""Heuristic: all prompts at once through a bfloat16 copy of the model, which changes the
greedy tokens."""

from __future__ import annotations

import copy

import torch
from transformers import LlamaForCausalLM

_HALF: dict[int, LlamaForCausalLM] = {}


@torch.inference_mode()
def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """Greedy decoding of the whole batch at each step with a bfloat16 copy of the model."""
    half = _HALF.setdefault(id(model), copy.deepcopy(model).to(torch.bfloat16))
    sequence = prompt_ids
    for _ in range(max_new_tokens):
        next_id = half(input_ids=sequence).logits[:, -1, :].argmax(dim=-1, keepdim=True)
        sequence = torch.cat([sequence, next_id], dim=1)
    return sequence
