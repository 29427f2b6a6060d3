"""`initlint check | explain | rule | rules`: one CLI over the engine.

Exit codes: 0 nothing found (or `--exit-zero`), 1 findings, 2 a usage or configuration error, or
no file could be checked at all. Errors are one line on stderr, never a traceback.

The parser is in `arguments.py`, `initlint check` in `check.py` (with `settings.py`,
`progress.py`, `fixing.py`, `output.py` and `runtime_hook.py`); the other commands are here.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from initlint.cli.arguments import build_parser
from initlint.cli.check import run_check
from initlint.cli.exit_codes import EXIT_CLEAN, EXIT_ERROR
from initlint.config import SettingsResolver
from initlint.files import UsageError, discover
from initlint.rules import all_rules, rule_by_code
from initlint.safety import Terminated, terminate_on_signals


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

    # The same [tool.initlint] as `check` (layer classes, conventions, excludes), or explain
    # would contradict the findings it is asked about.
    resolver = SettingsResolver(lambda settings: settings, config=args.config, isolated=args.isolated)
    print(explain_files(list(discover(args.paths, resolver.for_path)), resolver.for_path), end="")
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
