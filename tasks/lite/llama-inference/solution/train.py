"""Greedy generation with a small Llama model: all prompts at once, with a key/value cache."""

from __future__ import annotations

import torch
from generation import time_generate
from transformers import LlamaForCausalLM


@torch.inference_mode()
def generate(
    model: LlamaForCausalLM, prompt_ids: torch.Tensor, max_new_tokens: int
) -> torch.Tensor:
    """The starter's greedy decoding, the whole batch at each step, one new position a step."""
    if max_new_tokens <= 0:
        return prompt_ids.clone()
    # Prompts share one length, so the batch needs no padding; the cache keeps each
    # step to one new position instead of the whole sequence.
    output: torch.Tensor = model.generate(
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


if __name__ == "__main__":
    time_generate(generate)
