"""`initlint check | explain | rule | rules`: one CLI over the engine.

Exit codes: 0 nothing found (or `--exit-zero`), 1 findings, 2 a usage or configuration error, or
no file could be checked at all. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType
from typing import Sequence, TextIO

from initlint import __version__
from initlint.config import Settings, load_settings, parse_code_list, validate_codes, with_overrides
from initlint.files import UsageError, discover
from initlint.findings import Finding
from initlint.reporters import FORMATS, ReportOptions, render
from initlint.reporters import statistics as statistics_report
from initlint.rules import all_rules, rule_by_code

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {value}")
    return value


def _runtime_cli() -> ModuleType | None:
    """`initlint.runtime.cli` when this build has it; it must import without torch."""
    try:
        return importlib.import_module("initlint.runtime.cli")
    except ModuleNotFoundError as error:
        if error.name in ("initlint.runtime", "initlint.runtime.cli"):
            return None
        raise


def _add_check_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or folders (default: .)")
    selection = check.add_argument_group("rule selection (override [tool.initlint])")
    selection.add_argument("--select", type=parse_code_list, metavar="CODES", help="only these codes or prefixes (replaces the config's)")
    selection.add_argument("--extend-select", type=parse_code_list, metavar="CODES", help="also these codes, e.g. opt-in rules")
    selection.add_argument("--ignore", type=parse_code_list, metavar="CODES", help="skip these codes or prefixes (replaces the config's)")
    selection.add_argument("--extend-ignore", type=parse_code_list, metavar="CODES", help="also skip these codes")
    selection.add_argument("--ignore-noqa", action="store_true", help="report findings even where `# noqa` hides them")
    config = check.add_argument_group("configuration")
    config.add_argument("--config", metavar="PYPROJECT", help="read [tool.initlint] from this file instead of searching")
    config.add_argument("--isolated", action="store_true", help="read no pyproject.toml at all")
    output = check.add_argument_group("output")
    output.add_argument("--format", choices=FORMATS, default="text", help="default: text")
    output.add_argument("--show-source", action=argparse.BooleanOptionalAction, default=True, help="text: print the source line and a caret (default: on)")
    output.add_argument("-q", "--quiet", action="store_true", help="text: only the `path:line:col: CODE message` lines")
    output.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="auto: only on a terminal and when NO_COLOR is unset")
    output.add_argument("--statistics", action="store_true", help="print how many findings each rule produced")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    run = check.add_argument_group("run")
    run.add_argument("-j", "--jobs", type=_positive_int, metavar="N", help="check files in N processes")
    run.add_argument("--fix", action="store_true", help="apply the safe fixes, then report what is left")
    run.add_argument("--unsafe-fixes", action="store_true", help="with --fix, also apply fixes that change the model's numbers (INI002)")
    runtime = _runtime_cli()
    if runtime is not None:
        runtime.add_arguments(check)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="initlint", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--version", action="version", version=f"initlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    _add_check_arguments(commands.add_parser("check", help="lint model files or folders"))

    explain = commands.add_parser("explain", help="show the init plan initlint inferred")
    explain.add_argument("paths", nargs="+", metavar="PATH")

    rule = commands.add_parser("rule", help="show one rule's documentation")
    rule.add_argument("code")

    commands.add_parser("rules", help="list every rule, with whether it is on by default")
    return parser


def settings_for(args: argparse.Namespace) -> Settings:
    """The config file's settings with the command line on top."""
    settings = Settings() if args.isolated else load_settings(args.paths, args.config)

    def flag(name: str) -> tuple[str, ...] | None:
        value = getattr(args, name)
        return None if value is None else validate_codes(value, f"--{name.replace('_', '-')}")

    extend_select, extend_ignore = flag("extend_select"), flag("extend_ignore")
    ignore = flag("ignore")
    return with_overrides(
        settings,
        select=flag("select"),
        extend_select=None if extend_select is None else settings.extend_select + extend_select,
        ignore=(settings.ignore if ignore is None else ignore) + (extend_ignore or ()),
        ignore_noqa=args.ignore_noqa or None,
    )


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()


