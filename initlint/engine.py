"""One engine behind the CLI and the flake8 plugin: source text in, findings out.

Pipeline: source -> LibCST module -> `analysis.analyze` (index, residual writers,
init plan) -> enabled rules -> positioned findings -> `# noqa` filter.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable

import libcst as cst

from initlint import guard, noqa
from initlint.config import Settings, is_enabled

# `UnparseableSource`, `one_line` and `tool_finding` are also imported from here by older
# callers; they live in leaf modules so that lower layers need not import the engine.
from initlint.errors import UnparseableSource
from initlint.findings import Edit, Evidence, Finding, Fix, Span, new_finding, tool_finding
from initlint.rules.base import EvidenceSpec, FixSpec, NodePositions as Positions
from initlint.sourcetext import one_line, source_digest

# The text pre-filter lives apart so the flake8 plugin can use it before importing LibCST.
from initlint.prefilter import TEXT_MARKERS, might_define_model  # noqa: F401 (re-exported)

# The guarded parse sits below the engine (the project layer parses siblings with it).
from initlint.parsing import NUL_BYTES, decode, parse  # noqa: F401 (re-exported)
from initlint.rules import Rule, Violation, all_rules, rule_by_code
from initlint.safety import read_regular_file

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.linking import Linker, ProjectContext

#: Longest message an INI901/INI902 carries (exception texts can be huge).
MAX_REASON_CHARS = 300


def enabled_rules(settings: Settings, path: str = "") -> list[type[Rule]]:
    return [rule for rule in all_rules() if is_enabled(rule.code, rule.default_enabled, settings, path)]


def internal_error(path: str, error: BaseException) -> Finding:
    """INI902 naming the exception and the innermost initlint line it came from."""
    package = os.path.dirname(os.path.abspath(__file__))
    where = ""
    for frame, line in _traceback_frames(error):
        filename = os.path.abspath(frame.f_code.co_filename)
        if filename.startswith(package + os.sep):
            where = f" in {os.path.relpath(filename, package)}:{line}"
    if isinstance(error, guard.BudgetExceeded):
        what = str(error)
    else:
        what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    reason = one_line(f"{what}{where}", MAX_REASON_CHARS - 60)
    return tool_finding("INI902", path, f"initlint failed on this file ({reason}); please report it")


def _traceback_frames(error: BaseException):
    tb = error.__traceback__
    while tb is not None:
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def _position(positions: Positions, node: cst.CSTNode) -> Span:
    code_range = positions[node]
    return (
        code_range.start.line,
        code_range.start.column + 1,
        code_range.end.line,
        code_range.end.column + 1,
    )


def finding_of(
    rule: type[Rule],
    path: str,
    message: str,
    span: Span,
    details: dict[str, object] | None = None,
    fix: Fix | None = None,
    evidence: tuple[Evidence, ...] = (),
    help: str | None = None,
) -> Finding:
    """A finding of `rule` at `span` = (line, column, end_line, end_column), all 1-based."""
    return new_finding(rule.code, path, message, span, details=details, fix=fix, evidence=evidence, help=help)


def _positioned_evidence(positions: Positions, violation: Violation, linker: Linker | None) -> tuple[Evidence, ...]:
    steps = []
    for spec in violation.evidence:
        place = linker.place(spec.node) if linker is not None and spec.node is not None else None
        if place is not None:  # a step in a sibling file of the project: its own path and line
            steps.append(Evidence(spec.message, place.line, place.column, place.path))
        elif spec.node is not None:
            line, column, _, _ = _position(positions, spec.node)
            steps.append(Evidence(spec.message, line, column, spec.path))
        else:
            steps.append(Evidence(spec.message, spec.line or 1, 1, spec.path))
    return tuple(steps)


def _positioned_fix(positions: Positions, spec: FixSpec | None, linker: Linker | None) -> Fix | None:
    if spec is None:
        return None
    if linker is not None and any(linker.place(node) is not None for node, _ in spec.replacements):
        return None  # a fix only ever edits the checked file
    edits = tuple(Edit(*_position(positions, node), text) for node, text in spec.replacements)
    return Fix(spec.description, edits, spec.safe)


def _in_checked_file(
    linker: Linker | None, violation: Violation, code: Callable[[cst.CSTNode], str]
) -> Violation | None:
    """A violation at a sibling file's code moves to the checked file's code that reaches it (the
    `Block(...)` that builds the block whose layer is reported), with the real place as evidence;
    None where the checked file has no such code, or where the violation belongs to a sibling
    file's code (`Violation.owner`, INI001's writer): that file reports it when it is checked
    (flake8 and pre-commit see each finding once)."""
    if linker is not None and violation.owner is not None and linker.place(violation.owner) is not None:
        return None
    place = linker.place(violation.node) if linker is not None else None
    if linker is None or place is None:
        return violation
    anchor = linker.anchor(violation.node)
    if anchor is None:
        return None
    step = EvidenceSpec(
        f"the reported code is in {place.path}; this file reaches it through `{one_line(code(anchor), 60)}`",
        violation.node,
    )
    return replace(violation, node=anchor, evidence=(step, *violation.evidence))


def check_module(
    module: cst.Module, path: str, settings: Settings, source: str | None = None, project: ProjectContext | None = None
) -> list[Finding]:
    """Run the analysis and every enabled rule over an already parsed module; with `project`,
    names the module imports from its project on disk are followed (findings stay in `path`)."""
    from initlint.analysis import analyze
    from initlint.analysis.linking import linker_of

    rules = [rule for rule in enabled_rules(settings, path) if not rule.emitted_by_engine]
    if not rules:
        return []
    analysis = analyze(module, settings.analysis, source, project)
    linker = linker_of(analysis.index)
    raised: list[tuple[type[Rule], Violation]] = []
    for rule in rules:
        for violation in rule().check(analysis):
            placed = _in_checked_file(linker, violation, analysis.code)
            if placed is not None:
                raised.append((rule, placed))
    if not raised:
        return []
    # Positions are only computed for files that have something to report.
    positions = analysis.positions()
    findings: dict[tuple[str, int, int, str], Finding] = {}
    for rule, violation in raised:
        span = _position(positions, violation.node)
        finding = finding_of(
            rule,
            path,
            violation.message,
            span,
            violation.details,
            _positioned_fix(positions, violation.fix, linker),
            _positioned_evidence(positions, violation, linker),
            violation.help,
        )
        findings.setdefault((finding.code, finding.line, finding.column, finding.message), finding)
    return sorted(findings.values(), key=Finding.sort_key)


def project_context(path: str, settings: Settings) -> ProjectContext | None:
    """The project on disk `path` belongs to, shared by every file of it checked in this process;
    None for text not read from a file, or with `project-analysis = false`."""
    if not settings.project_analysis or not os.path.isfile(path):
        return None
    from initlint.analysis.linking import ProjectContext
    from initlint.project import project_for

    try:
        return ProjectContext(project_for(path, project_cache_folder(settings)), path)
    except (OSError, ValueError):
        return None


def project_cache_folder(settings: Settings) -> object:
    """Where the project's summaries are kept between runs, as the settings say (None: nowhere)."""
    from initlint.project import DEFAULT

    if settings.cache_dir is None:
        return DEFAULT
    return os.path.join(settings.root or os.curdir, settings.cache_dir) if settings.cache_dir else None


