"""Idempotency, meta parity and clone checks on real small models."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from initlint.runtime.checks import (  # noqa: E402
    check_idempotency,
    check_meta_parity,
    clone_findings,
    compare_distributions,
    find_clones,
    idempotency_findings,
    init_entry_point,
    meta_parity_findings,
)
from initlint.runtime.effective import effect_findings, forward_measurements, judge_effects  # noqa: E402
from initlint.runtime.probe import token_probe  # noqa: E402
from initlint.runtime.stats import tensor_stats  # noqa: E402
from initlint.runtime.stepzero import step_zero_findings, step_zero_loss  # noqa: E402
from measurement_models import (  # noqa: E402
    ClonedBlocksGPT,
    CompoundingGPT,
    LostBufferGPT,
    PerLayerGPT,
    TinyGPT,
    TruncatedGPT,
    UntiedMetaGPT,
    ZeroWriterGPT,
    residual_writers,
)


def _built(model_class):
    torch.manual_seed(0)
    return model_class()


def test_correct_model_passes_every_check():
    model = _built(TinyGPT)
    assert idempotency_findings(check_idempotency(model)) == []
    assert meta_parity_findings(check_meta_parity(TinyGPT)) == []
    assert clone_findings(find_clones(model)) == []


def test_init_that_compounds_when_called_twice_gives_one_result_with_numbers():
    result = check_idempotency(_built(CompoundingGPT))
    assert result.entry_point == "init_weights()"
    assert sorted(change.name for change in result.changes) == sorted(
        f"h.{index}.{branch}.c_proj.weight" for index in range(4) for branch in ("attn", "mlp")
    )
    for change in result.changes:
        assert change.std_ratio == pytest.approx(1 / 8**0.5, rel=1e-3)  # rescaled by 1/sqrt(2L) once more
    findings = idempotency_findings(result)
    assert len(findings) == 1 and findings[0]["code"] == "INI104"
    assert "calling init_weights() a second time changes 8 parameter(s)" in findings[0]["message"]
    assert "(0.354x" in findings[0]["message"]


def test_state_lost_on_the_meta_path_gives_one_result():
    result = check_meta_parity(LostBufferGPT)
    assert result.lost_buffers == ["positions"] and not result.untouched and not result.lost_ties
    findings = meta_parity_findings(result)
    assert len(findings) == 1 and findings[0]["code"] == "INI105"
    assert "buffers not recomputed: positions" in findings[0]["message"]


def test_tie_lost_on_the_meta_path_is_reported():
    result = check_meta_parity(UntiedMetaGPT)
    assert result.lost_ties == [("lm_head.weight", "wte.weight")]
    assert "weight ties lost: lm_head.weight = wte.weight" in meta_parity_findings(result)[0]["message"]


class _GainGPT(TinyGPT):
    """A gain set in `__init__` only: the public init never writes it."""

    def __init__(self) -> None:
        super().__init__()
        self.gain = nn.Parameter(torch.ones(self.config.n_embd))


def test_parameter_the_init_never_writes_is_reported_with_its_size():
    result = check_meta_parity(_GainGPT)
    assert result.untouched == {"gain": 64}
    assert "1 parameter(s) never written: gain (64 elements)" in meta_parity_findings(result)[0]["message"]


def test_cloned_blocks_give_one_result_naming_the_copies():
    groups = find_clones(_built(ClonedBlocksGPT))
    assert (
        "h.0.attn.c_attn.weight",
        "h.1.attn.c_attn.weight",
        "h.2.attn.c_attn.weight",
        "h.3.attn.c_attn.weight",
    ) in groups
    # The writers are redrawn by the init, and constant norms are legitimately equal.
    assert not any("c_proj.weight" in name or "ln_" in name for group in groups for name in group)
    findings = clone_findings(groups)
    assert len(findings) == 1 and findings[0]["code"] == "INI106"
    assert findings[0]["message"].startswith("6 group(s) of parameters start with identical values")


def test_entry_points_in_order_of_preference():
    class ResetOnly(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def reset_parameters(self) -> None:
            self.proj.reset_parameters()

    class PerModule(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def _init_weights(self, module: nn.Module) -> None:
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    assert init_entry_point(TinyGPT())[:1] + init_entry_point(TinyGPT())[2:] == ("init_weights()", True)
    assert init_entry_point(ResetOnly()).description == "reset_parameters()"
    assert init_entry_point(PerModule()).description == "apply(_init_weights)"
    assert not init_entry_point(PerModule()).complete
    assert init_entry_point(nn.Sequential(nn.Linear(2, 2))) is None
    assert check_idempotency(nn.Sequential(nn.Linear(2, 2))).entry_point is None


def test_distribution_comparison_sees_constants_and_noise_correctly():
    torch.manual_seed(0)
    before = {"norm": tensor_stats(torch.ones(8)), "proj": tensor_stats(torch.randn(4096))}
    redrawn = {"norm": tensor_stats(torch.ones(8)), "proj": tensor_stats(torch.randn(4096))}
    assert compare_distributions(before, redrawn) == []
    changed = compare_distributions(
        before, {"norm": tensor_stats(torch.zeros(8)), "proj": tensor_stats(torch.randn(4096) * 2)}
    )
    assert [change.name for change in changed] == ["norm", "proj"]
    assert changed[0].description == "constant 1 became constant 0"
    assert changed[1].std_ratio == pytest.approx(2.0, rel=0.05) and changed[1].z > 20


class _MaskedModel(nn.Module):
    """Integer and boolean buffers, recomputed by `reset_parameters` (so meta parity holds)."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("mask", torch.ones(4, 4, dtype=torch.bool).tril())
        self.register_buffer("codes", torch.arange(4, dtype=torch.int8))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.normal_(self.proj.weight, std=0.02)
        nn.init.zeros_(self.proj.bias)
        self.mask.copy_(torch.ones(4, 4, dtype=torch.bool).tril())
        self.codes.copy_(torch.arange(4, dtype=torch.int8))


