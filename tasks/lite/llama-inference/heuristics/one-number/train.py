"""The ladder's one-number rung: the starter has no number that sets its speed, so the one
the model call takes: logits_to_keep=1, the vocabulary projection for the last position only."""

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
    rows = []
    for prompt in prompt_ids:
        sequence = prompt.unsqueeze(0)
        for _ in range(max_new_tokens):
            logits = model(input_ids=sequence, logits_to_keep=1).logits
            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            sequence = torch.cat([sequence, next_id], dim=1)
        rows.append(sequence)
    return torch.cat(rows, dim=0)


if __name__ == "__main__":
    time_generate(generate)
