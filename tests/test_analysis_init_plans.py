"""The init plan and the rules on the shapes real model code takes (all parsed for real).

Each case is a whole GPT (see gpt_parts.py) with one init idiom swapped in; the lines that must be
reported carry `# expect: INI00x`, everything else must stay silent.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from expectations import expected_findings, reported
from gpt_parts import ATTENTION, BLOCK, GENERIC_INIT, MLP, gpt

from initlint.analysis import analyze
from initlint.analysis.model import final_init
from initlint.config import Settings
from initlint.engine import lint_source

SCALED_LOOP = """
for pn, p in self.named_parameters():
    if {test}:
        torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
"""


def loop(test: str) -> str:
    return SCALED_LOOP.format(test=test)


@pytest.mark.parametrize(
    "test, scaled",
    [
        ("pn.endswith('c_proj.weight')", True),
        ("pn.endswith(('attn.c_proj.weight', 'mlp.c_proj.weight'))", True),
        ("'c_proj' in pn and pn.endswith('weight')", True),
        ("re.search(r'h\\.\\d+\\.(attn|mlp)\\.c_proj\\.weight$', pn)", True),
        ("pn.split('.')[-2] == 'c_proj' and pn.split('.')[-1] == 'weight'", True),
        ("pn == 'c_proj.weight'", False),  # full names never equal the relative name
        ("pn.endswith('c_proj.bias')", False),
        ("pn.endswith('out_proj.weight')", False),
        ("pn.startswith('c_proj')", False),
    ],
)
def test_name_tests_of_a_named_parameters_loop(test, scaled):
    source = gpt("self.apply(self._init_weights)" + loop(test), GENERIC_INIT, imports="import re", marks=not scaled)
    assert reported(source) == expected_findings(source)


def test_hf_classic_relative_name_test_inside_init_weights():
    """transformers' GPT-2: `module.named_parameters()` names are relative, so `==` matches."""
    init_function = (
        GENERIC_INIT
        + """
    for name, p in module.named_parameters():
        if name == "c_proj.weight":
            p.data.normal_(mean=0.0, std=(0.02 / math.sqrt(2 * self.config.n_layer)))
"""
    )
    source = gpt("self.apply(self._init_weights)", init_function)
    assert reported(source) == []


def test_apply_is_post_order_so_a_parent_branch_wins_over_the_children():
    """`isinstance(module, (Attention, MLP))` runs after the children got their generic init."""
    init_function = (
        GENERIC_INIT
        + """
    if isinstance(module, (CausalSelfAttention, MLP)):
        nn.init.normal_(module.c_proj.weight, std=0.02 / math.sqrt(2 * self.config.n_layer))
"""
    )
    assert reported(gpt("self.apply(self._init_weights)", init_function)) == []


def test_special_init_before_a_generic_apply_is_overwritten():
    source = gpt(loop("pn.endswith('c_proj.weight')") + "self.apply(self._init_weights)", GENERIC_INIT, marks=True)
    findings = reported(source)
    assert findings == expected_findings(source)


@pytest.mark.parametrize(
    "flag_setting",
    [
        "self.c_proj.SCALE_INIT = 1",
        "setattr(self.c_proj, 'SCALE_INIT', 1)",
        "object.__setattr__(self.c_proj, 'SCALE_INIT', True)",
    ],
)
def test_flag_attributes_read_by_the_init_function(flag_setting):
    attention = ATTENTION.replace("        self.n_head = config.n_head\n", "        self.n_head = config.n_head\n")
    attention = attention.replace("{attn_mark}\n", "{attn_mark}\n        " + flag_setting + "\n")
    mlp = MLP.replace("{mlp_mark}\n", "{mlp_mark}\n        " + flag_setting + "\n")
    init_function = """
def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        std = 0.02
        if hasattr(module, 'SCALE_INIT'):
            std *= (2 * self.config.n_layer) ** -0.5
        torch.nn.init.normal_(module.weight, mean=0.0, std=std)
"""
    source = gpt("self.apply(self._init_weights)", init_function, attention=attention, mlp=mlp)
    assert reported(source) == []
    # ... and without the flag the same init function leaves the writers unscaled.
    unflagged = gpt("self.apply(self._init_weights)", init_function, marks=True)
    assert reported(unflagged) == expected_findings(unflagged)


def test_nothing_initialises_the_writers():
    source = gpt(marks=True)
    findings = reported(source)
    assert findings == expected_findings(source)


