"""The null submission: each prompt followed by token 0, without running the model."""

from __future__ import annotations

import torch
from transformers import LlamaForCausalLM


def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """The prompts and max_new_tokens zeros."""
    batch = prompt_ids.shape[0]
    return torch.cat([prompt_ids, torch.zeros(batch, max_new_tokens, dtype=torch.long)], 1)
