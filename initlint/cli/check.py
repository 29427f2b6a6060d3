"""`initlint check`: the paths (or stdin) linted under their settings, fixed or diffed when
asked, verified at runtime when asked, then reported."""

from __future__ import annotations

import argparse
import sys

from initlint.cli.exit_codes import EXIT_CLEAN, EXIT_FINDINGS, exit_code
from initlint.cli.fixing import apply_fixes, print_diff
from initlint.cli.output import print_findings
from initlint.cli.progress import progress_bar
from initlint.cli.runtime_hook import with_runtime_findings
from initlint.cli.settings import resolver_for
from initlint.config import Settings, SettingsResolver
from initlint.files import STDIN, UsageError, discover
from initlint.findings import Finding


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
    with progress_bar(len(files), args) as advance:
        for settings, names in groups.values():
            result = lint_files(names, settings, jobs=args.jobs or 1, progress=advance, lint_one=lint_path)
            merged.findings.extend(result.findings)
            merged.files_checked += result.files_checked
            merged.files_not_checked += result.files_not_checked
    merged.findings.sort(key=Finding.sort_key)
    return merged


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
        apply_fixes(result.findings, args.unsafe_fixes)
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
        changed = print_diff(findings, args.unsafe_fixes, sources)
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
    findings = sorted(with_runtime_findings(files, args, resolver.for_path(files[0]), findings), key=Finding.sort_key)
    print_findings(findings, args, len(files), sources)
    return exit_code(findings, nothing_checked, args.exit_zero)
