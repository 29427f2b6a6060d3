"""`initlint check | explain | rule | rules`: one CLI over the engine.

Exit codes: 0 nothing found (or `--exit-zero`), 1 findings, 2 a usage or configuration error, or
no file could be checked at all. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from types import ModuleType
from typing import NoReturn, Sequence, TextIO

from initlint import __version__
from initlint.config import Settings, SettingsResolver, parse_code_list, validate_codes, with_overrides
from initlint.files import STDIN, UsageError, discover
from initlint.findings import Finding
from initlint.reporters import FORMATS, ReportOptions, render
from initlint.reporters import statistics as statistics_report
from initlint.rules import all_rules, rule_by_code
from initlint.safety import Terminated, terminate_on_signals, write_text

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake on the command line is one line (not a usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        hint = f"; `{self.prog} --help` lists the options"
        self.exit(EXIT_ERROR, f"initlint: error: {message}{hint}\n")


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
    check.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH", help="files or folders (default: .); - reads stdin"
    )
    check.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="with -: the name the source on stdin is checked under (config, per-file-ignores)",
    )
    _add_selection_arguments(check)
    _add_config_arguments(check)
    _add_output_arguments(check)
    _add_run_arguments(check)
    runtime = _runtime_cli()
    if runtime is not None:
        runtime.add_arguments(check)


def _add_selection_arguments(check: argparse.ArgumentParser) -> None:
    """Which rules run: --select, --ignore and their extend- forms, --ignore-noqa."""
    selection = check.add_argument_group("rule selection (override [tool.initlint])")
    selection.add_argument(
        "--select", type=parse_code_list, metavar="CODES", help="only these codes or prefixes (replaces the config's)"
    )
    selection.add_argument(
        "--extend-select", type=parse_code_list, metavar="CODES", help="also these codes, e.g. opt-in rules"
    )
    selection.add_argument(
        "--ignore", type=parse_code_list, metavar="CODES", help="skip these codes or prefixes (replaces the config's)"
    )
    selection.add_argument("--extend-ignore", type=parse_code_list, metavar="CODES", help="also skip these codes")
    selection.add_argument("--ignore-noqa", action="store_true", help="report findings even where `# noqa` hides them")


def _add_config_arguments(check: argparse.ArgumentParser) -> None:
    """Where the settings come from: --config, --isolated, --force-exclude."""
    config = check.add_argument_group("configuration")
    config.add_argument(
        "--config", metavar="PYPROJECT", help="read [tool.initlint] from this file instead of searching"
    )
    config.add_argument("--isolated", action="store_true", help="read no pyproject.toml at all")
    config.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply the excludes to files named on the command line too",
    )


def _add_output_arguments(check: argparse.ArgumentParser) -> None:
    """How findings are printed and what the exit status is."""
    output = check.add_argument_group("output")
    output.add_argument("--format", choices=FORMATS, default="text", help="default: text")
    output.add_argument(
        "--show-source",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="text: print the source line and a caret (default: on)",
    )
    output.add_argument("-q", "--quiet", action="store_true", help="text: only the `path:line:col: CODE message` lines")
    output.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="auto: only on a terminal and when NO_COLOR is unset",
    )
    output.add_argument("--statistics", action="store_true", help="print how many findings each rule produced")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")


def _add_run_arguments(check: argparse.ArgumentParser) -> None:
    """How the check runs: parallel jobs and the fixes (--fix, --unsafe-fixes, --diff)."""
    run = check.add_argument_group("run")
    run.add_argument("-j", "--jobs", type=_positive_int, metavar="N", help="check files in N processes")
    run.add_argument("--fix", action="store_true", help="apply the safe fixes, then report what is left")
    run.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply (with --fix) or show fixes that change the model's numbers (INI002)",
    )
    run.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff instead of writing them (exit 1 if any)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="initlint", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--version", action="version", version=f"initlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    _add_check_arguments(commands.add_parser("check", help="lint model files or folders"))

    explain = commands.add_parser("explain", help="show the init plan initlint inferred")
    explain.add_argument("paths", nargs="+", metavar="PATH")

    rule = commands.add_parser("rule", help="show one rule's documentation")
    rule.add_argument("code")

    commands.add_parser("rules", help="list every rule, with whether it is on by default")
    commands.add_parser(
        "server",
        help="a language server on stdin/stdout for editors (needs initlint[lsp])",
        description="Speak LSP on stdin/stdout: static diagnostics, quick fixes, rule docs on hover. See docs/editors.md.",
    )
    return parser


def _overlay(args: argparse.Namespace):
    """The command line on top of a config file's settings (a function: each file may have its own)."""

    def flag(name: str) -> tuple[str, ...] | None:
        value = getattr(args, name, None)
        return None if value is None else validate_codes(value, f"--{name.replace('_', '-')}")

    select, extend_select, ignore, extend_ignore = (
        flag(name) for name in ("select", "extend_select", "ignore", "extend_ignore")
    )
    force_exclude = getattr(args, "force_exclude", None)

    def overlay(settings: Settings) -> Settings:
        _check_runtime_table(settings)
        return with_overrides(
            settings,
            select=select,
            extend_select=None if extend_select is None else settings.extend_select + extend_select,
            ignore=ignore,
            extend_ignore=None if extend_ignore is None else settings.extend_ignore + extend_ignore,
            ignore_noqa=args.ignore_noqa or None,
            force_exclude=force_exclude,
        )

    return overlay