def test_an_init_function_the_constructor_never_applies_is_assumed_applied_and_said_so():
    """A library model whose `_init_weights` the training script applies: with no caller in the
    file, it is analysed as `model.apply(model._init_weights)` and the evidence says so."""
    source = gpt("", GENERIC_INIT, marks=True)
    assert reported(source) == expected_findings(source)
    finding = lint_source(source, "model.py", Settings(select=("INI001",)))[0]
    assert (
        "assuming `model.apply(model._init_weights)` is called, as no caller is in this file"
        in finding.evidence[0].message
    )


def test_an_init_function_called_elsewhere_in_the_file_is_not_assumed():
    """A caller in the file passes its own arguments: that is the caller's analysis, not a guess."""
    source = (
        gpt("", GENERIC_INIT)
        + "\n\ndef build(config):\n    model = GPT(config)\n    model.apply(model._init_weights)\n"
    )
    assert reported(source) == []


@pytest.mark.parametrize(
    "std, expected",
    [
        ("0.02 / math.sqrt(2 * config.n_layer)", None),
        ("0.02 * (2 * config.n_layer) ** -0.5", None),
        ("0.02 / math.sqrt(2) / math.sqrt(config.n_layer)", None),
        ("0.02 / (2 * (config.n_layer)) ** 0.5", None),
        ("0.02 / math.sqrt(config.n_layer)", "INI002"),
        ("0.02 * config.n_layer ** -0.5", "INI002"),
        ("0.02 / config.n_layer", None),  # 1/L small init: deliberate
        ("0.0", None),  # zero init: deliberate
    ],
)
def test_depth_factor_classification(std, expected):
    init_call = f"""
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        nn.init.normal_(p, std={std})
"""
    codes = {code for _, code in reported(gpt(init_call, GENERIC_INIT))}
    assert codes == ({expected} if expected else set())


def test_hf_pretrained_model_without_init_override_gets_the_generic_init():
    source = gpt(
        "self.post_init()",
        base="PreTrainedModel",
        super_args="config",
        imports="from transformers import PreTrainedModel",
        marks=True,
    )
    assert reported(source) == expected_findings(source)
    analysis = analyze(cst.parse_module(source))
    writer = analysis.stacks[0].writers[0]
    assert final_init(writer.weight).op.label.startswith("transformers' generic normal_")


def test_hf_conv1d_layers_with_scaled_post_init():
    init_function = """
def _init_weights(self, module):
    if isinstance(module, (nn.Linear, Conv1D)):
        module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
    for name, p in module.named_parameters():
        if name == "c_proj.weight":
            p.data.normal_(mean=0.0, std=self.config.initializer_range / math.sqrt(2 * self.config.n_layer))
"""
    source = gpt(
        "self.post_init()",
        init_function,
        linear="Conv1D",
        base="PreTrainedModel",
        super_args="config",
        imports="from transformers import PreTrainedModel\nfrom transformers.pytorch_utils import Conv1D",
    )
    assert reported(source) == []
    assert "INI002" in {
        c for _, c in reported(source.replace("math.sqrt(2 * self.config.n_layer)", "math.sqrt(self.config.n_layer)"))
    }


def test_unknown_layer_types_and_init_methods_keep_it_silent():
    """Megatron-style writers whose init comes from an argument initlint cannot see."""
    source = gpt(linear="RowParallelLinear", imports="from megatron.core.tensor_parallel import RowParallelLinear")
    assert reported(source) == []
    external = gpt(linear="Linear", imports="from .layers import Linear")
    assert reported(external) == []


def test_unfollowable_apply_keeps_it_silent():
    source = gpt("self.apply(init_fn)", imports="from .init import init_fn")
    assert reported(source) == []


def test_sequential_mlp_and_loop_over_blocks():
    """Seed 003 style: `block.mlp[2].weight` re-drawn in a loop over the blocks."""
    mlp = """
class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(config.n_embd, 4 * config.n_embd),
            nn.GELU(),
            nn.Linear(4 * config.n_embd, config.n_embd),{mlp_mark}
        )

    def forward(self, x):
        return self.net(x)
"""
    fixed = """
self.apply(self._init_weights)
scale = (2 * config.n_layer) ** -0.5
for block in self.h:
    nn.init.normal_(block.attn.c_proj.weight, mean=0.0, std=0.02 * scale)
    nn.init.normal_(block.mlp.net[2].weight, mean=0.0, std=0.02 * scale)
"""
    assert reported(gpt(fixed, GENERIC_INIT, mlp=mlp)) == []
    unscaled_mlp = fixed.replace("    nn.init.normal_(block.mlp.net[2].weight, mean=0.0, std=0.02 * scale)\n", "")
    source = gpt(unscaled_mlp, GENERIC_INIT, mlp=mlp.replace("{mlp_mark}", "  # expect: INI001"))
    assert reported(source) == expected_findings(source)


