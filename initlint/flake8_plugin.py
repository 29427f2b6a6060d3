"""initlint as a flake8 plugin (entry point `INI` in the `flake8.extension` group).

flake8 runs every installed plugin on every file, whatever `--select` says, so this module
costs every flake8 user: importing it must not import LibCST (the engine is imported on the
first file that passes the text pre-filter), and nothing may escape `run()` (one exception
aborts the user's whole flake8 run; an internal error becomes one INI902 finding instead).

What flake8 does itself, the plugin leaves to it: `# noqa` (the CLI matches it the same way, see
`initlint.noqa`), `--select`/`--ignore`, per-file-ignores. flake8 never reads pyproject.toml, so
the plugin runs with initlint's defaults; the rules it runs are those flake8 would report.
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Iterator

from initlint import __version__
from initlint.codes import CODES, INTERNAL_ERROR
from initlint.sourcetext import error_text

if TYPE_CHECKING:  # pragma: no cover
    from initlint.config import Settings

Result = tuple[int, int, str, type]


def rule_codes() -> dict[str, bool]:
    """Every code and whether it is on by default, from the code table (a leaf module: flake8
    asks at start-up of every run, and importing the rules would import LibCST)."""
    return {code: row.default_enabled for code, row in CODES.items()}


def off_by_default_codes() -> tuple[str, ...]:
    return tuple(sorted(code for code, on in rule_codes().items() if not on))


def _run_settings(options: argparse.Namespace | None) -> Settings | None:
    """Settings for the rules flake8 would report under `options` (None: initlint's defaults,
    as when the plugin is driven outside flake8); None when flake8 would report none of them.
    `# noqa` stays flake8's job (`ignore_noqa`)."""
    from initlint.config import Settings

    if options is None:
        return Settings(ignore_noqa=True)
    codes = tuple(sorted(rule_codes()))
    try:
        from flake8.style_guide import Decision, DecisionEngine

        decide = DecisionEngine(options).decision_for
        codes = tuple(code for code in codes if decide(code) is Decision.Selected)
    except Exception:  # a flake8 without this internal API: run every rule, flake8 filters
        pass
    return Settings(select=codes, ignore_noqa=True) if codes else None


class InitlintChecker:
    name = "initlint"
    version = __version__

    #: Set by flake8 through `parse_options`; the same for every file of the run.
    _options: ClassVar[argparse.Namespace | None] = None
    #: `_run_settings(_options)`, computed on the first file that gets parsed (it imports LibCST).
    _settings: ClassVar[tuple[Settings | None] | None] = None

    def __init__(self, tree: ast.AST, lines: list[str], filename: str) -> None:
        # `tree` must be accepted for flake8 to treat this as a tree plugin; the source is
        # re-parsed by LibCST from flake8's own lines (stdin, encodings and BOM already handled).
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.extend_default_ignore(list(off_by_default_codes()))

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls._options = options
        cls._settings = None

    def run(self) -> Iterator[Result]:
        try:
            results = self._results()
        except Exception as error:  # never abort the user's flake8 run
            reason = error_text(error)
            results = [
                (1, 0, f"{INTERNAL_ERROR} initlint failed on this file ({reason}); please report it", type(self))
            ]
        yield from results

    def _results(self) -> list[Result]:
        source = "".join(self.lines)
        # The pre-filter reads the knowledge registry: imported with the first file, not at start-up.
        from initlint.prefilter import might_define_model

        if not might_define_model(source):
            return []
        cls = type(self)
        if cls._settings is None:
            cls._settings = (_run_settings(cls._options),)
        settings = cls._settings[0]
        if settings is None:  # flake8 would report none of initlint's codes
            return []
        from initlint import engine, noqa

        findings = engine.lint_source(source, self.filename, settings)
        if not getattr(self._options, "disable_noqa", False):
            # flake8 hides what noqa directives cover; INI903/INI904 judge the directives themselves.
            findings = noqa.filter_findings(
                findings, source, self.filename, replace(settings, ignore_noqa=False), drop_hidden=False
            )
        # flake8 adds 1 to the column; Finding columns are 1-based.
        return [(f.line, f.column - 1, f"{f.code} {f.message}", type(self)) for f in findings]
