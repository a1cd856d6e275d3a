"""Heuristic: the prompts shared among worker processes, which the rule refuses."""

from __future__ import annotations

import multiprocessing

import torch
from transformers import LlamaForCausalLM


def _one(model: LlamaForCausalLM, prompt: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    sequence = prompt.unsqueeze(0)
    for _ in range(max_new_tokens):
        logits = model(input_ids=sequence).logits
        sequence = torch.cat([sequence, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
    return sequence


@torch.inference_mode()
def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """Each of two worker processes decodes half of the prompts."""
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        rows = pool.starmap(_one, [(model, p, max_new_tokens) for p in prompt_ids])
    return torch.cat(rows, dim=0)