def test_post_norm_blocks_are_not_reported():
    post_norm = BLOCK.replace("x = x + self.attn(self.ln_1(x))", "x = self.ln_1(x + self.attn(x))").replace(
        "x = x + self.mlp(self.ln_2(x))", "x = self.ln_2(x + self.mlp(x))"
    )
    assert reported(gpt("self.apply(self._init_weights)", GENERIC_INIT, block=post_norm)) == []


def test_hf_style_residual_variable_and_tuple_outputs():
    attention = ATTENTION.replace(
        "        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))",
        "        attn_output = self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))\n        return attn_output, None",
    )
    block = BLOCK.replace(
        "        x = x + self.attn(self.ln_1(x))\n",
        "        residual = x\n        x = self.ln_1(x)\n        x, _ = self.attn(x)\n        x = residual + x\n",
    )
    source = gpt("self.apply(self._init_weights)", GENERIC_INIT, attention=attention, block=block, marks=True)
    assert reported(source) == expected_findings(source)


def test_xformers_style_swiglu_where_w3_is_the_output():
    mlp = """
class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.w12 = nn.Linear(config.n_embd, 8 * config.n_embd)
        self.w3 = nn.Linear(4 * config.n_embd, config.n_embd){mlp_mark}

    def forward(self, x):
        x1, x2 = self.w12(x).chunk(2, dim=-1)
        return self.w3(F.silu(x1) * x2)
"""
    init_call = "self.apply(self._init_weights)\n" + loop("pn.endswith('c_proj.weight')")
    source = gpt(init_call, GENERIC_INIT, mlp=mlp.replace("{mlp_mark}", "  # expect: INI001"))
    assert reported(source) == expected_findings(source)
    analysis = analyze(cst.parse_module(source))
    assert sorted(w.ref.path for w in analysis.stacks[0].writers) == ["attn.c_proj", "mlp.w3"]


def test_layer_scale_gated_branches_are_deliberate():
    block = (
        BLOCK.replace("x = x + self.attn(self.ln_1(x))", "x = x + self.gamma_1 * self.attn(self.ln_1(x))")
        .replace("x = x + self.mlp(self.ln_2(x))", "x = x + self.gamma_2 * self.mlp(self.ln_2(x))")
        .replace(
            "        self.mlp = MLP(config)\n",
            "        self.mlp = MLP(config)\n        self.gamma_1 = nn.Parameter(1e-5 * torch.ones(config.n_embd))\n"
            "        self.gamma_2 = nn.Parameter(1e-5 * torch.ones(config.n_embd))\n",
        )
    )
    assert reported(gpt("self.apply(self._init_weights)", GENERIC_INIT, block=block)) == []


def test_module_dict_filled_in_a_loop_with_per_layer_init():
    """torchtitan style: `self.layers[str(layer_id)] = Block(layer_id, ...)` and a per-layer std."""
    source = """
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1 = nn.Linear(dim, 4 * dim, bias=False)
        self.w2 = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        return self.w2(torch.relu(self.w1(x)))

    def init_weights(self, init_std):
        nn.init.trunc_normal_(self.w1.weight, mean=0.0, std=0.02)
        nn.init.trunc_normal_(self.w2.weight, mean=0.0, std=init_std)


class TransformerBlock(nn.Module):
    def __init__(self, layer_id, args):
        super().__init__()
        self.ffn_norm = nn.RMSNorm(args.dim)
        self.feed_forward = FeedForward(args.dim)
        if args.depth_init:
            self.weight_init_std = 0.02 / (2 * (layer_id + 1)) ** 0.5
        else:
            self.weight_init_std = 0.02 / (2 * args.n_layers) ** 0.5

    def forward(self, x):
        return x + self.feed_forward(self.ffn_norm(x))

    def init_weights(self):
        self.feed_forward.init_weights(self.weight_init_std)


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.layers = torch.nn.ModuleDict()
        for layer_id in range(args.n_layers):
            self.layers[str(layer_id)] = TransformerBlock(layer_id, args)
        self.init_weights()

    def init_weights(self):
        for layer in self.layers.values():
            layer.init_weights()

    def forward(self, x):
        for layer in self.layers.values():
            x = layer(x)
        return x
"""
    analysis = analyze(cst.parse_module(source))
    (stack,) = analysis.stacks
    assert stack.adds_per_block == 1
    assert [w.ref.path for w in stack.writers] == ["feed_forward.w2"]
    assert reported(source) == []
    unscaled = source.replace(
        "nn.init.trunc_normal_(self.w2.weight, mean=0.0, std=init_std)",
        "nn.init.trunc_normal_(self.w2.weight, mean=0.0, std=0.02)",
    )
    assert [code for _, code in reported(unscaled)] == ["INI001"]