def _check_runtime_table(settings: Settings) -> None:
    """A typo under `[tool.initlint.runtime]` is an error in static runs too, not only with --runtime."""
    table = settings.subtables.get("runtime")
    runtime = _runtime_cli() if table else None
    if table and runtime is not None:
        try:
            runtime.runtime_options(argparse.Namespace(), dict(table))
        except UsageError as error:
            raise UsageError(f"{settings.config_path}: {error}") from None


def resolver_for(args: argparse.Namespace) -> SettingsResolver:
    return SettingsResolver(_overlay(args), config=args.config, isolated=args.isolated)


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()


def _stdin_name(args: argparse.Namespace) -> str:
    return args.stdin_filename or STDIN


def _lint(files: list[str], resolver: SettingsResolver, args: argparse.Namespace):
    """Each group of files under one configuration is linted with it; one merged result."""
    from initlint.engine import RunResult, lint_files
    from initlint.notebook import lint_path

    groups: dict[str, tuple[Settings, list[str]]] = {}
    for name in files:
        settings = resolver.for_path(name)
        groups.setdefault(settings.config_path, (settings, []))[1].append(name)
    merged = RunResult()
    with _progress(len(files), args) as advance:
        for settings, names in groups.values():
            result = lint_files(names, settings, jobs=args.jobs or 1, progress=advance, lint_one=lint_path)
            merged.findings.extend(result.findings)
            merged.files_checked += result.files_checked
            merged.files_not_checked += result.files_not_checked
    merged.findings.sort(key=Finding.sort_key)
    return merged


#: Fewer files than this finish before a progress bar would help.
PROGRESS_MIN_FILES = 50


def _progress(total: int, args: argparse.Namespace):
    """A progress bar on stderr for long runs: only on a terminal, only for text output."""
    from contextlib import nullcontext

    wanted = total >= PROGRESS_MIN_FILES and args.format == "text" and not args.quiet and sys.stderr.isatty()
    if not wanted:
        return nullcontext(None)
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:
        return _PlainProgress(total)
    return _RichProgress(Progress(transient=True, console=Console(stderr=True)), total)


