"""`initlint check --runtime`: the options, and the findings they produce.

Importable without torch: `add_arguments` only registers options and `run_runtime` starts the
child process (`isolation.py`), where torch and the user's code are imported. The settings are
read in `options.py`, the models to build found in `targets.py`, the child's reports turned
into findings in `report_findings.py` and merged with the static ones in `merge.py`.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from typing import Callable, Sequence

from initlint import roles
from initlint.config import Settings
from initlint.files import UsageError
from initlint.findings import Finding
from initlint.runtime.merge import merge_findings
from initlint.runtime.options import DEFAULT_TIMEOUT, runtime_options
from initlint.runtime.building_blocks import building_block_files
from initlint.runtime.report_findings import display_path, to_findings
from initlint.runtime.targets import check_targets, model_files

#: Used through this module by the CLI (`runtime_options`) and the tests (`merge_findings`).
__all__ = ["add_arguments", "merge_findings", "run_runtime", "runtime_options", "writer_agreement"]


class _ConfigOrModelConfig(argparse._StoreAction):
    """`--config k=v,...` means model config values; a path still means the pyproject file.

    The CLI's `--config PYPROJECT` and the runtime's `--config n_layer=48` share one flag:
    a value with `=` that is not an existing file goes to `model_config`.
    """

    def __call__(self, parser, namespace, values, option_string=None):
        if isinstance(values, str) and "=" in values and not os.path.exists(values):
            previous = getattr(namespace, "model_config", None)
            namespace.model_config = f"{previous},{values}" if previous else values
        else:
            super().__call__(parser, namespace, values, option_string)


def add_arguments(check: argparse.ArgumentParser) -> None:
    """Register the runtime options on the `check` sub-command."""
    group = check.add_argument_group("runtime verification (needs torch: pip install 'initlint[runtime]')")
    group.add_argument(
        "--runtime", action="store_true", help="also build the model in a child process and verify its init"
    )
    group.add_argument("--device", help="where to build real tensors (default: cpu)")
    group.add_argument("--model", metavar="NAME", help="the model class to build (default: every root nn.Module class)")
    group.add_argument("--model-config", metavar="K=V,...", help="config values for the model (also: --config K=V,...)")
    group.add_argument(
        "--factory",
        metavar="FILE.py:CALLABLE",
        help="build the model with this zero-argument callable (or PKG.MODULE:CALLABLE)",
    )
    group.add_argument(
        "--materialize", action="store_true", default=None, help="also build real tensors and measure them"
    )
    group.add_argument(
        "--input-shape", metavar="N,C,...", help="probe input shape for models that do not take token ids"
    )
    group.add_argument(
        "--policy", metavar="NAME[:STD]", help="auto (default), gpt2, per-layer, small-init, zero-init, fan-in, none"
    )
    group.add_argument("--timeout", type=float, metavar="SECONDS", help=f"per model file (default {DEFAULT_TIMEOUT:g})")
    group.add_argument(
        "--memory-limit", type=int, metavar="MB", help="address-space limit of the child (default: 75%% of RAM)"
    )
    group.add_argument(
        "--plot", metavar="FILE.png", help="draw writer std and stream variance against depth (needs matplotlib)"
    )
    existing = check._option_string_actions.get("--config")
    if existing is None:
        group.add_argument("--config", dest="model_config", metavar="K=V,...", help="config values for the model")
    elif type(existing) is argparse._StoreAction:
        existing.__class__ = _ConfigOrModelConfig
        existing.help = (existing.help or "") + "; K=V,... sets the model's config values for --runtime"


# -- running -----------------------------------------------------------------------------------


def run_runtime(
    files: Sequence[str], args: argparse.Namespace, settings: Settings, static: Sequence[Finding] = ()
) -> list[Finding]:
    """Verify the models of `files` in child processes (`-j` of them at once). Returns the
    static findings merged with the runtime ones: a runtime result on a writer the static
    check already reports becomes evidence of that finding, `# noqa` applies to both."""
    options = runtime_options(args, dict(getattr(settings, "subtables", {}).get("runtime", {})))
    if importlib.util.find_spec("torch") is None:
        raise UsageError("--runtime needs torch: pip install 'initlint[runtime]'")
    check_targets(files, options)
    from initlint.runtime.isolation import default_memory_limit_mb, run_isolated

    fmt = getattr(args, "format", "text")
    show_tables = fmt == "text" and not getattr(args, "quiet", False)
    progress = _progress_printer() if sys.stderr.isatty() and fmt == "text" else None
    if options.factory:
        factory_file = options.factory.rpartition(":")[0]
        targets = [factory_file if factory_file.endswith(".py") or not files else files[0]]
    else:
        targets = model_files(files, options.model)
        if options.model is None:
            targets = _without_building_blocks(targets, settings, quiet=getattr(args, "quiet", False))
    if not targets:
        print("initlint: warning: --runtime: no file defines an nn.Module", file=sys.stderr)
        return list(static)
    # CUDA reserves far more address space than it uses: RLIMIT_AS would break its start-up,
    # so off the CPU only an explicit --memory-limit applies.
    memory = options.memory_limit_mb or (default_memory_limit_mb() if options.device == "cpu" else None)
    options.focus_files = tuple(os.path.abspath(p) for p in files if p.endswith(".py"))
    options.base_std = settings.analysis.base_std

    def verify(path: str):
        return run_isolated(options.to_spec(path), options.timeout, memory, progress)

    findings: list[Finding] = []
    reports: list[dict] = []
    for path, result in zip(targets, _map(verify, targets, getattr(args, "jobs", None) or 1)):
        models = (result.report or {}).get("models", [])
        errors = list((result.report or {}).get("errors", [])) + ([result.error] if result.error else [])
        sites = (result.report or {}).get("error_sites", {})
        reports.extend(models)
        findings.extend(to_findings(path, models, errors, files, settings, sites))
        if show_tables:
            _print_tables(path, models, result.seconds)
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
    if getattr(args, "plot", None):
        _plot(reports, args.plot)
    return merge_findings(list(static), findings, settings)


def _without_building_blocks(targets: list[str], settings: Settings, quiet: bool) -> list[str]:
    """The model files, less those whose modules the models of other checked files build (one
    line on stderr names them: building them alone could only fail, once per file)."""
    skipped = building_block_files(targets, settings)
    if skipped and not quiet:
        names = ", ".join(display_path(path, targets) for path in skipped)
        print(
            f"initlint: --runtime skipped {len(skipped)} file{'s' if len(skipped) != 1 else ''} whose modules "
            f"other checked files build ({names}); --model or --factory builds one",
            file=sys.stderr,
        )
    return [path for path in targets if path not in skipped]


def _map(function: Callable, items: list, jobs: int) -> list:
    """`function` over `items` in up to `jobs` threads (each runs one child process), in order."""
    if jobs <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(jobs, len(items))) as pool:
        return list(pool.map(function, items))


def _progress_printer() -> Callable[[str], None]:
    def show(message: str) -> None:
        sys.stderr.write(f"\r\x1b[Kinitlint runtime: {message}")
        sys.stderr.flush()

    return show


# -- output ------------------------------------------------------------------------------------


def writer_agreement(path: str, model: dict) -> str:
    """A note when the static analysis and the forward pass disagree on the residual writers."""
    from initlint.runtime.report import name_pattern

    if any(row["role"] == roles.UNOBSERVED for row in model.get("rows", [])):
        return ""  # the forward pass never ran: there are no runtime writers to compare
    observed = {
        (row.get("group") or name_pattern(row["name"])).rpartition(".")[0]
        for row in model.get("rows", [])
        if row["role"] == "writer" and row["name"].endswith("weight")
    }
    try:
        from initlint.analysis import static_summary

        with open(path, encoding="utf-8") as handle:
            summary = static_summary(handle.read())
    except Exception:  # noqa: BLE001 -- the comparison is a bonus
        return ""
    static = {w.param_pattern for w in summary.writers if w.root == model.get("model")}
    if not static or static == observed:
        return ""
    only_static, only_runtime = sorted(static - observed), sorted(observed - static)
    parts = ([f"static analysis only: {', '.join(only_static)}"] if only_static else []) + (
        [f"forward pass only: {', '.join(only_runtime)}"] if only_runtime else []
    )
    return "residual writers differ (" + "; ".join(parts) + "); the runtime verdicts follow the forward pass"


def _print_tables(path: str, models: list[dict], seconds: float) -> None:
    from initlint.runtime.report import ModelReport

    for data in models:
        report = ModelReport.from_dict(data)
        agreement = writer_agreement(path, data)
        if agreement:
            report.notes.append(agreement)
        print(f"{path}: runtime ({seconds:.1f} s) {report.summary()}\n")


def _plot(reports: list[dict], target: str) -> None:
    try:
        from initlint.runtime import plot
    except ImportError as error:
        print(f"initlint: warning: --plot unavailable ({error}); pip install 'initlint[plot]'", file=sys.stderr)
        return
    try:
        plot.plot_reports(reports, target)
    except ImportError as error:  # plot.PlotUnavailable: matplotlib missing, one line already
        print(f"initlint: warning: {error}", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 -- a figure must not cost the findings
        print(f"initlint: warning: --plot {target}: {error}", file=sys.stderr)