def test_reset_parameters_override_of_a_linear_subclass_runs_from_super_init():
    layer = """
class ScaledLinear(nn.Linear):
    def __init__(self, *args, init_std=0.02, **kwargs):
        self.init_std = init_std
        super().__init__(*args, **kwargs)

    def reset_parameters(self):
        nn.init.normal_(self.weight, std=self.init_std)
"""
    attention = layer + ATTENTION.replace(
        "self.c_proj = {linear}(config.n_embd, config.n_embd)",
        "self.c_proj = ScaledLinear(config.n_embd, config.n_embd, init_std=0.02 / math.sqrt(2 * config.n_layer))",
    )
    mlp = MLP.replace(
        "self.c_proj = {linear}(4 * config.n_embd, config.n_embd)",
        "self.c_proj = ScaledLinear(4 * config.n_embd, config.n_embd, init_std=0.02 / math.sqrt(config.n_layer))",
    )
    source = gpt(attention=attention, mlp=mlp)
    analysis = analyze(cst.parse_module(source))
    stds = {w.ref.path: final_init(w.weight).std.describe() for w in analysis.stacks[0].writers}
    assert stds == {"attn.c_proj": "0.0141421/sqrt(n_layer)", "mlp.c_proj": "0.02/sqrt(n_layer)"}
    assert [code for _, code in reported(source)] == ["INI002"]


def test_llm_c_style_flag_read_in_a_conditional_expression():
    attention = ATTENTION.replace("{attn_mark}\n", "{attn_mark}\n        self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1\n")
    mlp = MLP.replace("{mlp_mark}\n", "{mlp_mark}\n        self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1\n")
    init_function = """
def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        std = 0.02 if not hasattr(module, 'LLMC_RESIDUAL_SCALE_FLAG') else 0.02 / math.sqrt(2 * self.config.n_layer)
        if not hasattr(module, 'LLMC_SKIP_INIT'):
            torch.nn.init.normal_(module.weight, mean=0.0, std=std)
"""
    assert reported(gpt("self.apply(self._init_weights)", init_function, attention=attention, mlp=mlp)) == []
    skipped = attention.replace("LLMC_RESIDUAL_SCALE_FLAG", "LLMC_SKIP_INIT")
    source = gpt(
        "self.apply(self._init_weights)",
        init_function,
        attention=skipped.replace("{attn_mark}", "  # expect: INI001"),
        mlp=mlp,
    )
    assert reported(source) == expected_findings(source)  # skipped init: PyTorch's default remains


def test_norm_placement_chosen_by_an_undecided_flag_keeps_it_silent():
    """`if self.normalize_before:` (default False elsewhere): pre- or post-norm is not decidable here."""
    block = BLOCK.replace(
        "        x = x + self.attn(self.ln_1(x))\n        x = x + self.mlp(self.ln_2(x))\n",
        "        residual = x\n"
        "        if self.normalize_before:\n"
        "            x = self.ln_1(x)\n"
        "        x = residual + self.attn(x)\n"
        "        if not self.normalize_before:\n"
        "            x = self.ln_1(x)\n"
        "        residual = x\n"
        "        if self.normalize_before:\n"
        "            x = self.ln_2(x)\n"
        "        x = residual + self.mlp(x)\n"
        "        if not self.normalize_before:\n"
        "            x = self.ln_2(x)\n",
    ).replace(
        "        self.mlp = MLP(config)\n",
        "        self.mlp = MLP(config)\n        self.normalize_before = config.normalize_before\n",
    )
    assert reported(gpt("self.apply(self._init_weights)", GENERIC_INIT, block=block)) == []


