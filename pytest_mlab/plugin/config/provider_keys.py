"""The environment variables a model's provider needs, told from the model's name alone.

Importing litellm to ask it takes seconds; a missing key should be reported at once. The
names are litellm's own (its ``validate_environment``), so that a key found here is one
the client finds too. A provider not told here (a bare model name litellm alone maps, a
cloud that signs its calls) is left to litellm: ``None``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_Need = tuple[tuple[str, ...], ...]
"""Every variable a provider needs, each as its alternatives (any one will do; the first
is the one named where none is set)."""

PROVIDERS: dict[str, _Need] = {
    "openai": (("OPENAI_API_KEY",),),
    "text-completion-openai": (("OPENAI_API_KEY",),),
    "anthropic": (("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),),
    "azure": (("AZURE_API_BASE",), ("AZURE_API_VERSION",), ("AZURE_API_KEY",)),
    "gemini": (("GEMINI_API_KEY", "GOOGLE_API_KEY"),),
    "mistral": (("MISTRAL_API_KEY",),),
    "codestral": (("CODESTRAL_API_KEY",),),
    "groq": (("GROQ_API_KEY",),),
    "together_ai": (("TOGETHERAI_API_KEY",),),
    "openrouter": (("OPENROUTER_API_KEY",),),
    "deepseek": (("DEEPSEEK_API_KEY",),),
    "cohere": (("COHERE_API_KEY",),),
    "xai": (("XAI_API_KEY",),),
    "fireworks_ai": (("FIREWORKS_AI_API_KEY",),),
    "perplexity": (("PERPLEXITYAI_API_KEY",),),
    "deepinfra": (("DEEPINFRA_API_KEY",),),
    "cerebras": (("CEREBRAS_API_KEY",),),
    "huggingface": (("HUGGINGFACE_API_KEY",),),
    "replicate": (("REPLICATE_API_KEY",),),
    "nvidia_nim": (("NVIDIA_NIM_API_KEY",),),
    "ollama": (),
    "ollama_chat": (),
    "hosted_vllm": (),
    "lm_studio": (),
}

_BARE = {"gpt-": "openai", "chatgpt-": "openai", "o1": "openai", "o3": "openai",
         "o4": "openai", "claude-": "anthropic"}
"""Model names without a provider prefix whose provider is certain."""


def provider_of(model: str) -> str | None:
    """The provider ``model`` names (``anthropic/claude-3-haiku``, ``gpt-4o``), if known."""
    prefix, slash, _ = model.partition("/")
    if slash:
        return prefix if prefix in PROVIDERS else None
    for start, provider in _BARE.items():
        if model.startswith(start) and (start[-1] == "-" or model[len(start):][:1] in "-"):
            return provider
    return None


def missing_keys(model: str, environ: Mapping[str, str] = os.environ) -> list[str] | None:
    """The variables ``model``'s provider lacks (empty: none), or None where the provider
    cannot be told without litellm."""
    provider = provider_of(model)
    if provider is None:
        return None
    return [names[0] for names in PROVIDERS[provider]
            if not any(name in environ for name in names)]
