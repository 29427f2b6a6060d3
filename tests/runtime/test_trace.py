"""The meta-device init trace: exact requests per storage, ties, partial writes, invisible inits."""

from __future__ import annotations

import math
import sys
import types

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from initlint.runtime.trace import requested_per_parameter, tied_groups, tracing, truncated_normal_std  # noqa: E402


def traced(build):
    with torch.device("meta"), tracing((__file__,)) as tracer:
        model = build()
    return model, {name: state for name, (state, _) in requested_per_parameter(model, tracer).items()}


def test_truncated_normal_std_is_exact():
    torch.manual_seed(0)
    sample = nn.init.trunc_normal_(torch.empty(400_000, dtype=torch.float64), std=0.02, a=-0.04, b=0.04)
    assert truncated_normal_std(0, 0.02, -0.04, 0.04) == pytest.approx(float(sample.std()), rel=5e-3)
    assert truncated_normal_std(0, 1, -2, 2) == pytest.approx(0.8796, abs=1e-4)  # the +-2 sigma factor
    assert truncated_normal_std(0, 1, -3, 3) == pytest.approx(0.9866, abs=1e-4)


def test_invisible_inits_are_recorded_with_their_numbers():
    def build():
        layer = nn.Linear(256, 64)
        nn.init.trunc_normal_(layer.weight, std=0.02, a=-0.04, b=0.04)
        nn.init.orthogonal_(layer.bias.view(8, 8), gain=2.0)
        return layer

    _, requested = traced(build)
    weight = requested["weight"]
    assert weight.kind == "trunc_normal" and weight.nominal_std == 0.02
    assert weight.std == pytest.approx(0.02 * 0.8796, rel=1e-3)
    assert requested["bias"].kind == "orthogonal" and requested["bias"].std == pytest.approx(2 / math.sqrt(8))


def test_orthogonal_std_matches_real_draws():
    torch.manual_seed(0)
    real = nn.init.orthogonal_(torch.empty(64, 256), gain=1.5)
    _, requested = traced(lambda: _with_orthogonal(nn.Linear(256, 64), 1.5))
    assert requested["weight"].std == pytest.approx(float(real.std()), rel=1e-2)


def _with_orthogonal(layer, gain):
    nn.init.orthogonal_(layer.weight, gain=gain)
    return layer


def test_references_taken_by_from_import_are_traced_and_restored():
    module = types.ModuleType("user_model_module")
    exec(
        "from torch.nn.init import trunc_normal_\ndef init(t):\n    trunc_normal_(t, std=0.5, a=-1, b=1)\n",
        module.__dict__,
    )
    sys.modules[module.__name__] = module
    original = module.trunc_normal_
    try:

        def build():
            layer = nn.Linear(4, 4)
            module.init(layer.weight)
            return layer

        _, requested = traced(build)
        assert requested["weight"].kind == "trunc_normal" and requested["weight"].nominal_std == 0.5
        assert module.trunc_normal_ is original and nn.init.trunc_normal_ is original
    finally:
        del sys.modules[module.__name__]


def test_in_place_scalar_ops_fold_and_pytorch_defaults_are_seen():
    def build():
        layer = nn.Linear(100, 10)
        layer.weight.data.normal_(0.0, 0.02)
        layer.weight.data.mul_(0.5)
        layer.weight.data.div_(2.0)
        layer.bias.data.fill_(3.0)
        layer.bias.data.add_(1.0)
        return nn.ModuleDict({"scaled": layer, "default": nn.Linear(100, 10)})

    _, requested = traced(build)
    assert requested["scaled.weight"].kind == "normal" and requested["scaled.weight"].std == pytest.approx(0.005)
    assert requested["scaled.bias"].describe() == "constant 4"
    default = requested["default.weight"]
    assert default.kind == "uniform" and default.high == pytest.approx(1 / math.sqrt(100))


def test_ties_share_one_record_and_copies_carry_the_source_distribution():
    def build():
        model = nn.ModuleDict({"emb": nn.Embedding(50, 8), "head": nn.Linear(8, 50, bias=False)})
        model["head"].weight = model["emb"].weight
        with torch.no_grad():
            model["emb"].weight.copy_(torch.randn(50, 8) * 0.02)
        return model

    model, requested = traced(build)
    assert tied_groups(model) == [["emb.weight", "head.weight"]]
    assert requested["head.weight"] == requested["emb.weight"]
    assert requested["emb.weight"].kind == "normal" and requested["emb.weight"].std == pytest.approx(0.02)


def test_partial_writes():
    def build():
        model = nn.Module()
        model.table = nn.Parameter(torch.empty(10, 4))
        model.table.data[0].zero_()
        model.emb = nn.Embedding(10, 4, padding_idx=0)  # N(0, 1) then a zeroed padding row
        model.indexed = nn.Embedding(10, 4)
        nn.init.normal_(model.indexed.weight, std=0.02)
        model.indexed.weight.data[torch.tensor([0, 3])] = 0.0
        model.masked = nn.Parameter(torch.empty(4, 4))
        model.masked.data.masked_fill_(torch.ones(4, 4, dtype=torch.bool), 1.0)
        return model

    _, requested = traced(build)
    assert requested["table"].unwritten_fraction == pytest.approx(0.9)
    assert requested["indexed.weight"].kind == "normal" and requested["indexed.weight"].std == pytest.approx(0.02)
    assert requested["masked"].kind == "unknown"  # which elements a mask writes needs values
    assert requested["emb.weight"].kind == "normal" and requested["emb.weight"].partial_fraction == pytest.approx(0.1)


def test_source_lines_point_at_the_init_call():
    def build():
        layer = nn.Linear(4, 4)
        nn.init.normal_(layer.weight, std=0.1)  # the line
        return layer

    _, requested = traced(build)
    path, line, *callers = requested["weight"].source
    lines = open(path).read().splitlines()
    assert path == __file__ and "# the line" in lines[line - 1]
    assert "model = build()" in lines[callers[0] - 1]  # who called build(), in the same file
