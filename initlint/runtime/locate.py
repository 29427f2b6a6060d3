"""Where each runtime finding points: the line that creates the layer it is about (for the
report's position), else the init line of its first parameter, else the class that owns it."""

from __future__ import annotations

import inspect
from typing import Any

from torch import nn

from initlint.codes import RUNTIME_CHECK_FAILED
from initlint.runtime import sites
from initlint.runtime.report import ModelReport


def mark_creation(report: ModelReport, created: dict[str, sites.Sites], checked: tuple[str, ...] = ()) -> None:
    """Each row's position: the creation of its module, or the construction in a `checked` file
    that reaches it when the module's own file is not checked (then also `layer_site`)."""
    for row in report.rows:
        found = created.get(row.name.rpartition(".")[0], ())
        site = sites.reported_site(found, checked)
        row.created = list(site) if site else None
        row.layer_site = list(found[0]) if site is not None and site != found[0] else None


def locate(report: ModelReport, model: nn.Module) -> None:
    """Findings without a source line point at the init line of their first parameter, else at
    the class that owns it."""
    sources = {row.name: row.source for row in report.rows if row.source}
    rows = {row.name: row for row in report.rows if row.created}
    modules = dict(model.named_modules())
    for finding in report.findings:
        first = next((rows[n] for n in finding.params if n in rows), None)
        if not finding.created and first is not None:
            finding.created, finding.layer_site = first.created, first.layer_site
        if finding.code == RUNTIME_CHECK_FAILED and not finding.created and report.source_file:
            # about the whole model (its forward did not run): at its class, with no init op
            finding.created = [report.source_file, report.class_line or 1, 1]
        if finding.source or finding.code == RUNTIME_CHECK_FAILED:
            continue
        for name in finding.params:
            if name in sources:
                finding.source = sources[name]
                break
            owner = modules.get(name.rpartition(".")[0])
            if owner is not None:
                path, line = class_location(type(owner))
                if path:
                    finding.source = [path, line]
                    break
        if not finding.source and report.source_file:
            finding.source = [report.source_file, report.class_line]


def class_location(cls: Any) -> tuple[str, int]:
    """(file, line) where a class (or a function) is written; ("", 0) where that is unknown."""
    try:
        return inspect.getsourcefile(cls) or "", inspect.getsourcelines(cls)[1]
    except (TypeError, OSError):
        return "", 0
