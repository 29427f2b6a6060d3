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