def test_small_integer_and_mask_buffers_survive_the_sentinels_and_the_callers_rng_is_kept():
    model = _built(TinyGPT)
    torch.manual_seed(1)
    expected_next = torch.rand(3)
    torch.manual_seed(1)
    assert check_meta_parity(_MaskedModel).ok
    check_idempotency(model)
    assert torch.equal(torch.rand(3), expected_next)


@pytest.mark.parametrize("variant", [TinyGPT, ZeroWriterGPT, PerLayerGPT, TruncatedGPT])
def test_correct_init_schemes_give_no_measurement_finding(variant):
    model = _built(variant)
    writers = residual_writers(model)
    expected = {
        writer: model.layer_writer_std(int(writer.split(".")[1])) if variant is PerLayerGPT else model.writer_std()
        for writer in writers
    }
    effects, stream = forward_measurements(model, writers, token_probe(model))
    findings = (
        idempotency_findings(check_idempotency(model))
        + meta_parity_findings(check_meta_parity(variant))
        + clone_findings(find_clones(model))
        + effect_findings(judge_effects(effects, expected))
        + step_zero_findings(step_zero_loss(model))
    )
    assert findings == []
    assert len(stream) == model.config.n_layer + 1


class _NanoStyleGPT(TinyGPT):
    """Correct, nanoGPT style: `apply(_init_weights)` then the writers scaled in `__init__`; no public init."""

    init_weights = None  # type: ignore[assignment]

    def initialise(self) -> None:
        self.apply(self._init_weights)
        for name, parameter in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(parameter, 0.0, self.writer_std())


class _ShrinkingHookGPT(_NanoStyleGPT):
    """Its `_init_weights` rescales in place what it does not redraw: every call halves the norm gains."""

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.LayerNorm):
            module.weight.data.mul_(0.5)  # meant as "gains start at 0.5"
        else:
            super()._init_weights(module)


def test_per_module_hook_is_checked_against_itself_not_against_the_whole_init():
    assert idempotency_findings(check_idempotency(_built(_NanoStyleGPT))) == []
    parity = check_meta_parity(_NanoStyleGPT)
    assert parity.ok and parity.skipped.startswith("no public init") and meta_parity_findings(parity) == []
    result = check_idempotency(_built(_ShrinkingHookGPT))
    assert result.entry_point == "apply(_init_weights) (twice vs once)"
    assert result.changes and all(".ln_" in change.name or change.name.startswith("ln_f") for change in result.changes)
    assert all(change.description == "constant 0.25 became constant 0.125" for change in result.changes)