def parse_in_project(source: str, path: str, settings: Settings) -> tuple[cst.Module, ProjectContext | None]:
    """The checked file's parse, shared with its project: a file another checked file already
    reached is not parsed again, and one parsed here is not parsed again when a sibling reaches it."""
    context = project_context(path, settings)
    if context is None:
        return parse(source), None
    shared = context.project.shared_parse(path, source)
    if shared is None:
        from initlint.analysis.index import build_index

        module = parse(source)
        shared = context.project.add_source(path, source, module, build_index(module))
    return shared.module, replace(context, parsed=shared)


def lint_source(source: str, path: str = "<stdin>", settings: Settings | None = None) -> list[Finding]:
    """Findings for one source text; never raises (see `check_source`)."""
    settings = settings or Settings()
    if not might_define_model(source):
        return []
    try:
        judging = _judging_settings(settings, path)
        findings = finish(check_source(source, path, judging), source, path, judging)
        return findings if judging is settings else [f for f in findings if _code_enabled(f.code, settings, path)]
    except Exception as error:  # in selection or noqa: still one finding, never a traceback
        return [internal_error(path, error)]


def _judging_settings(settings: Settings, path: str) -> Settings:
    """`--select INI904` alone (as ruff's `--select RUF100`) must still know which directives
    hide something: the rules `select` left out run too, and their findings are dropped later."""
    if settings.ignore_noqa or not settings.select or not _code_enabled(noqa.UNUSED_CODE, settings, path):
        return settings  # (with ignore_noqa nothing judges directives here: the flake8 plugin's case)
    return replace(settings, select=(), extend_select=settings.extend_select + settings.select)


