"""`initlint check | explain | rule | rules`: one CLI over the engine."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from initlint import __version__
from initlint.config import Settings
from initlint.engine import lint_files
from initlint.files import UsageError, discover
from initlint.findings import Finding
from initlint.rules import all_rules, rule_by_code

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(text: str) -> tuple[str, ...]:
    return tuple(part.strip().upper() for part in text.split(",") if part.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="initlint", description=__doc__)
    parser.add_argument("--version", action="version", version=f"initlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="lint model files or folders")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--select", type=_codes, default=(), help="only these codes or prefixes")
    check.add_argument("--extend-select", type=_codes, default=(), help="also these codes (opt-in rules)")
    check.add_argument("--ignore", type=_codes, default=(), help="skip these codes or prefixes")

    explain = commands.add_parser("explain", help="show the init plan initlint inferred")
    explain.add_argument("paths", nargs="+", metavar="PATH")

    rule = commands.add_parser("rule", help="show one rule's documentation")
    rule.add_argument("code")

    commands.add_parser("rules", help="list every rule")
    return parser


def _format_text(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}"


def run_check(args: argparse.Namespace) -> int:
    settings = Settings(select=args.select, extend_select=args.extend_select, ignore=args.ignore)
    files = list(discover(args.paths, settings.exclude + settings.extend_exclude))
    result = lint_files(files, settings)
    if args.format == "json":
        print(json.dumps([finding.to_dict() for finding in result.findings], indent=2))
    else:
        for finding in result.findings:
            print(_format_text(finding))
    return EXIT_FINDINGS if result.findings else EXIT_CLEAN


def run_rules() -> int:
    for rule in all_rules():
        flag = "" if rule.default_enabled else "  (off by default)"
        print(f"{rule.code}  {rule.name:<34} {rule.summary}{flag}")
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
    except KeyboardInterrupt:
        print("initlint: interrupted", file=sys.stderr)
        return EXIT_ERROR
