"""Effective writer std and residual-stream variance, measured in a real forward pass."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from initlint.runtime.effective import (  # noqa: E402
    effect_findings,
    forward_measurements,
    judge_effects,
    stream_variance,
    stream_variance_as_expected,
    writer_effects,
    writer_module,
)
from initlint.runtime.probe import block_container, token_probe  # noqa: E402
from measurement_models import TinyConfig, TinyGPT, residual_writers  # noqa: E402


def _expected(model: TinyGPT) -> dict[str, float]:
    return {writer: model.writer_std() for writer in residual_writers(model)}


def test_correct_model_sees_its_weight_std_and_gives_nothing():
    torch.manual_seed(0)
    model = TinyGPT()
    effects = writer_effects(model, residual_writers(model), token_probe(model))
    assert [effect.writer for effect in effects] == residual_writers(model)
    for effect in effects:
        assert effect.runtime_factor == pytest.approx(1.0, abs=1e-9)
        assert effect.effective_std == pytest.approx(model.writer_std(), rel=0.05)
    assert effect_findings(judge_effects(effects, _expected(model))) == []


def test_runtime_division_on_top_of_a_scaled_init_gives_one_result_with_numbers():
    torch.manual_seed(0)
    model = TinyGPT(TinyConfig(n_layer=2, runtime_divisor=2.0))  # writers 0.02/sqrt(4), then / 2 again
    effects = writer_effects(model, residual_writers(model), token_probe(model))
    for effect in effects:
        assert effect.runtime_factor == pytest.approx(0.5, rel=1e-6)
        assert effect.effective_std == pytest.approx(model.writer_std() / 2, rel=0.05)
    findings = effect_findings(judge_effects(effects, _expected(model)))
    assert len(findings) == 1 and findings[0]["code"] == "INI108"
    assert sorted(findings[0]["params"]) == sorted(f"{writer}.weight" for writer in residual_writers(model))
    assert "runtime factor 0.5" in findings[0]["message"] and "expected 0.01" in findings[0]["message"]
    assert "4 residual writer(s)" in findings[0]["message"]


def test_runtime_scaling_of_an_unscaled_init_is_what_the_policy_wants():
    # u-muP style: unit-scale init, the depth factor applied in the forward pass.
    torch.manual_seed(0)
    model = TinyGPT(TinyConfig(n_layer=2, runtime_divisor=2.0))
    with torch.no_grad():
        for writer in residual_writers(model):
            model.get_submodule(writer).weight.normal_(0.0, 0.02)
    effects = writer_effects(model, residual_writers(model), token_probe(model))
    assert effect_findings(judge_effects(effects, {writer: 0.01 for writer in residual_writers(model)})) == []


class _AttentionBlock(nn.Module):
    """nn.MultiheadAttention (its out_proj hooks never fire) plus a LayerScale-gained MLP."""

    def __init__(self, width: int, gain: float, alpha: float) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, 4, batch_first=True)
        self.fc = nn.Linear(width, 2 * width)
        self.proj = nn.Linear(2 * width, width)
        self.gain = nn.Parameter(torch.full((width,), gain))
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        attended, _ = self.attn(h, h, h, need_weights=False)
        x = torch.add(x, attended, alpha=self.alpha)
        return x + self.gain * self.proj(torch.relu(self.fc(h)))


class _Encoder(nn.Module):
    def __init__(self, gain: float = 1.0, alpha: float = 1.0, layers: int = 3, width: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, width)
        self.heads = nn.ModuleList(nn.Linear(width, 2) for _ in range(2))  # a shorter list: not the stack
        self.layers = nn.ModuleList(_AttentionBlock(width, gain, alpha) for _ in range(layers))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return x


def test_multihead_attention_writer_and_per_channel_gains_are_measured():
    torch.manual_seed(0)
    model = _Encoder(gain=0.1, alpha=0.25)
    writers = [f"layers.{index}.{name}" for index in range(3) for name in ("attn.out_proj.weight", "proj")]
    effects = writer_effects(model, writers, torch.randint(0, 50, (2, 8)))
    by_name = {effect.writer: effect for effect in effects}
    assert writer_module(model, "layers.0.attn.out_proj.weight").watched is model.layers[0].attn
    assert [effect.writer for effect in effects][:2] == ["layers.0.attn.out_proj", "layers.0.proj"]
    assert by_name["layers.0.attn.out_proj"].runtime_factor == pytest.approx(0.25, rel=1e-6)
    assert by_name["layers.0.proj"].runtime_factor == pytest.approx(0.1, rel=1e-6)
    assert by_name["layers.0.attn.out_proj"].weight_numel == 32 * 32


def test_two_branches_joined_before_the_stream_are_each_measured():
    class Parallel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(16, 16)
            self.b = nn.Linear(16, 16)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + (self.a(x) * 3.0 + self.b(x) / 4.0)

    effects = writer_effects(Parallel(), ["a", "b"], torch.randn(4, 16))
    assert [round(effect.runtime_factor, 6) for effect in effects] == [3.0, 0.25]


def test_a_writer_never_added_to_a_stream_has_no_factor():
    effects = writer_effects(nn.Sequential(nn.Linear(8, 8), nn.GELU()), ["0"], torch.randn(3, 8))
    assert math.isnan(effects[0].runtime_factor)
    assert judge_effects(effects, {"0": 0.02})[0].flagged is False


def test_unknown_writer_names_are_refused():
    with pytest.raises(KeyError, match="no module or parameter named 'h.9.attn'"):
        writer_module(TinyGPT(), "h.9.attn")


def test_block_container_is_the_longest_list_of_one_class():
    assert block_container(_Encoder(layers=3))[0] == "layers"
    assert block_container(nn.Linear(2, 2)) is None


def test_stream_variance_follows_the_blocks_exactly():
    torch.manual_seed(0)
    model = TinyGPT()
    tokens = token_probe(model)
    points = stream_variance(model, tokens)
    with torch.no_grad():
        x = model.wte(tokens) + model.wpe(model.positions[: tokens.shape[1]])
        expected = [float(x.double().var())]
        for block in model.h:
            x = block(x)
            expected.append(float(x.double().var()))
    assert [point.depth for point in points] == list(range(model.config.n_layer + 1))
    assert [point.variance for point in points] == pytest.approx(expected, rel=1e-9)
    assert model.training  # measuring left the mode alone


def test_stream_variance_separates_missing_depth_scaling():
    torch.manual_seed(0)
    correct = TinyGPT(TinyConfig(n_layer=8))
    unscaled = TinyGPT(TinyConfig(n_layer=8))
    with torch.no_grad():
        for writer in residual_writers(unscaled):
            unscaled.get_submodule(writer).weight.normal_(0.0, 0.02)
    tokens = token_probe(correct)
    growth_correct = stream_variance(correct, tokens)[-1].variance / stream_variance(correct, tokens)[0].variance
    growth_unscaled = stream_variance(unscaled, tokens)[-1].variance / stream_variance(unscaled, tokens)[0].variance
    assert growth_unscaled > 1.5 * growth_correct


def test_expected_stream_curve_puts_every_writer_at_its_expected_std():
    torch.manual_seed(0)
    divided = TinyGPT(TinyConfig(n_layer=4, runtime_divisor=4.0))
    tokens = token_probe(divided)
    before = {name: tensor.clone() for name, tensor in divided.state_dict().items()}
    observed = stream_variance(divided, tokens)
    expected = stream_variance_as_expected(divided, tokens, _expected(divided))
    assert all(torch.equal(before[name], tensor) for name, tensor in divided.state_dict().items())
    added_observed = observed[-1].variance - observed[0].variance
    added_expected = expected[-1].variance - expected[0].variance
    assert added_expected > 8 * added_observed  # the branches are 4x too weak: their variance 16x
    correct = TinyGPT(TinyConfig(n_layer=4))
    as_is, as_expected = (
        stream_variance(correct, tokens),
        stream_variance_as_expected(correct, tokens, _expected(correct)),
    )
    assert [point.variance for point in as_expected] == pytest.approx([point.variance for point in as_is], rel=0.05)


def test_hugging_face_gpt2_conv1d_writers_are_measured():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=300, n_positions=64)
    model = transformers.GPT2LMHeadModel(config)
    writers = [f"transformer.h.{index}.{branch}.c_proj.weight" for index in range(2) for branch in ("attn", "mlp")]
    effects, stream = forward_measurements(model, writers, {"input_ids": token_probe(model, 1, 8)})
    # HF GPT-2 scales c_proj by 1/sqrt(2 n_layer) in its init; nothing at run time.
    for effect in effects:
        assert effect.runtime_factor == pytest.approx(1.0, abs=1e-9)
        assert effect.effective_std == pytest.approx(0.02 / 2, rel=0.1)
    assert len(stream) == 3