class _PlainProgress:
    """`checked 120/2500 files` rewritten in place, when rich is not installed."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0

    def __enter__(self):
        return self.advance

    def advance(self) -> None:
        self.done += 1
        if self.done % 10 == 0 or self.done == self.total:
            sys.stderr.write(f"\rinitlint: checked {self.done}/{self.total} files")
            sys.stderr.flush()

    def __exit__(self, *exc) -> None:
        sys.stderr.write("\r\033[K")


class _RichProgress:
    def __init__(self, progress, total: int) -> None:
        self.progress, self.total = progress, total

    def __enter__(self):
        self.progress.__enter__()
        task = self.progress.add_task("checking", total=self.total)
        return lambda: self.progress.advance(task)

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)


def _fixer():
    """`initlint.fixes`, or a one-line error when this build has no fixes."""
    try:
        from initlint import fixes
    except ModuleNotFoundError as error:
        if error.name != "initlint.fixes":
            raise
        raise UsageError("--fix is not available in this build (initlint.fixes is missing)") from None
    return fixes


def _run_runtime(
    files: list[str], args: argparse.Namespace, settings: Settings, static: list[Finding]
) -> list[Finding]:
    """Runtime verification runs only when asked for (`--runtime`); it needs torch. It returns
    the static findings merged with its own (one finding per writer, `# noqa` for both)."""
    if not getattr(args, "runtime", False):
        return static
    runtime = _runtime_cli()
    modules = [name for name in files if name.endswith((".py", ".pyi"))]  # a notebook is no importable module
    if runtime is None or not modules:
        return static
    return list(runtime.run_runtime(modules, args, settings, static))


def exit_code(findings: Sequence[Finding], nothing_checked: bool, exit_zero: bool) -> int:
    if exit_zero:
        return EXIT_CLEAN
    if nothing_checked:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _report_fixes(report, verb: str = "fixed") -> None:
    """One stderr line per outcome of `--fix` (`initlint.fixes.FixReport`)."""
    if report.error:
        print(f"initlint: error: --fix: {report.error}", file=sys.stderr)
    for path, reason in report.skipped:
        print(f"initlint: warning: --fix: {path}: {reason}", file=sys.stderr)
    if report.fixed:
        count, files = report.fixes_applied, len(report.fixed)
        print(
            f"initlint: {verb} {count} finding{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )


def _split_notebooks(findings: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    from initlint.files import NOTEBOOK_SUFFIX

    notebooks = [finding for finding in findings if finding.path.endswith(NOTEBOOK_SUFFIX)]
    return [finding for finding in findings if not finding.path.endswith(NOTEBOOK_SUFFIX)], notebooks


def _apply_fixes(findings: Sequence[Finding], unsafe: bool) -> None:
    fixes = _fixer()
    plain, notebooks = _split_notebooks(findings)
    _report_fixes(fixes.apply_fixes(plain, unsafe=unsafe))
    if notebooks:
        from initlint.notebook import apply_notebook_fixes

        _report_fixes(apply_notebook_fixes(notebooks, unsafe=unsafe)[0])


def _print_diff(findings: Sequence[Finding], unsafe: bool, sources: dict[str, str]) -> bool:
    """`--diff`: every fix as a unified diff on stdout, nothing written; True if any."""
    fixes = _fixer()
    plain, notebooks = _split_notebooks(findings)
    on_disk = [finding for finding in plain if finding.path not in sources]
    report, previews = fixes.preview_fixes(on_disk, unsafe=unsafe)
    previews += _stdin_previews([f for f in plain if f.path in sources], unsafe, sources)
    if notebooks:
        from initlint.notebook import apply_notebook_fixes

        notebook_report, notebook_previews = apply_notebook_fixes(notebooks, unsafe=unsafe, write=False)
        report.skipped += notebook_report.skipped
        report.fixed.update(notebook_report.fixed)
        previews += notebook_previews
    for path, old, new in previews:
        sys.stdout.writelines(
            difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}")
        )
    _report_fixes(report, verb="would fix")
    return bool(previews)


def _stdin_previews(findings: list[Finding], unsafe: bool, sources: dict[str, str]) -> list[tuple[str, str, str]]:
    from initlint.fixes import _apply, _overlapping

    previews = []
    for path, source in sources.items():
        edits = sorted(
            (
                edit
                for finding in findings
                if finding.path == path and finding.fix and (finding.fix.safe or unsafe)
                for edit in finding.fix.edits
            ),
            key=lambda e: (e.line, e.column, e.end_line, e.end_column),
        )
        if edits and not _overlapping(edits):
            previews.append((path, source, _apply(source, edits)))
    return previews


def _lint_stdin(args: argparse.Namespace, resolver: SettingsResolver) -> tuple[list[Finding], dict[str, str], bool]:
    """`initlint check -`: the source on stdin, checked as if it were `--stdin-filename`."""
    from initlint.engine import decode, lint_source, one_line, tool_finding
    from initlint.files import force_excluded

    name = _stdin_name(args)
    settings = resolver.for_path(name)
    if args.fix:
        raise UsageError("--fix cannot write back to stdin; use --diff")
    data = sys.stdin.buffer.read()
    if settings.force_exclude and force_excluded(name, settings):
        return [], {}, False
    try:
        source = decode(data)
    except (SyntaxError, ValueError, LookupError) as error:  # bad coding cookie, bad bytes
        return [tool_finding("INI901", name, f"cannot decode: {one_line(str(error))}")], {}, True
    findings = lint_source(source, name, settings)
    return findings, {name: source}, all(finding.code == "INI901" for finding in findings) and bool(findings)


def _lint_paths(args: argparse.Namespace, resolver: SettingsResolver):
    """(findings, files, nothing_checked) for the paths given, after --fix when asked."""
    files = list(discover(args.paths, resolver.for_path))
    if not files:
        return None
    result = _lint(files, resolver, args)
    if args.fix and not args.diff:
        _apply_fixes(result.findings, args.unsafe_fixes)
        result = _lint(files, resolver, args)
    return list(result.findings), files, result.nothing_checked


def run_check(args: argparse.Namespace) -> int:
    resolver = resolver_for(args)
    sources: dict[str, str] = {}
    if args.stdin_filename and args.paths == ["."]:
        args.paths = [STDIN]  # as ruff: --stdin-filename without paths reads stdin
    if args.paths == [STDIN]:
        findings, sources, nothing_checked = _lint_stdin(args, resolver)
        files = [_stdin_name(args)]
    elif STDIN in args.paths:
        raise UsageError("- (stdin) cannot be combined with other paths")
    else:
        linted = _lint_paths(args, resolver)
        if linted is None:
            print("initlint: warning: no Python files to check", file=sys.stderr)
            return EXIT_CLEAN
        findings, files, nothing_checked = linted
    if args.diff:
        changed = _print_diff(findings, args.unsafe_fixes, sources)
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
    findings = sorted(_run_runtime(files, args, resolver.for_path(files[0]), findings), key=Finding.sort_key)
    _report(findings, args, len(files), sources)
    return exit_code(findings, nothing_checked, args.exit_zero)


def _report(findings: list[Finding], args: argparse.Namespace, files_checked: int, sources: dict[str, str]) -> None:
    options = ReportOptions(
        show_source=args.show_source and not args.quiet,
        color=_use_color(args.color, sys.stdout),
        summary=not args.quiet,
        files_checked=files_checked,
        unsafe_fixes=args.unsafe_fixes,
        sources=sources,
    )
    write_text(sys.stdout, render(args.format, findings, options))
    if args.statistics:
        # Machine-readable formats keep stdout parseable: the table goes to stderr.
        stream = sys.stdout if args.format == "text" else sys.stderr
        write_text(stream, statistics_report.render(findings))


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


def run_server() -> int:
    try:
        from initlint.server import main as serve
    except ModuleNotFoundError as error:
        if error.name not in ("pygls", "lsprotocol") and not (error.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        raise UsageError("initlint server needs pygls: pip install 'initlint[lsp]'") from None
    return serve()


def run_explain(args: argparse.Namespace) -> int:
    from initlint.explain import explain_files

    # Notebooks have no init plan of their own to show: their cells' line numbers would not match.
    files = [name for name in discover(args.paths) if name.endswith((".py", ".pyi"))]
    print(explain_files(files), end="")
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with terminate_on_signals():
            return _dispatch(parser, args)
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
    except Terminated as signal:  # workers, runtime child and temporaries are gone by now
        print(f"initlint: terminated by {signal}", file=sys.stderr)
        return 128 + signal.signum


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "check":
        return run_check(args)
    if args.command == "explain":
        return run_explain(args)
    if args.command == "rule":
        return run_rule(args.code)
    if args.command == "rules":
        return run_rules()
    if args.command == "server":
        return run_server()
    parser.print_help()
    return EXIT_ERROR
