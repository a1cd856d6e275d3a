"""Build the task's small Llama model from a fixed seed; nothing is downloaded.

The same weights go to public/ (the workspace's read-only copy, which the
harness loads for the submission) and to private/ (the scorer's own copy).
"""

from __future__ import annotations

from pathlib import Path

from pytest_mlab import TaskUnavailable

SEED = 20230227
MODEL_DIR = "llama"


def prepare(public: Path, private: Path) -> None:
    try:
        import torch
        from transformers import LlamaConfig, LlamaForCausalLM
    except ImportError as error:
        raise TaskUnavailable(
            f"torch or transformers is missing ({error}); run: pip install torch transformers"
        ) from error
    torch.manual_seed(SEED)
    config = LlamaConfig(
        vocab_size=2048,
        hidden_size=256,
        intermediate_size=688,
        num_hidden_layers=4,
        num_attention_heads=8,
        num_key_value_heads=4,
        max_position_embeddings=512,
        # No end-of-text token: every generation runs for exactly max_new_tokens.
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
    )
    model = LlamaForCausalLM(config).eval()
    for root in (public, private):
        model.save_pretrained(root / MODEL_DIR)
