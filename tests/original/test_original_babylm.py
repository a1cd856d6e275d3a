"""The replacement scorer of babylm: bits per byte of the held-out text, whatever the
tokenizer, and never for a tokenizer that loses text or a model that sees ahead (a tiny
GPT-2 and tokenizers of this test's own, in the layout the overlay prepares)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.core.module_file import load_file
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.spec import SandboxSpec
from pytest_mlab.taskkit import original

pytestmark = pytest.mark.slow
OVERLAY = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench" / "babylm.toml"
SCORER = OVERLAY.parent / "scorers" / "babylm.py"
TRAIN_TEXT = ["the cat sat on the mat.\n", "The dog sat on the log.\n",
              "a cat and a dog met on a mat.\n"] * 4
# Two files, as babylm_test holds one per source: blank lines are not text the dataset
# script yields, and characters that str.splitlines would cut at stay inside their line.
TEST_FILES = {
    "a.test": "The cat met the dog.\n\n   \nA dog sat on a log\x0bby the mat.\n",
    "b.test": "the mat\u2028and the log, caf\u00e9 noir.\nthe end",
}
ISOLATION = "bwrap"
"""The scorer's child runs isolated as in a trial: no network, only its folder writable."""
POSITIONS = 16
"""The tiny model's longest block: the test text takes several."""


