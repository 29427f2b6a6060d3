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
from dataclasses import replace
from typing import Any, Callable, Iterator, Mapping, Sequence

from initlint.config import Settings, is_enabled
from initlint.files import UsageError
from initlint.findings import Evidence, Finding
from initlint.runtime.options import DEFAULT_TIMEOUT, Options
from initlint.runtime.policy import Policy, PolicyError
from initlint.runtime.report import name_pattern
from initlint.safety import read_regular_file

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


# -- settings ----------------------------------------------------------------------------------

_TABLE_KEYS: dict[str, type | tuple[type, ...]] = {
    "policy": str,
    "timeout": (int, float),
    "memory-limit": int,
    "device": str,
    "materialize": bool,
    "model": str,
    "config": str,
    "factory": str,
    "input-shape": str,
}


def runtime_options(args: argparse.Namespace, table: Mapping[str, Any]) -> Options:
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
    return Options(
        policy=policy,
        timeout=timeout,
        memory_limit_mb=memory,
        device=pick("device", "device", "cpu"),
        materialize=bool(pick("materialize", "materialize", False)),
        model=pick("model", "model"),
        config=pick("model_config", "config"),
        factory=pick("factory", "factory"),
        input_shape=tuple(_parse_shape(shape)) if shape else None,
    )


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


# -- usage errors ------------------------------------------------------------------------------


def check_targets(files: Sequence[str], options: Options) -> None:
    """`--model` and `--factory` name things that exist, else one UsageError naming what does
    (read from the source text: the parent process never imports the user's code)."""
    if options.factory:
        _check_factory(options.factory)
    elif options.model:
        defined = {name: path for path in model_files(files, None) for name in top_level_names(path)}
        if options.model not in defined:
            classes = sorted(name for name in defined if name[:1].isupper())
            raise UsageError(
                f"--model {options.model}: no class or factory of that name in the checked files "
                f"(model classes found: {', '.join(classes) or 'none'})"
            )


def _check_factory(spec: str) -> None:
    target, sep, attribute = spec.rpartition(":")
    if not sep or not target or not attribute:
        raise UsageError(f"--factory {spec!r}: expected FILE.py:CALLABLE or PKG.MODULE:CALLABLE")
    path = target if target.endswith(".py") or os.sep in target else module_file(target)
    if path is None:
        raise UsageError(f"--factory {spec!r}: no module {target} in the current folder or on sys.path")
    if not os.path.isfile(path):
        folder = os.path.dirname(path) or "."
        here = sorted(name for name in os.listdir(folder) if name.endswith(".py")) if os.path.isdir(folder) else []
        raise UsageError(
            f"--factory {spec!r}: no such file {path} (Python files in {folder}: {', '.join(here) or 'none'})"
        )
    names = top_level_names(path)
    head = attribute.split(".")[0]
    if head not in names:
        callables = sorted(name for name, kind in names.items() if kind != "name")
        raise UsageError(
            f"--factory {spec!r}: {path} defines no {head} (it defines: {', '.join(callables) or 'nothing callable'})"
        )


def _module_level(body: list) -> Iterator:
    """Statements that run at import time: the module's, and those under `if`/`try`/`with`."""
    import ast

    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (
                node.body,
                getattr(node, "orelse", []),
                getattr(node, "finalbody", []),
                *(handler.body for handler in getattr(node, "handlers", [])),
            ):
                yield from _module_level(block)


def module_file(dotted: str) -> str | None:
    """The file of `pkg.module` without importing it: the current folder, then sys.path."""
    parts = dotted.split(".")
    for folder in [os.getcwd(), *sys.path]:
        base = os.path.join(folder or ".", *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def top_level_names(path: str) -> dict[str, str]:
    """Names a module defines at its top level: `class`, `def` or `name` (assignments, imports)."""
    import ast

    try:
        tree = ast.parse(read_regular_file(path).decode("utf-8", "replace"))
    except (OSError, SyntaxError, ValueError):
        return {}
    names: dict[str, str] = {}
    for node in _module_level(tree.body):
        if isinstance(node, ast.ClassDef):
            names[node.name] = "class"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = "def"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name.split(".")[0], "name") for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update((t.id, "name") for t in targets if isinstance(t, ast.Name))
    return names


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
        reports.extend(models)
        findings.extend(to_findings(path, models, errors, files, settings))
        if show_tables:
            _print_tables(path, models, result.seconds)
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
    if getattr(args, "plot", None):
        _plot(reports, args.plot)
    return merge_findings(list(static), findings, settings)


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


