"""`--plot`: the depth profile read from a real runtime report, and the figure itself."""

from __future__ import annotations

import sys

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import verify  # noqa: E402
from initlint.runtime.plot import MISSING_MATPLOTLIB, PlotUnavailable, depth_profile, plot_reports  # noqa: E402
from measurement_models import TinyConfig, TinyGPT  # noqa: E402


@pytest.fixture(scope="module")
def divided_report() -> dict:
    torch.manual_seed(0)
    config = TinyConfig(n_layer=3, runtime_divisor=2.0)
    return verify(lambda: TinyGPT(config)).to_dict()["models"][0]


def test_depth_profile_shows_the_runtime_factor_against_the_policy(divided_report):
    profile = depth_profile(divided_report)
    labels = [series.label for series in profile.writers_observed]
    assert labels == ["h.*.attn.c_proj.weight observed", "h.*.mlp.c_proj.weight observed"]
    expected_std = 0.02 / 6**0.5
    for expected, observed in zip(profile.writers_expected, profile.writers_observed):
        assert expected.depths == observed.depths == [0, 1, 2]
        assert expected.values == pytest.approx([expected_std] * 3)
        assert observed.values == pytest.approx([expected_std / 2] * 3, rel=0.08)  # divided again at run time
    assert profile.stream_observed.depths == profile.stream_expected.depths == [0, 1, 2, 3]
    # The branches are half as strong as expected: the stream gains less variance than the reference.
    observed_gain = profile.stream_observed.values[-1] - profile.stream_observed.values[0]
    expected_gain = profile.stream_expected.values[-1] - profile.stream_expected.values[0]
    assert expected_gain > 2 * observed_gain


def test_missing_matplotlib_is_one_clear_line(divided_report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PlotUnavailable) as raised:
        plot_reports([divided_report], "unused.png")
    assert str(raised.value) == MISSING_MATPLOTLIB == "--plot needs matplotlib: pip install 'initlint[plot]'"


def test_nothing_measured_is_refused():
    with pytest.raises(ValueError, match="nothing to plot"):
        plot_reports([{"model": "empty", "rows": [], "stream_variance": []}], "unused.png")


def test_figure_is_written(divided_report, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "depth.png"
    assert plot_reports([divided_report, divided_report], str(target)) == str(target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_axes_a_reader_can_trust(divided_report):
    pytest.importorskip("matplotlib")
    from matplotlib.ticker import MaxNLocator

    from initlint.runtime.plot import draw

    profile = depth_profile(dict(divided_report, built_by="build_model"))
    # The attention and MLP writers expect the same std: one expected curve, not two on top.
    [expected] = profile.expected_curves()
    assert expected.label == "expected (h.*.attn.c_proj.weight, h.*.mlp.c_proj.weight)"
    figure = draw([profile])
    writer_axis, stream_axis = figure.axes
    assert writer_axis.get_title() == "TinyGPT (built by build_model()): residual writers"
    for axis in (writer_axis, stream_axis):
        assert axis.get_yscale() == "linear" and axis.get_ylim()[0] == 0
        locator = axis.xaxis.get_major_locator()
        assert isinstance(locator, MaxNLocator) and all(tick == int(tick) for tick in axis.get_xticks())
    # The tolerance band spans the policy's +-10% around the expected std.
    [band] = writer_axis.collections
    low, high = band.get_paths()[0].vertices[:, 1].min(), band.get_paths()[0].vertices[:, 1].max()
    assert low == pytest.approx(0.9 * expected.values[0]) and high == pytest.approx(1.1 * expected.values[0])
