"""Step-zero cross-entropy against ln(vocab) on real small language models."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from initlint.runtime.stepzero import step_zero_findings, step_zero_loss  # noqa: E402
from measurement_models import StdOneEmbeddingGPT, TinyConfig, TinyGPT  # noqa: E402


def _built(model_class, config: TinyConfig | None = None):
    torch.manual_seed(0)
    return model_class(config)


def test_correct_model_sits_just_above_ln_vocab_and_gives_nothing():
    result = step_zero_loss(_built(TinyGPT))
    assert result.vocab_size == 256 and result.ln_vocab == pytest.approx(math.log(256))
    assert -0.1 < result.excess < 0.5
    assert step_zero_findings(result) == []


def test_tied_embedding_left_at_std_one_gives_one_result_with_numbers():
    result = step_zero_loss(_built(StdOneEmbeddingGPT))
    assert result.loss > result.ln_vocab + 20 and result.logit_std > 5
    findings = step_zero_findings(result)
    assert len(findings) == 1 and findings[0]["code"] == "INI107"
    assert findings[0]["params"] == ["wte.weight"]  # the head is the same tensor
    assert f"vs ln(256) = {math.log(256):.3g}" in findings[0]["message"]


@dataclass
class _Output:
    logits: torch.Tensor
    hidden: torch.Tensor


class _Wrapped(nn.Module):
    """The same model behind the output conventions language models use."""

    def __init__(self, inner: TinyGPT, style: str) -> None:
        super().__init__()
        self.inner, self.style = inner, style
        self.config = inner.config

    def forward(self, tokens: torch.Tensor):
        logits = self.inner(tokens)
        if self.style == "object":
            return _Output(logits=logits, hidden=torch.zeros(1))
        if self.style == "tuple":
            return (logits, None)
        if self.style == "dict":
            return {"loss": None, "logits": logits}
        return logits[:, [-1], :]  # nanoGPT without targets: the last position only


@pytest.mark.parametrize("style", ["object", "tuple", "dict"])
def test_logits_are_found_in_any_output_convention(style):
    plain = step_zero_loss(_built(TinyGPT))
    wrapped = step_zero_loss(_Wrapped(_built(TinyGPT), style))
    assert wrapped.loss == pytest.approx(plain.loss, rel=1e-12)


def test_last_position_logits_get_matching_targets():
    result = step_zero_loss(_Wrapped(_built(StdOneEmbeddingGPT), "last"))
    assert result.targets == 2 and result.flagged


def test_probe_length_respects_the_context():
    result = step_zero_loss(_built(TinyGPT, TinyConfig(block_size=8)), length=32)
    assert result.targets == 2 * 8


def test_models_without_vocabulary_or_logits_get_a_clear_error():
    with pytest.raises(ValueError, match="vocabulary size"):
        step_zero_loss(nn.Linear(4, 4))

    class NoLogits(TinyGPT):
        def forward(self, tokens: torch.Tensor):
            return None

    with pytest.raises(ValueError, match="no logits tensor"):
        step_zero_loss(_built(NoLogits))