def finish(findings: list[Finding], source: str, path: str, settings: Settings) -> list[Finding]:
    """Selection (per-file-ignores included) for tool findings too, then `# noqa`."""
    findings = [finding for finding in findings if _code_enabled(finding.code, settings, path)]
    if settings.ignore_noqa:
        return findings
    return noqa.filter_findings(findings, source, path, settings)


def _code_enabled(code: str, settings: Settings, path: str) -> bool:
    rule = rule_by_code(code)
    return is_enabled(code, rule.default_enabled if rule else True, settings, path)


def check_source(source: str, path: str, settings: Settings) -> list[Finding]:
    """Parse and check, bounded in time and recursion (`guard`); no noqa filtering.

    Never raises: a file that cannot be parsed gets one INI901, a failure of initlint itself
    (an exception, the time budget) one INI902, and the caller goes on with the next file.
    """

    def work() -> list[Finding]:
        module, project = parse_in_project(source, path, settings)
        guard.restart_clock()  # the analysis gets the whole budget (the parse is bounded apart)
        return check_module(module, path, settings, source, project)

    try:
        return guard.run_bounded(work, seconds=guard.DEFAULT_BUDGET.seconds_for(source))
    except UnparseableSource as error:
        return [tool_finding("INI901", path, error.reason, error.line, error.column)]
    except (Exception, guard.BudgetExceeded) as error:
        return [internal_error(path, error)]


def lint_file(path: str | os.PathLike, settings: Settings | None = None) -> list[Finding]:
    """Findings for one file; never raises (a MemoryError reading a huge file included)."""
    name = str(path)
    try:
        return _lint_file(path, name, settings)
    except Exception as error:
        return [internal_error(name, error)]


def _lint_file(path: str | os.PathLike, name: str, settings: Settings | None) -> list[Finding]:
    try:
        data = read_regular_file(path)
    except OSError as error:
        return [tool_finding("INI901", name, f"cannot read: {error.strerror or error}")]
    if b"\0" in data:  # before decoding: binary junk fails both, and this is the real reason
        return [tool_finding("INI901", name, NUL_BYTES, data.count(b"\n", 0, data.index(b"\0")) + 1)]
    try:
        source = decode(data)
    except (SyntaxError, ValueError, LookupError) as error:  # bad cookie, bad bytes
        return [tool_finding("INI901", name, f"cannot decode: {one_line(str(error))}")]
    return with_source_digest(lint_source(source, name, settings), data)


def with_source_digest(findings: list[Finding], data: bytes) -> list[Finding]:
    """Tie every fix to the exact bytes it was computed from (`fixes.apply_fixes` checks)."""
    if not any(finding.fix is not None for finding in findings):
        return findings
    digest = source_digest(data)
    return [
        replace(finding, fix=replace(finding.fix, source_sha256=digest)) if finding.fix is not None else finding
        for finding in findings
    ]


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    #: Every file the run looked at, those it could not check included.
    files_checked: int = 0
    #: Files with an INI901 (unreadable, undecodable, unparseable): nothing in them was checked.
    files_not_checked: int = 0

    @property
    def nothing_checked(self) -> bool:
        """Files were given and not one of them could be checked (the CLI exits 2)."""
        return self.files_checked > 0 and self.files_not_checked == self.files_checked


def lint_files(
    files: Iterable[str],
    settings: Settings | None = None,
    jobs: int = 1,
    progress: Callable[[], None] | None = None,
    lint_one: Callable[[str, Settings], list[Finding]] | None = None,
) -> RunResult:
    """Lint every file, in `jobs` processes; the result is the same whatever `jobs` is.
    `progress()` is called after each file (the CLI's progress bar); `lint_one` replaces
    `lint_file` (the CLI's also reads notebooks; a module-level function, for the workers)."""
    from initlint.parallel import map_files

    settings = settings or Settings()
    result = RunResult()
    with _one_snapshot(settings):
        for findings in map_files(lint_one or lint_file, list(files), settings, jobs):
            result.files_checked += 1
            result.files_not_checked += any(finding.code == "INI901" for finding in findings)
            result.findings.extend(findings)
            if progress is not None:
                progress()
    result.findings.sort(key=Finding.sort_key)
    return result


def _one_snapshot(settings: Settings) -> contextlib.AbstractContextManager:
    """One run reads each project on disk as it was when the run reached it (`one_snapshot`)."""
    if not settings.project_analysis:
        return contextlib.nullcontext()
    from initlint.project import one_snapshot

    return one_snapshot()
