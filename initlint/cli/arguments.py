"""The command line: sub-commands and the options of `initlint check`, grouped as `--help`
shows them."""

from __future__ import annotations

import argparse
from typing import NoReturn

from initlint import __version__
from initlint.cli.exit_codes import EXIT_ERROR
from initlint.cli.runtime_hook import runtime_cli
from initlint.config import parse_code_list
from initlint.reporters import FORMATS

#: `initlint --help`'s first line.
DESCRIPTION = "`initlint check | explain | rule | rules`: one CLI over the engine."


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
    runtime = runtime_cli()
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
    parser = _Parser(prog="initlint", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"initlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    _add_check_arguments(commands.add_parser("check", help="lint model files or folders"))

    explain = commands.add_parser("explain", help="show the init plan initlint inferred")
    explain.add_argument("paths", nargs="+", metavar="PATH")
    explain.add_argument(
        "--config", metavar="PYPROJECT", help="read [tool.initlint] from this file instead of searching"
    )
    explain.add_argument("--isolated", action="store_true", help="read no pyproject.toml at all")

    rule = commands.add_parser("rule", help="show one rule's documentation")
    rule.add_argument("code")

    commands.add_parser("rules", help="list every rule, with whether it is on by default")
    commands.add_parser(
        "server",
        help="a language server on stdin/stdout for editors (needs initlint[lsp])",
        description="Speak LSP on stdin/stdout: static diagnostics, quick fixes, rule docs on hover. See docs/editors.md.",
    )
    return parser
