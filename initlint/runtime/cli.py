"""`initlint check --runtime`: the options, and the findings they produce.

Importable without torch: `add_arguments` only registers options and `run_runtime` starts the
child process (`isolation.py`), where torch and the user's code are imported.

Settings come from the command line, over `[tool.initlint.runtime]` in pyproject.toml:

    [tool.initlint.runtime]
    policy = "gpt2"          # auto | gpt2 | per-layer | small-init | zero-init | fan-in | none [:base_std]
    timeout = 300            # seconds per model file
    memory-limit = 8000      # MB for the child process (default: 75% of physical memory)
    device = "cpu"
    materialize = false
    model = "GPT"
    config = "n_layer=4"
    factory = "model.py:build"
    input-shape = "1,3,32,32"
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from typing import Any, Callable, Mapping, Sequence

from initlint.config import Settings, is_enabled
from initlint.files import UsageError
from initlint.findings import Finding
from initlint.runtime.policy import Policy, PolicyError
from initlint.safety import read_regular_file

DEFAULT_TIMEOUT = 300.0
_MODEL_MARKERS = ("nn.Module", "Module)", "PreTrainedModel", "Module,")


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
    group.add_argument("--runtime", action="store_true", help="also build the model in a child process and verify its init")
    group.add_argument("--device", help="where to build real tensors (default: cpu)")
    group.add_argument("--model", metavar="NAME", help="the model class to build (default: every root nn.Module class)")
    group.add_argument("--model-config", metavar="K=V,...", help="config values for the model (also: --config K=V,...)")
    group.add_argument("--factory", metavar="FILE.py:CALLABLE", help="build the model with this zero-argument callable (or PKG.MODULE:CALLABLE)")
    group.add_argument("--materialize", action="store_true", default=None, help="also build real tensors and measure them")
    group.add_argument("--input-shape", metavar="N,C,...", help="probe input shape for models that do not take token ids")
    group.add_argument("--policy", metavar="NAME[:STD]", help="auto (default), gpt2, per-layer, small-init, zero-init, fan-in, none")
    group.add_argument("--timeout", type=float, metavar="SECONDS", help=f"per model file (default {DEFAULT_TIMEOUT:g})")
    group.add_argument("--memory-limit", type=int, metavar="MB", help="address-space limit of the child (default: 75%% of RAM)")
    group.add_argument("--plot", metavar="FILE.png", help="draw writer std and stream variance against depth (needs matplotlib)")
    existing = check._option_string_actions.get("--config")
    if existing is None:
        group.add_argument("--config", dest="model_config", metavar="K=V,...", help="config values for the model")
    elif type(existing) is argparse._StoreAction:
        existing.__class__ = _ConfigOrModelConfig
        existing.help = (existing.help or "") + "; K=V,... sets the model's config values for --runtime"


# -- settings ----------------------------------------------------------------------------------

_TABLE_KEYS = {"policy": str, "timeout": (int, float), "memory-limit": int, "device": str, "materialize": bool,
               "model": str, "config": str, "factory": str, "input-shape": str}


def runtime_options(args: argparse.Namespace, table: Mapping[str, Any]) -> dict[str, Any]:
    """Command line over `[tool.initlint.runtime]` over defaults, validated; UsageError otherwise."""
    for key, value in table.items():
        expected = _TABLE_KEYS.get(key)
        if expected is None:
            raise UsageError(f"[tool.initlint.runtime]: unknown key {key!r} (known: {', '.join(_TABLE_KEYS)})")
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            raise UsageError(f"[tool.initlint.runtime] {key}: wrong type {type(value).__name__}")

    def pick(name: str, key: str, default: Any = None) -> Any:
        value = getattr(args, name, None)
        return value if value is not None else table.get(key, default)

    policy_text = pick("policy", "policy")
    try:
        policy = Policy.parse(policy_text)
    except PolicyError as error:
        raise UsageError(str(error)) from None
    timeout = float(pick("timeout", "timeout", DEFAULT_TIMEOUT))
    if not timeout > 0:
        raise UsageError(f"--timeout must be positive, got {timeout:g}")
    memory = pick("memory_limit", "memory-limit")
    if memory is not None and memory < 256:
        raise UsageError(f"--memory-limit {memory} MB is too small to import torch (at least 256)")
    shape = pick("input_shape", "input-shape")
    return {
        "policy": policy.spec(), "timeout": timeout, "memory_limit_mb": memory,
        "device": pick("device", "device", "cpu"), "materialize": bool(pick("materialize", "materialize", False)),
        "model": pick("model", "model"), "config": pick("model_config", "config"), "factory": pick("factory", "factory"),
        "input_shape": _parse_shape(shape) if shape else None,
    }


def _parse_shape(text: str) -> list[int]:
    try:
        shape = [int(part) for part in str(text).replace("x", ",").split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--input-shape {text!r}: expected whole numbers like 1,3,32,32") from None
    if not shape or any(size < 1 for size in shape):
        raise UsageError(f"--input-shape {text!r}: expected positive sizes like 1,3,32,32")
    return shape


def model_files(files: Sequence[str], model: str | None) -> list[str]:
    """The checked files that define an nn.Module (and the class `model`, when given)."""
    found = []
    for path in files:
        try:
            text = read_regular_file(path).decode("utf-8", "replace")
        except OSError:
            continue
        if "class " in text and any(marker in text for marker in _MODEL_MARKERS):
            if model is None or f"class {model}" in text:
                found.append(path)
    return found


# -- running -----------------------------------------------------------------------------------

def run_runtime(files: Sequence[str], args: argparse.Namespace, settings: Settings) -> list[Finding]:
    """Verify the models of `files` in child processes; runtime findings (INI1xx) to report."""
    options = runtime_options(args, dict(getattr(settings, "subtables", {}).get("runtime", {})))
    if importlib.util.find_spec("torch") is None:
        raise UsageError("--runtime needs torch: pip install 'initlint[runtime]'")
    from initlint.runtime.isolation import default_memory_limit_mb, run_isolated

    fmt = getattr(args, "format", "text")
    show_tables = fmt == "text" and not getattr(args, "quiet", False)
    progress = _progress_printer() if sys.stderr.isatty() and fmt == "text" else None
    if options["factory"]:
        factory_file = options["factory"].rpartition(":")[0]
        targets = [factory_file if factory_file.endswith(".py") or not files else files[0]]
    else:
        targets = model_files(files, options["model"])
    if not targets:
        print("initlint: warning: --runtime: no file defines an nn.Module", file=sys.stderr)
        return []
    # CUDA reserves far more address space than it uses: RLIMIT_AS would break its start-up,
    # so off the CPU only an explicit --memory-limit applies.
    memory = options["memory_limit_mb"] or (default_memory_limit_mb() if options["device"] == "cpu" else None)
    findings: list[Finding] = []
    reports: list[dict] = []
    for path in targets:
        spec = {key: options[key] for key in ("policy", "device", "materialize", "model", "config", "factory", "input_shape")}
        spec.update(file=path, focus_files=[os.path.abspath(p) for p in files if p.endswith(".py")],
                    base_std=settings.analysis.base_std)
        result = run_isolated(spec, options["timeout"], memory, progress)
        models = (result.report or {}).get("models", [])
        errors = list((result.report or {}).get("errors", [])) + ([result.error] if result.error else [])
        reports.extend(models)
        findings.extend(to_findings(path, models, errors, files, settings))
        if show_tables:
            _print_tables(path, models, result.seconds)
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
    if getattr(args, "plot", None):
        _plot(reports, args.plot)
    return findings


def _progress_printer() -> Callable[[str], None]:
    def show(message: str) -> None:
        sys.stderr.write(f"\r\x1b[Kinitlint runtime: {message}")
        sys.stderr.flush()

    return show


def to_findings(path: str, models: list[dict], errors: list[str], files: Sequence[str], settings: Settings) -> list[Finding]:
    from initlint.rules import rule_by_code

    checked = {os.path.abspath(p): p for p in files}
    result: list[Finding] = []

    def add(code: str, message: str, where: list | None, fallback_line: int, details: dict) -> None:
        rule = rule_by_code(code)
        if rule is None:
            return
        target, line = path, fallback_line or 1
        if where and os.path.abspath(where[0]) in checked:
            target, line = checked[os.path.abspath(where[0])], int(where[1] or 1)
        else:
            if where:
                details = dict(details, source=f"{where[0]}:{where[1]}")
            line = _static_writer_line(path, details.get("params", [])) or line
        if not is_enabled(rule.code, rule.default_enabled, settings, target):
            return
        result.append(Finding(code=rule.code, name=rule.name, message=message, path=target, line=line, column=1,
                              end_line=line, end_column=1, severity=rule.severity, details=details))

    for model in models:
        own_line = model.get("class_line", 0) if os.path.abspath(model.get("source_file") or "") in checked else 0
        for item in model.get("findings", []):
            add(item["code"], f"[{model['model']}] {item['message']}", item.get("source"), own_line,
                dict(item.get("details", {}), model=model["model"], params=item.get("params", []), policy=model.get("policy")))
    for error in errors:
        add("INI110", f"runtime check not run: {error}", None, 1, {})
    return result


def _static_writer_line(path: str, params: Sequence[str]) -> int:
    """The line where the static analysis saw one of these parameters' layer created (0: none)."""
    from initlint.runtime.report import name_pattern

    try:
        from initlint.analysis import static_summary

        with open(path, encoding="utf-8") as handle:
            writers = static_summary(handle.read()).writers
    except Exception:  # noqa: BLE001 -- a better line is a bonus; the finding stands without it
        return 0
    wanted = {name_pattern(name).rpartition(".")[0] for name in params}
    return next((writer.line for writer in writers if writer.param_pattern in wanted and writer.line), 0)


def writer_agreement(path: str, model: dict) -> str:
    """A note when the static analysis and the forward pass disagree on the residual writers."""
    from initlint.runtime.report import name_pattern

    observed = {name_pattern(row["name"]).rpartition(".")[0] for row in model.get("rows", [])
                if row["role"] == "writer" and row["name"].endswith("weight")}
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
        [f"forward pass only: {', '.join(only_runtime)}"] if only_runtime else [])
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
