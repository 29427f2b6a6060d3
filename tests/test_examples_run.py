"""The examples are real models: each builds with torch, runs a forward pass, and its residual
writers really get the init its docstring describes (measured on the built weights).

This is the ground truth behind `tests/test_examples.py`: a docstring that says "no depth
factor" must describe a model whose writers measure at std 0.02, not one that happens to be
scaled somewhere the author forgot.
"""

from __future__ import annotations

import inspect
import math
import re
import runpy
from dataclasses import dataclass
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

DEPTH = 8
VOCAB = 64
SEQ_LEN = 8
# Every size-like config field any example uses, shrunk so each model builds in milliseconds.
TINY_SIZES = {
    "n_layer": DEPTH,
    "n_layers": DEPTH,
    "num_hidden_layers": DEPTH,
    "n_head": 2,
    "n_heads": 2,
    "num_attention_heads": 2,
    "n_embd": 32,
    "dim": 32,
    "d_model": 32,
    "hidden_size": 32,
    "ffn_hidden": 64,
    "ffn_dim": 64,
    "intermediate_size": 64,
    "multiple_of": 16,
    "vocab_size": VOCAB,
    "block_size": 16,
    "max_seq_len": 16,
    "context_length": 16,
    "max_position_embeddings": 16,
    "n_positions": 16,
    "sequence_len": 16,
}

# What the writers' std must measure, as a function of depth L and block index.
SCHEMES = {
    "gpt2": lambda fan_in, block: 0.02 / math.sqrt(2 * DEPTH),
    "sqrt_n_layer": lambda fan_in, block: 0.02 / math.sqrt(DEPTH),
    "base": lambda fan_in, block: 0.02,
    "torch_default": lambda fan_in, block: 1 / math.sqrt(3 * fan_in),  # kaiming_uniform_(a=sqrt(5))
    "per_layer": lambda fan_in, block: 0.02 / math.sqrt(2 * (block + 1)),
    "zero": lambda fan_in, block: 0.0,
}


@dataclass(frozen=True)
class Case:
    model: str
    config: str
    #: (regex over parameter names, scheme) for the residual writers of this model.
    writers: tuple[tuple[str, str], ...]


GPT_WRITERS = r"\.(attn|mlp)\.c_proj\.weight$"
LLAMA_WRITERS = r"\.(attention\.wo|feed_forward\.w2)\.weight$"

CASES = {
    "gpt2_nanogpt.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "gpt2"),)),
    "gpt2_unscaled.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "base"),)),
    "gpt2_dead_name_test.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "base"),)),
    "gpt2_bias_typo.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "base"),)),
    "gpt2_sqrt_n_layer.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "sqrt_n_layer"),)),
    "gpt2_runtime_divide.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "gpt2"),)),
    "gpt2_flag_attribute.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "gpt2"),)),
    "overwritten_by_apply.py": Case("GPT", "GPTConfig", ((GPT_WRITERS, "base"),)),
    "hf_style_init_weights.py": Case("TinyGPTForCausalLM", "TinyGPTConfig", ((GPT_WRITERS, "gpt2"),)),
    "llama_swiglu.py": Case("Transformer", "ModelArgs", ((LLAMA_WRITERS, "gpt2"),)),
    "llama_default_init.py": Case("Transformer", "ModelArgs", ((LLAMA_WRITERS, "torch_default"),)),
    "per_layer_scaled.py": Case("Transformer", "TransformerArgs", ((LLAMA_WRITERS, "per_layer"),)),
    "swiglu_wrong_matrix.py": Case(
        "Decoder",
        "DecoderConfig",
        # The real MLP writer w3 is unscaled; the scaling landed on the input-side w2.
        ((r"\.attn\.wo\.weight$", "gpt2"), (r"\.mlp\.w3\.weight$", "base"), (r"\.mlp\.w2\.weight$", "gpt2")),
    ),
    "bert_post_norm.py": Case("Encoder", "EncoderConfig", ((r"\.(attention|ffn)\.output\.weight$", "base"),)),
    "parallel_block.py": Case(
        "ParallelGPT", "ParallelConfig", ((r"\.(attn\.out_proj|mlp\.fc_out)\.weight$", "sqrt_n_layer"),)
    ),
    "zero_init_writers.py": Case("GPT", "Config", ((r"\.(attn|mlp)\.proj\.weight$", "zero"),)),
}


def test_every_example_has_a_runtime_case() -> None:
    assert set(CASES) == {path.name for path in EXAMPLES.glob("*.py")}


def build(name: str) -> "torch.nn.Module":
    namespace = runpy.run_path(str(EXAMPLES / name))
    case = CASES[name]
    config_class = namespace[case.config]
    accepted = inspect.signature(config_class).parameters
    config = config_class(**{key: value for key, value in TINY_SIZES.items() if key in accepted})
    torch.manual_seed(0)
    model = namespace[case.model](config)
    assert sum(p.numel() for p in model.parameters()) < 1_000_000, "config was not shrunk"
    return model


def block_index(parameter_name: str) -> int:
    return int(re.search(r"\.(\d+)\.", parameter_name).group(1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_builds_and_runs_forward(name: str) -> None:
    model = build(name).eval()
    tokens = torch.randint(0, VOCAB, (2, SEQ_LEN))
    with torch.no_grad():
        output = model(tokens)
    logits = output[0] if isinstance(output, tuple) else output
    assert logits.shape == (2, SEQ_LEN, VOCAB)
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize("name", sorted(CASES))
def test_writers_get_the_init_the_docstring_describes(name: str) -> None:
    model = build(name)
    parameters = dict(model.named_parameters())
    for pattern, scheme in CASES[name].writers:
        matched = {key: value for key, value in parameters.items() if re.search(pattern, key)}
        assert len(matched) >= DEPTH, f"{pattern} matched only {sorted(matched)}"
        for key, weight in matched.items():
            expected = SCHEMES[scheme](weight.shape[1], block_index(key))
            measured = weight.detach().double().pow(2).mean().sqrt().item()
            if expected == 0.0:
                assert measured == 0.0, (key, measured)
            else:
                # ~1000+ elements per tensor: sampling error ~2%, a sqrt(2) mistake is 41%.
                assert measured == pytest.approx(expected, rel=0.12), (key, scheme, measured, expected)