def test_an_undecided_branch_that_only_adds_keeps_the_block_pre_norm():
    block = BLOCK.replace(
        "        x = x + self.attn(self.ln_1(x))\n",
        "        h = self.attn(self.ln_1(x))\n        if self.use_attention:\n            x = x + h\n",
    ).replace(
        "        self.mlp = MLP(config)\n",
        "        self.mlp = MLP(config)\n        self.use_attention = config.use_attention\n",
    )
    source = gpt("self.apply(self._init_weights)", GENERIC_INIT, block=block, marks=True)
    assert reported(source) == expected_findings(source)


def test_adaln_zero_gated_branches_are_deliberate_and_ordinary_gates_are_not():
    """DiT-style blocks: a gate the block splits off its modulation Linear multiplies each branch.
    adaLN-Zero zeroes that Linear after the generic init, so the branches start switched off: a
    deliberate scheme. Left at the generic std 0.02 the gate is O(1) at step zero (0.02 *
    sqrt(fan_in) times its input) and the writers are plain, as an adaptive norm's gates are."""
    block = """
def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, elementwise_affine=False)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, elementwise_affine=False)
        self.mlp = MLP(config)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(config.n_embd, 6 * config.n_embd))

    def forward(self, x, c):
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = self.adaLN_modulation(c).chunk(6, dim=1)
        x = x + gate_msa.unsqueeze(1) * self.attn(modulate(self.ln_1(x), shift_msa, scale_msa))
        x = x + gate_mlp.unsqueeze(1) * self.mlp(modulate(self.ln_2(x), shift_mlp, scale_mlp))
        return x
"""
    zeroed = """
        self.apply(self._init_weights)
        for block in self.h:
            nn.init.zeros_(block.adaLN_modulation[-1].weight)
            nn.init.zeros_(block.adaLN_modulation[-1].bias)
    """
    source = gpt(zeroed, GENERIC_INIT, block=block)
    analysis = analyze(cst.parse_module(source))
    assert [add.gated for add in analysis.stacks[0].adds] == [True, True]
    assert reported(source) == []
    ordinary = gpt("self.apply(self._init_weights)", GENERIC_INIT, block=block, marks=True)
    assert [add.gated for add in analyze(cst.parse_module(ordinary)).stacks[0].adds] == [False, False]
    assert reported(ordinary) == expected_findings(ordinary)


def test_children_chosen_by_an_undecided_flag_are_both_analysed():
    """`if config.stable: self.h = [PreNormBlock] else: self.h = [PostNormBlock]` (wav2vec2 style)."""
    post_norm = (
        BLOCK.replace("class Block(", "class PostNormBlock(")
        .replace("x = x + self.attn(self.ln_1(x))", "x = self.ln_1(x + self.attn(x))")
        .replace("x = x + self.mlp(self.ln_2(x))", "x = self.ln_2(x + self.mlp(x))")
    )
    source = gpt("self.apply(self._init_weights)", GENERIC_INIT, block=BLOCK + post_norm, marks=True)
    source = source.replace(
        "        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])\n",
        "        if config.stable_layer_norm:\n"
        "            self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])\n"
        "        else:\n"
        "            self.h = nn.ModuleList([PostNormBlock(config) for _ in range(config.n_layer)])\n",
    )
    analysis = analyze(cst.parse_module(source))
    assert sorted(stack.block.type_name for stack in analysis.stacks) == ["Block", "PostNormBlock"]
    assert reported(source) == expected_findings(source)


@pytest.mark.parametrize(
    "test, dead", [("pn.endswith('out_proj.weight')", True), ("pn.endswith('c_proj.weight')", False)]
)
def test_init_calls_under_a_test_that_never_passes_are_recorded_while_interpreting(test, dead):
    """The rules name the dead depth-scaled init from what the interpreter skipped, not from source text."""
    source = gpt("self.apply(self._init_weights)" + loop(test), GENERIC_INIT, marks=dead)
    analysis = analyze(cst.parse_module(source))
    assert [analysis.code(d.call) for d in analysis.dead_inits] == (
        ["torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))"] if dead else []
    )
    assert all("n_layer" in d.names for d in analysis.dead_inits)
    evidence = [step.message for f in lint_source(source, "model.py", Settings()) for step in f.evidence]
    assert any("never runs" in message for message in evidence) is dead


