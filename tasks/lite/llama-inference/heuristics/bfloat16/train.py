"""Heuristic: batched, cached generation in bfloat16, which changes the greedy tokens."""

from __future__ import annotations

import copy

import torch
from transformers import LlamaForCausalLM

_HALF: dict[int, LlamaForCausalLM] = {}


@torch.inference_mode()
def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """Greedy decoding with a bfloat16 copy of the model."""
    half = _HALF.setdefault(id(model), copy.deepcopy(model).to(torch.bfloat16))
    output: torch.Tensor = half.generate(
        prompt_ids,
        attention_mask=torch.ones_like(prompt_ids),
        max_new_tokens=max_new_tokens,
        min_new_tokens=max_new_tokens,
        do_sample=False,
        num_beams=1,
        use_cache=True,
        pad_token_id=0,
    )
    return output