def _byte_level(lowercase: bool = False) -> Any:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    if lowercase:
        tok.normalizer = normalizers.Lowercase()
    tok.train_from_iterator(TRAIN_TEXT, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=tok,  # type: ignore[no-untyped-call]
                                   bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>")


def _unknown_words() -> Any:
    """The perplexity cheat: every word is the one unknown token."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "<|endoftext|>": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok,  # type: ignore[no-untyped-call]
                                   unk_token="[UNK]",
                                   bos_token="<|endoftext|>")


def _gpt2(vocab: int) -> Any:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=vocab, n_positions=POSITIONS, n_embd=32,
                                       n_layer=2, n_head=2))
    with torch.no_grad():  # logits that spread, as a trained model's do
        model.lm_head.weight.mul_(20.0)
    return model


def _sees_ahead(vocab: int) -> Any:
    """A BERT loaded as a causal language model attends to every token, later ones too."""
    import torch
    from transformers import BertConfig, BertLMHeadModel

    torch.manual_seed(0)
    model = BertLMHeadModel(BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2,
                                       num_attention_heads=2, intermediate_size=64,
                                       max_position_embeddings=POSITIONS, is_decoder=False))
    with torch.no_grad():
        model.cls.predictions.decoder.weight.mul_(20.0)
    return model


def _pickled(model: Any, folder: Path) -> None:
    import torch

    model.config.save_pretrained(folder)
    torch.save(model.state_dict(), folder / "pytorch_model.bin")


def _submission(folder: Path, kind: str) -> None:
    out = folder / "output"
    tokenizer = _unknown_words() if kind == "unknown words" else _byte_level(
        lowercase=kind == "lowercasing tokenizer")
    tokenizer.save_pretrained(out)
    if kind == "sees ahead":
        _sees_ahead(len(tokenizer)).save_pretrained(out)
    elif kind == "pickled weights":
        _pickled(_gpt2(len(tokenizer)), out)
    else:
        _gpt2(len(tokenizer)).save_pretrained(out)
    if kind == "no output":
        shutil.rmtree(out)


def expected_bits_per_byte(output: Path) -> float:
    """The definition, one prediction at a time: every token of the non-blank lines, in
    blocks of POSITIONS - 1 after the start token, over the lines' UTF-8 bytes."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(output)
    model = AutoModelForCausalLM.from_pretrained(output)
    ids = _token_ids(output)
    nats = 0.0
    for at in range(0, len(ids), POSITIONS - 1):
        row = [tokenizer.bos_token_id, *ids[at:at + POSITIONS - 1]]
        for j in range(1, len(row)):
            with torch.no_grad():
                logits = model(input_ids=torch.tensor([row[:j]])).logits[0, -1]
            nats -= float(logits.double().log_softmax(-1)[row[j]])
    return nats / math.log(2) / sum(len(line.encode()) for line in _test_lines())


def _test_lines() -> list[str]:
    """The non-blank lines of the test files, each with its newline if it has one."""
    lines: list[str] = []
    for text in TEST_FILES.values():
        *whole, last = text.split("\n")
        lines += [line + "\n" for line in whole] + [last]
    return [line for line in lines if line.strip()]


def _token_ids(output: Path) -> list[int]:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(output)
    return [t for line in _test_lines() for t in tokenizer.encode(line, add_special_tokens=False)]


@pytest.fixture
def score(tmp_path: Path) -> Iterator[Callable[[str], float]]:
    """Score a submission of one kind through the overlay, as the harness would: the
    held-back test text in the private folder, the model and tokenizer in output/."""
    pytest.importorskip("transformers")
    held = tmp_path / "private" / "held" / "babylm_data" / "babylm_test"
    held.mkdir(parents=True)
    for name, text in TEST_FILES.items():
        (held / name).write_bytes(text.encode())
    sandboxes: list[LocalSandbox] = []

    def run(kind: str) -> float:
        submission = tmp_path / kind.replace(" ", "-")
        _submission(submission, kind)
        sandboxes.append(LocalSandbox(SandboxSpec(submission, isolation=ISOLATION)))
        return original.score(OVERLAY, submission, tmp_path / "private", sandboxes[-1])

    yield run
    for sandbox in sandboxes:
        sandbox.close()


def test_the_score_is_every_tokens_bits_over_the_texts_bytes(
    score: Callable[[str], float], tmp_path: Path,
) -> None:
    value = score("starter")
    assert value == pytest.approx(expected_bits_per_byte(tmp_path / "starter" / "output"),
                                  rel=1e-5)
    assert 1.0 < value < 20.0  # a random model over ~300 tokens: several bits a byte


def test_blocks_scored_two_at_a_time_give_the_same_score(
    score: Callable[[str], float], tmp_path: Path,
) -> None:
    together = score("starter")
    scorer: Any = load_file(SCORER, "babylm_scorer")
    vocab = json.loads((tmp_path / "starter" / "output" / "config.json").read_text())
    budget = 2 * POSITIONS * vocab["vocab_size"]
    first, rest = scorer.PROGRAM.adapter.split("\n", 1)
    assert str(scorer.LOGITS_PER_CALL) in first
    scorer.PROGRAM = dataclasses.replace(
        scorer.PROGRAM, adapter=first.replace(str(scorer.LOGITS_PER_CALL), str(budget)) + "\n"
        + rest)
    sandbox = LocalSandbox(SandboxSpec(tmp_path / "starter", isolation=ISOLATION))
    try:
        in_twos = scorer.score(tmp_path / "starter", tmp_path / "private", sandbox)
    finally:
        sandbox.close()
    assert in_twos == pytest.approx(together, rel=1e-6)
    # Three full blocks and the rest: two groups of blocks, then the rest alone.
    assert len(_token_ids(tmp_path / "starter" / "output")) > 3 * (POSITIONS - 1)


@pytest.mark.parametrize(("kind", "sentence"), [
    ("unknown words", "the tokenizer does not give back the text it encodes: a line "
                      "decodes with '['"),
    ("lowercasing tokenizer", "the tokenizer does not give back the text it encodes: a line "
                              "decodes with 't' where the text has 'T' (character 1)"),
    ("sees ahead", "the model is not a causal language model: its prediction at a position "
                   "changes when later tokens change"),
    ("pickled weights", "Loading the model and tokenizer from output/ failed (OSError: Error "
                        "no file named model.safetensors"),
    ("no output", "Loading the model and tokenizer from output/ failed (FileNotFoundError: "
                  "the submission has no output/ folder)"),
])
def test_a_submission_that_could_game_the_number_is_invalid(
    score: Callable[[str], float], kind: str, sentence: str,
) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        score(kind)
    assert sentence in str(caught.value)


def test_a_missing_test_text_is_the_harness_fault(tmp_path: Path) -> None:
    from pytest_mlab.core.errors import ScorerError

    (tmp_path / "private").mkdir()
    with pytest.raises(ScorerError, match="no held-back test text"):
        original.score(OVERLAY, tmp_path / "submission", tmp_path / "private", None)


def test_the_text_goes_in_parts_of_whole_lines() -> None:
    lines = [b"ab\n", b"cde\n", b"f\n", b"ghij"]
    parts = load_file(SCORER, "babylm_scorer").parts(lines, size=4)
    assert list(parts) == [[b"ab\n", b"cde\n"], [b"f\n", b"ghij"]]