GUARDED_BLOCK = """
class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        with torch.device("meta"):
            self.ln_1 = nn.LayerNorm(config.n_embd)
            self.attn = CausalSelfAttention(config)
        try:
            self.ln_2 = nn.LayerNorm(config.n_embd)
            self.mlp = MLP(config)
        finally:
            self.built = True

    def forward(self, x):
        with torch.autocast(device_type="cuda", enabled=False):
            x = x + self.attn(self.ln_1(x))
        try:
            x = x + self.mlp(self.ln_2(x))
        finally:
            self.calls = 1
        return x
"""


def test_init_and_forward_read_with_and_try_blocks_alike():
    """One statement walker serves `__init__` and `forward`: layers built and residual adds made
    inside `with`/`try` blocks are seen by both, so the unscaled writers are reported."""
    source = gpt("self.apply(self._init_weights)", GENERIC_INIT, block=GUARDED_BLOCK, marks=True)
    assert reported(source) == expected_findings(source) != []
    stack = analyze(cst.parse_module(source)).stacks[0]
    assert stack.adds_per_block == 2 and sorted(w.ref.path for w in stack.writers) == ["attn.c_proj", "mlp.c_proj"]


ENTRY_POINT = """
def {name}(self{params}):
    for pn, p in self.named_parameters():
        if p.dim() == 2:
            torch.nn.init.normal_(p, mean=0.0, std={std})
        if pn.endswith("c_proj.weight"):
            torch.nn.init.normal_(p, mean=0.0, std={scaled})
"""


@pytest.mark.parametrize(
    "name, params", [("init_weights", ""), ("reset_parameters", ""), ("init_model_randomly", ", config")]
)
@pytest.mark.parametrize("scaled", [True, False])
def test_an_entry_point_no_one_in_the_file_calls_is_run_with_its_own_defaults(name, params, scaled):
    """A library model's init method for its user to call after construction (torchtitan's
    `init_weights()`, nanotron's `init_model_randomly(config)`): analysed as if called."""
    depth_std = "0.02 / math.sqrt(2 * self.config.n_layer)" if scaled else "0.02"
    init = ENTRY_POINT.format(name=name, params=params, std="0.02", scaled=depth_std)
    source = gpt("", init, marks=not scaled)
    assert reported(source) == expected_findings(source)
    analysis = analyze(cst.parse_module(source))
    via = final_init(analysis.stacks[0].writers[0].weight).op.via
    assert via[0] == f"GPT.{name}, assuming `{name}()` is called, as no caller is in this file"


ARMS = """
self.apply(self._init_weights)

def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        if self.config.init_scheme == "normal":
            torch.nn.init.normal_(module.weight, std={first})
        else:
            torch.nn.init.trunc_normal_(module.weight, std={second})
"""


@pytest.mark.parametrize(
    "first, second, reported_",
    [
        ("0.02", "0.02", True),
        ("0.02 / math.sqrt(2 * self.config.n_layer)", "0.02 / math.sqrt(2 * self.config.n_layer)", False),
        ("0.02", "0.02 / math.sqrt(2 * self.config.n_layer)", False),  # depends on the arm: undecided
    ],
)
def test_an_undecided_if_whose_arms_all_leave_the_writer_alike_is_decided(first, second, reported_):
    init_call, _, init_function = ARMS.format(first=first, second=second).partition("\ndef ")
    source = gpt(init_call, "def " + init_function, marks=reported_)
    assert reported(source) == expected_findings(source)


def test_a_certain_init_after_an_uncertain_one_decides_the_outcome():
    init = """
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if p.dim() == 2:
        torch.nn.init.normal_(p, std=0.02)

def _init_weights(self, module):
    if isinstance(module, nn.Linear) and self.config.scale_writers:
        torch.nn.init.normal_(module.weight, std=0.02 / math.sqrt(2 * self.config.n_layer))
"""
    init_call, _, init_function = init.partition("\ndef ")
    source = gpt(init_call, "def " + init_function, marks=True)
    assert reported(source) == expected_findings(source)