# -- findings ----------------------------------------------------------------------------------

HEADLINE_CHARS = 100
_HELP = {
    "INI101": "scale the residual writers' init by 1/sqrt(N residual layers), or name the scheme with --policy",
    "INI102": "give this parameter the policy's init (or name the scheme with --policy)",
    "INI103": "initialise every parameter created with torch.empty",
    "INI104": "make the init set values (normal_, fill_) instead of rescaling what is there",
    "INI105": "initialise every parameter and buffer in the init entry point, not in __init__ only",
    "INI106": "build each block with its own constructor call instead of copying one prototype",
    "INI108": "scale either the init or the forward pass by the depth factor, not both",
}


def headline(message: str, limit: int = HEADLINE_CHARS) -> str:
    """At most `limit` characters: the first clause when it fits, never cut mid-word."""
    if len(message) <= limit:
        return message
    first = message.split("; ")[0]
    if len(first) <= limit:
        return first
    cut = first[: limit - 3].rsplit(" ", 1)[0].rstrip(",:;(")
    return cut + "..."


def display_path(path: str, files: Sequence[str]) -> str:
    """The checked file's own spelling; else relative to the current folder when inside it."""
    checked = {os.path.abspath(p): p for p in files}
    absolute = os.path.abspath(path)
    if absolute in checked:
        return checked[absolute]
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith("..") else relative


def to_findings(
    path: str, models: list[dict], errors: list[str], files: Sequence[str], settings: Settings
) -> list[Finding]:
    """Typed findings from the child's reports, at the creation of the layer they are about."""
    result: list[Finding] = []

    def add(
        code: str,
        message: str,
        where: tuple[str, int, int],
        evidence: list[Evidence],
        details: dict,
        help: str | None = None,
    ) -> None:
        finding = _finding(code, message, where, evidence, details, help, files, settings)
        if finding is not None:
            result.append(finding)

    for model in models:
        for item in model.get("findings", []):
            message = f"[{model['model']}] {item['message']}"
            where, evidence = _position(path, model, item, message, files)
            add(
                item["code"],
                item.get("headline") or message,
                where,
                evidence,
                dict(
                    item.get("details", {}),
                    model=model["model"],
                    params=item.get("params", []),
                    policy=model.get("policy"),
                ),
            )
    for error in errors:
        # The headline says what failed; help carries the exact flags to pass.
        reason, _, advice = error.partition("; pass ")
        whole = f"runtime check not run: {error}"
        add(
            "INI110",
            whole if len(whole) <= HEADLINE_CHARS else f"runtime check not run: {reason}",
            (path, 1, 1),
            [Evidence(f"runtime check not run: {error}", 1, 1, None)],
            {"error": error},
            help=f"pass {advice}" if advice else None,
        )
    return result


def _finding(
    code: str,
    message: str,
    where: tuple[str, int, int],
    evidence: list[Evidence],
    details: dict,
    help: str | None,
    files: Sequence[str],
    settings: Settings,
) -> Finding | None:
    """One typed finding at `where`, or None when its rule is unknown or not enabled for the file."""
    from initlint.engine import finding_of
    from initlint.rules import rule_by_code

    rule = rule_by_code(code)
    target = display_path(where[0], files)
    if rule is None or not is_enabled(rule.code, rule.default_enabled, settings, target):
        return None
    steps = tuple(Evidence(e.message, e.line, e.column, None if e.path == target else e.path) for e in evidence)
    return finding_of(
        rule,
        target,
        headline(message),
        (where[1], where[2], where[1], where[2]),
        details,
        evidence=steps,
        help=help or _HELP.get(code),
    )


