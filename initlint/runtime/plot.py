"""`--plot FILE.png`: writer std and residual-stream variance against depth, expected vs observed.

Reads only the plain report dicts (`ModelReport.to_dict()`), so it runs in the parent process
without torch. matplotlib is an optional extra, imported on first use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from initlint.runtime.policy import STD_TOLERANCE
from initlint.runtime.report import layer_index, name_pattern

MISSING_MATPLOTLIB = "--plot needs matplotlib: pip install 'initlint[plot]'"


class PlotUnavailable(ImportError):
    """matplotlib is not installed; the message says how to get it."""


@dataclass
class DepthSeries:
    label: str
    depths: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    def add(self, depth: int, value: float | None) -> None:
        if value is not None and math.isfinite(value) and value > 0:
            self.depths.append(depth)
            self.values.append(value)


@dataclass
class DepthProfile:
    model: str
    writers_expected: list[DepthSeries]
    writers_observed: list[DepthSeries]
    stream_observed: DepthSeries
    stream_expected: DepthSeries
    built_by: str = ""

    @property
    def title(self) -> str:
        return f"{self.model} (built by {self.built_by}())" if self.built_by else self.model

    def expected_curves(self) -> list[DepthSeries]:
        """Expected writer stds, one curve per distinct curve (attention and MLP writers usually
        expect the same std: drawn twice they hide each other)."""
        names: dict[tuple, list[str]] = {}
        for series in self.writers_expected:
            key = (tuple(series.depths), tuple(round(value, 12) for value in series.values))
            names.setdefault(key, []).append(series.label.removesuffix(" expected"))
        return [
            DepthSeries(f"expected ({', '.join(labels)})", list(depths), list(values))
            for (depths, values), labels in names.items()
        ]


def depth_profile(report: dict[str, Any]) -> DepthProfile:
    """Per writer kind (`h.*.attn.c_proj.weight`): expected and observed effective std per layer.

    Observed is the measured std when the model was materialised, else the traced request,
    times the runtime factor between the writer and its residual add.
    """
    expected: dict[str, DepthSeries] = {}
    observed: dict[str, DepthSeries] = {}
    for row in report.get("rows", []):
        depth = layer_index(row["name"])
        if row.get("role") != "writer" or depth is None:
            continue
        pattern = name_pattern(row["name"])
        seen = row.get("measured_std") if row.get("measured_std") is not None else row.get("requested_std")
        factor = row.get("factor")
        if seen is not None and factor is not None and math.isfinite(factor):
            seen *= abs(factor)
        expected.setdefault(pattern, DepthSeries(f"{pattern} expected")).add(depth, row.get("expected_std"))
        observed.setdefault(pattern, DepthSeries(f"{pattern} observed")).add(depth, seen)
    stream_observed, stream_expected = DepthSeries("observed"), DepthSeries("writers at expected std")
    for depth, variance in report.get("stream_variance", []):
        stream_observed.add(int(depth), variance)
    for depth, variance in report.get("expected_stream_variance", []):
        stream_expected.add(int(depth), variance)
    return DepthProfile(
        report.get("model", "model"),
        list(expected.values()),
        list(observed.values()),
        stream_observed,
        stream_expected,
        report.get("built_by", ""),
    )


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: never open a window, never need a display
        import matplotlib.pyplot as pyplot
    except ImportError:
        raise PlotUnavailable(MISSING_MATPLOTLIB) from None
    return pyplot


def plot_reports(reports: Sequence[dict[str, Any]], path: str) -> str:
    """One row of two panels per model; returns the path written."""
    profiles = [depth_profile(report) for report in reports]
    profiles = [profile for profile in profiles if profile.writers_observed or profile.stream_observed.values]
    if not profiles:
        raise ValueError("nothing to plot: no residual writers or stream variance were measured")
    pyplot = _pyplot()
    figure = draw(profiles, pyplot)
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
    return path


def draw(profiles: Sequence[DepthProfile], pyplot=None):
    """The figure: linear axes from zero (sampling noise stays small against the values), the
    policy's tolerance as a band around each expected curve, whole-number layer ticks."""
    from matplotlib.ticker import MaxNLocator

    pyplot = pyplot or _pyplot()
    figure, axes = pyplot.subplots(len(profiles), 2, figsize=(11, 3.6 * len(profiles)), squeeze=False)
    for (writer_axis, stream_axis), profile in zip(axes, profiles):
        for series in profile.expected_curves():
            writer_axis.plot(series.depths, series.values, linestyle="--", color="black", label=series.label)
            writer_axis.fill_between(
                series.depths,
                [v * (1 - STD_TOLERANCE) for v in series.values],
                [v * (1 + STD_TOLERANCE) for v in series.values],
                color="grey",
                alpha=0.2,
                label=f"tolerance +-{STD_TOLERANCE:.0%}",
            )
        for series in profile.writers_observed:
            writer_axis.plot(series.depths, series.values, marker="o", markersize=3, label=series.label)
        writer_axis.set(title=f"{profile.title}: residual writers", xlabel="layer", ylabel="effective std")
        for series, style in ((profile.stream_expected, "--"), (profile.stream_observed, "-")):
            if series.values:
                stream_axis.plot(
                    series.depths, series.values, linestyle=style, marker="o", markersize=3, label=series.label
                )
        stream_axis.set(title=f"{profile.title}: residual stream", xlabel="blocks applied", ylabel="variance")
        for axis in (writer_axis, stream_axis):
            axis.set_ylim(bottom=0)
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
            if axis.get_legend_handles_labels()[0]:
                axis.legend(fontsize="x-small")
            axis.grid(True, alpha=0.3)
    figure.tight_layout()
    return figure