@pytest.mark.parametrize("exponent, reported_", [("-0.05", True), ("-0.1", True), ("-0.25", False), ("-0.5", False)])
def test_a_depth_exponent_near_zero_is_no_depth_factor(exponent, reported_):
    """`** -0.05` (a shipped typo for -0.5) leaves 0.85 of the std at 12 layers; DeepNet's -1/4 is deliberate."""
    init = f"""
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith("c_proj.weight"):
        torch.nn.init.normal_(p, mean=0.0, std=0.02 * (2 * config.n_layer) ** {exponent})
"""
    source = gpt(init, GENERIC_INIT, marks=reported_)
    assert reported(source) == expected_findings(source)
    if reported_:
        finding = lint_source(source, "model.py", Settings(select=("INI001",)))[0]
        assert "too weak for 1/sqrt(2 * n_layer)" in finding.message
        assert any("a typo for -0.5?" in step.message for step in finding.evidence)


def test_a_truncated_normal_has_the_std_the_runtime_computes():
    """One routine for the cut: the static std of `trunc_normal_(std=0.02, a=-0.04, b=0.04)` is
    0.8796 * 0.02, exactly what the runtime judges the request by."""
    from initlint.truncated_normal import truncated_normal_moments

    init_call = """
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        nn.init.trunc_normal_(p, std=0.02, a=-0.04, b=0.04)
"""
    source = gpt(init_call, GENERIC_INIT)
    analysis = analyze(cst.parse_module(source), Settings().analysis, source)
    (stack,) = analysis.stacks
    std = final_init(stack.writers[0].node.params["weight"]).std
    assert std is not None and std.is_constant
    assert std.const == pytest.approx(truncated_normal_moments(0.0, 0.02, -0.04, 0.04).std, rel=1e-12)
    assert std.const == pytest.approx(0.8796 * 0.02, rel=1e-4)


FLAG_CONFIG = """
from dataclasses import dataclass


{decorator}
class GPTConfig:
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    scaled_init: bool = {default}
"""

FLAG_INIT = """
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        torch.nn.init.normal_(p, std=0.02)
        if config.scaled_init:
            torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
"""


@pytest.mark.parametrize(
    "decorator, default, unscaled",
    [
        ("@dataclass", "True", False),
        ("@dataclass", "False", True),  # the default config leaves the writers at 0.02
        ("@dataclass(frozen=True)", "False", True),
        ("", "False", False),  # a plain class's attribute may be set per instance: undecided
    ],
)
def test_a_dataclass_config_flag_is_decided_by_its_default(decorator, default, unscaled):
    source = gpt(FLAG_INIT, marks=unscaled).replace(
        "class GPT(nn.Module):\n    def __init__(self, config):",
        "class GPT(nn.Module):\n    def __init__(self, config: GPTConfig):",
    )
    source += FLAG_CONFIG.format(decorator=decorator, default=default)
    assert "config: GPTConfig" in source
    assert reported(source) == expected_findings(source)
    if unscaled:  # the depth stays the symbol it is named by, not the default's number
        finding = lint_source(source, "model.py", Settings(select=("INI001",)))[0]
        assert "1/sqrt(2 * n_layer)" in finding.message


SKIPPING_LOOP = """
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
for pn, p in self.named_parameters():
    if {skip}:
        continue
    torch.nn.init.normal_(p, std=0.02)
"""


@pytest.mark.parametrize(
    "skip, overwritten",
    [
        ("pn.endswith('c_proj.weight')", False),
        ("p.dim() < 2 or 'c_proj' in pn", False),
        ("pn.endswith('c_fc.weight')", True),  # the generic pass overwrites the scaled writers
        ("p.dim() < 2", True),
    ],
)
def test_continue_ends_the_pass_of_a_parameter_loop(skip, overwritten):
    source = gpt(SKIPPING_LOOP.format(skip=skip), marks=overwritten)
    assert reported(source) == expected_findings(source)


BUILDER_IDIOM = Path(__file__).resolve().parent / "idioms" / "residual_wrapper_builder" / "bad.py"


def test_a_builder_function_no_one_calls_is_a_root_with_its_own_stack():
    source = BUILDER_IDIOM.read_text(encoding="utf-8")
    analysis = analyze(cst.parse_module(source))
    (stack,) = analysis.stacks
    assert stack.root.cls is None and stack.depth.atom_names() == ("depth",) and stack.adds_per_block == 2
    assert sorted(writer.ref.display for writer in stack.writers) == ["0.fn.2", "1.fn.2"]
    # A caller in the file decides the arguments: that is the caller's model, not a guess.
    called = source + "\n\nMODEL = mlp_mixer(depth=24)\n"
    assert analyze(cst.parse_module(called)).stacks == []
