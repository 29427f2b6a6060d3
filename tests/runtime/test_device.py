"""`--device cuda`: measured where a GPU is present, a clear note where it is not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import verify  # noqa: E402

from gpt_zoo import make  # noqa: E402

HAS_CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device here: the cuda path is exercised only on a GPU")


@needs_cuda
def test_materialised_check_on_cuda_is_silent_on_a_correct_model():
    report = verify(lambda: make("gpt2"), device="cuda")
    assert report.ok, report
    assert all(row.measured_std is not None for row in report.models[0].rows if row.role == "linear")


@needs_cuda
def test_materialised_check_on_cuda_catches_the_depth_bug():
    report = verify(lambda: make("n-layer"), device="cuda")
    assert "INI101" in report.codes(), report


@pytest.mark.skipif(HAS_CUDA, reason="checks the note a machine without CUDA gives")
def test_without_cuda_the_meta_results_stand_with_a_note():
    report = verify(lambda: make("n-layer"), device="cuda")
    model = report.models[0]
    assert report.codes() == ["INI101"]
    assert any(note.startswith("--materialize skipped: the real build on cuda failed") for note in model.notes), (
        model.notes
    )