def _lint(files: list[str], settings: Settings, jobs: int | None):
    from initlint.engine import lint_files

    return lint_files(files, settings, jobs=jobs or 1)


def _fixer():
    """`initlint.fixes.apply_fixes`, or a one-line error when this build has no fixes."""
    try:
        from initlint.fixes import apply_fixes
    except ModuleNotFoundError as error:
        if error.name != "initlint.fixes":
            raise
        raise UsageError("--fix is not available in this build (initlint.fixes is missing)") from None
    return apply_fixes


def _run_runtime(files: list[str], args: argparse.Namespace, settings: Settings, static: list[Finding]) -> list[Finding]:
    """Runtime verification runs only when asked for (`--runtime`); it needs torch. It returns
    the static findings merged with its own (one finding per writer, `# noqa` for both)."""
    if not getattr(args, "runtime", False):
        return static
    runtime = _runtime_cli()
    return list(runtime.run_runtime(files, args, settings, static)) if runtime is not None else static


def exit_code(findings: Sequence[Finding], nothing_checked: bool, exit_zero: bool) -> int:
    if nothing_checked:
        return EXIT_ERROR
    if findings and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _report_fixes(report) -> None:
    """One stderr line per outcome of `--fix` (`initlint.fixes.FixReport`)."""
    if report.error:
        print(f"initlint: error: --fix: {report.error}", file=sys.stderr)
    for path, reason in report.skipped:
        print(f"initlint: warning: --fix: {path}: {reason}", file=sys.stderr)
    if report.fixed:
        count, files = report.fixes_applied, len(report.fixed)
        print(f"initlint: fixed {count} finding{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}", file=sys.stderr)


def run_check(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    apply_fixes = _fixer() if args.fix else None
    files = list(discover(args.paths, settings.exclude + settings.extend_exclude))
    if not files:
        print("initlint: warning: no Python files to check", file=sys.stderr)
        return EXIT_CLEAN
    result = _lint(files, settings, args.jobs)
    if apply_fixes is not None:
        _report_fixes(apply_fixes(result.findings, unsafe=args.unsafe_fixes))
        result = _lint(files, settings, args.jobs)
    findings = list(result.findings)
    findings = sorted(_run_runtime(files, args, settings, findings), key=Finding.sort_key)

    options = ReportOptions(
        show_source=args.show_source and not args.quiet,
        color=_use_color(args.color, sys.stdout),
        summary=not args.quiet,
        files_checked=len(files),
    )
    sys.stdout.write(render(args.format, findings, options))
    if args.statistics:
        # Machine-readable formats keep stdout parseable: the table goes to stderr.
        stream = sys.stdout if args.format == "text" else sys.stderr
        stream.write(statistics_report.render(findings))
    return exit_code(findings, result.nothing_checked, args.exit_zero)


def run_rules() -> int:
    rules = all_rules()
    width = max((len(rule.name) for rule in rules), default=0)
    for rule in rules:
        state = "on " if rule.default_enabled else "off"
        print(f"{rule.code}  {state}  {rule.name:<{width}}  {rule.summary}")
    return EXIT_CLEAN


def run_rule(code: str) -> int:
    rule = rule_by_code(code)
    if rule is None:
        raise UsageError(f"unknown rule {code!r}; `initlint rules` lists them")
    print(rule.documentation())
    return EXIT_CLEAN


def run_explain(args: argparse.Namespace) -> int:
    from initlint.explain import explain_files

    print(explain_files(list(discover(args.paths))), end="")
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "explain":
            return run_explain(args)
        if args.command == "rule":
            return run_rule(args.code)
        if args.command == "rules":
            return run_rules()
        parser.print_help()
        return EXIT_ERROR
    except UsageError as error:
        print(f"initlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # `initlint check | head`: the reader left; keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("initlint: interrupted", file=sys.stderr)
        return EXIT_ERROR
