"""Evidence that idiom pairs cannot show (they compare lines and codes only): what a finding says
the writer's init is, where that depends on following names through the checked file's project."""

from __future__ import annotations

from pathlib import Path

from initlint.config import Settings
from initlint.engine import lint_file

IDIOMS = Path(__file__).resolve().parent / "idioms"


def test_base_init_called_through_a_project_class_is_the_generic_init():
    # `from ...modeling_utils import PreTrainedModel` inside a `transformers` package: the base the
    # registry knows, found through the project, keeps the method named after it.
    model = IDIOMS / "base_init_called_through_class/bad/transformers/models/mixer/modeling_mixer.py"
    (finding,) = lint_file(model, Settings(select=("INI001",)))
    assert "ends with transformers' generic normal_(std=config.initializer_range)" in finding.evidence[0].message


def test_generic_init_names_the_std_field_the_config_defines():
    # transformers' generic `_init_weights` reads `initializer_range`, else `init_std`, else
    # `initializer_factor`: a config with only `init_std` is drawn from that.
    findings = lint_file(IDIOMS / "generic_init_std_named_by_config/bad.py", Settings(select=("INI001",)))
    assert findings and all(
        finding.message.endswith("init std init_std has no depth factor 1/sqrt(2 * depth)") for finding in findings
    )
    assert all("generic normal_(std=config.init_std)" in finding.evidence[0].message for finding in findings)


SPLIT_PARAMETER = """
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w_in = nn.Parameter(torch.empty(dim, 4 * dim))
        self.w_out = nn.Parameter(
            torch.empty(4 * dim, dim)
        )
        nn.init.normal_(self.w_in, std=0.02)
        nn.init.normal_(self.w_out, std=0.02)

    def forward(self, x):
        return torch.relu(x @ self.w_in) @ self.w_out


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = FeedForward(dim)

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Model(nn.Module):
    def __init__(self, dim=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""


def test_a_parameter_writer_is_reported_on_the_statement_that_makes_it(tmp_path):
    # As a layer's finding stands on `self.proj = nn.Linear(...)`, a bare parameter's stands on
    # `self.w_out = nn.Parameter(`, not on the factory call a line below it.
    path = tmp_path / "model.py"
    path.write_text(SPLIT_PARAMETER)
    (finding,) = lint_file(path, Settings(select=("INI001",)))
    assert (finding.line, finding.column) == (10, 9)
    assert "`blocks.*.ff.w_out`" in finding.message


def test_a_writer_left_as_torch_empty_shows_the_init_that_leaves_it_out():
    # What tells an init that forgets the writer from weights a checkpoint fills: the model's
    # own init code draws another parameter allocated alike.
    findings = lint_file(IDIOMS / "empty_writer_left_by_own_init/bad.py", Settings(select=("INI001",)))
    assert [finding.message.endswith("is left uninitialised") for finding in findings] == [True, True]
    drawn = [step.message for finding in findings for step in finding.evidence if "own init code" in step.message]
    assert (
        drawn
        == [
            "the model's own init code draws `pos.W_pos` (also made with torch.empty) with normal_(std=0.02) here; "
            "none draws the writer"
        ]
        * 2
    )


EXPERTS_ADDING_THEMSELVES = """
import torch
import torch.nn as nn


class Experts(nn.Module):
    def __init__(self, dim, n_experts=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.gate = nn.Linear(dim, n_experts)
        self.w_in = nn.Parameter(torch.randn(n_experts, 4 * dim, dim) * 0.02)
        self.w_out = nn.Parameter(torch.randn(n_experts, dim, 4 * dim) * 0.02)

    def forward(self, x):
        t = self.norm(x)
        g = self.gate(t).softmax(-1)
        h = torch.einsum("eck,bk->bec", self.w_in, t).relu()
        t = torch.einsum("eck,bek->bec", self.w_out, h)
        t = torch.einsum("bec,be->bc", t, g)
        return x + t


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = Experts(dim)

    def forward(self, x):
        return self.mlp(x)


class Model(nn.Module):
    def __init__(self, dim=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
"""


def test_a_matrix_of_the_module_that_adds_is_named_under_that_module(tmp_path):
    # The experts module adds its own output back (`return x + t`) and the block calls it as
    # `self.mlp(x)`: its matrix is `mlp.w_out`, not `mlp..w_out`.
    path = tmp_path / "model.py"
    path.write_text(EXPERTS_ADDING_THEMSELVES)
    (finding,) = lint_file(path, Settings(select=("INI001",)))
    assert finding.message.startswith("residual writer `blocks.*.mlp.w_out` init std 0.02")