def _position(path: str, model: dict, item: dict, message: str, files: Sequence[str]):
    """Where a runtime finding is reported, and its evidence: the measured result, the init op."""
    created, source = item.get("created"), item.get("source")
    if created:
        where = (created[0], int(created[1]), int(created[2]))
    elif source:
        where = (source[0], int(source[1] or 1), 1)
    elif model.get("source_file"):
        where = (model["source_file"], int(model.get("class_line") or 1), 1)
    else:
        where = (path, 1, 1)
    evidence = [Evidence(f"measured: {message}", where[1], where[2], display_path(where[0], files))]
    if source:
        requested = item.get("details", {}).get("requested")
        what = f"the init asks for {requested} here" if requested else "the init op that decides it"
        evidence.append(Evidence(what, int(source[1] or 1), 1, display_path(source[0], files)))
    return where, evidence


def merge_findings(static: list[Finding], runtime: list[Finding], settings: Settings) -> list[Finding]:
    """`# noqa` for runtime findings (and INI904 no longer calls their codes unused), then a
    runtime finding on a writer a static finding reports becomes evidence of that finding."""
    runtime, static = _apply_noqa(runtime, static, settings)
    merged = list(static)
    for finding in runtime:
        layers = {name_pattern(name).rpartition(".")[0] for name in finding.details.get("params", [])}
        # Static rules are INI0xx; tool problems (INI9xx) carry no writer to merge with.
        matches = [
            i
            for i, other in enumerate(merged)
            if other.path == finding.path and other.code.startswith("INI0") and layers & _static_layers(other)
        ]
        if not matches:
            merged.append(finding)
            continue
        for index in matches:
            other = merged[index]
            details = dict(other.details, runtime=dict(finding.details, code=finding.code))
            # The measurement is about this writer: shown at the static finding's own position.
            measured = replace(finding.evidence[0], line=other.line, column=other.column, path=None)
            merged[index] = replace(
                other, evidence=other.evidence + (measured,) + finding.evidence[1:], details=details
            )
    return sorted(merged, key=Finding.sort_key)


def _static_layers(finding: Finding) -> set[str]:
    """The layers a static finding is about, from its details: `layer`, and `layers` (every
    layer its message names, such as the one INI001's misdirected depth factor reaches instead)."""
    details = finding.details or {}
    return set(details.get("layers", ())) | ({details["layer"]} if details.get("layer") else set())


def _apply_noqa(
    runtime: list[Finding], static: list[Finding], settings: Settings
) -> tuple[list[Finding], list[Finding]]:
    from initlint import noqa

    if settings.ignore_noqa or not runtime:
        return runtime, static
    kept: list[Finding] = []
    static = list(static)
    for path in sorted({finding.path for finding in runtime}):
        try:
            index = noqa.NoqaIndex(read_regular_file(path).decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            kept.extend(f for f in runtime if f.path == path)
            continue
        kept.extend(f for f in runtime if f.path == path and not index.hides(f))
        static = _restate_unused(static, index, path, settings)
    return kept, static


def _restate_unused(static: list[Finding], index, path: str, settings: Settings) -> list[Finding]:
    """The static pass called `# noqa` codes unused that runtime findings use: say it again
    with what is still unused (or drop it)."""
    from initlint import noqa

    result = []
    for finding in static:
        directive = (
            index.directive_for(finding.line) if finding.path == path and finding.code == noqa.UNUSED_CODE else None
        )
        if directive is None or not directive.used_codes or directive.codes is None:
            result.append(finding)
            continue
        stale = set(finding.details.get("codes", ()))
        directive.used_codes |= set(directive.codes) - stale
        result.extend(
            item for item in noqa.directive_findings(index, path, settings, False, True) if item.line == directive.line
        )
    return result


def writer_agreement(path: str, model: dict) -> str:
    """A note when the static analysis and the forward pass disagree on the residual writers."""
    from initlint.runtime.report import name_pattern

    observed = {
        name_pattern(row["name"]).rpartition(".")[0]
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
