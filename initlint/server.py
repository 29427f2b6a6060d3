"""`initlint server`: the static rules in the editor, over the Language Server Protocol (stdio).

- Diagnostics when a Python file is opened or saved, and after each change once typing pauses
  (`DEBOUNCE_SECONDS`); a result for an older version of the document is never published.
- Notebooks (LSP notebook sync): the code cells are joined into one module as `initlint check`
  joins an `.ipynb`, and each cell gets the findings in its own lines.
- Static rules only (INI0xx, INI9xx): the server never imports or runs the user's code.
- Settings: the nearest `pyproject.toml` with a `[tool.initlint]` table above each document,
  read again for every check, so editing the config takes effect at the next keystroke; an
  invalid one is shown once as a message and the defaults are used.
- Code actions: the rule's fix (safe ones preferred; unsafe ones say so) and
  `# noqa: INIxxx` for the line.
- Hover: the rule's documentation over a finding's range or over a code in a `# noqa` comment.
- Each diagnostic carries the evidence as related information and the help in its message.

Needs the `lsp` extra (pygls).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, Callable, Coroutine, Sequence

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.workspace.position_codec import ServerTextPosition

from initlint import __version__
from initlint.config import Settings, SettingsResolver
from initlint.findings import Evidence, Finding, Fix
from initlint.noqa import NOQA_PATTERN
from initlint.reporters import rule_url
from initlint.sourcetext import physical_lines

#: Seconds without a change before a changed document is checked again.
DEBOUNCE_SECONDS = 0.3
SOURCE = "initlint"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}
_CODE = re.compile(r"INI[0-9]{3}")
#: Every notebook type, its Python cells: the server joins them as `initlint check` does.
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage("python")], notebook="*")
    ],
    save=True,
)


@dataclass
class _Checked:
    version: int | None
    lines: list[str]
    findings: list[Finding]


class InitlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            SOURCE,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.checked: dict[str, _Checked] = {}
        #: The cell documents each notebook's last check published to (to clear removed cells).
        self.published_cells: dict[str, set[str]] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.config_errors: set[str] = set()


def settings_for(path: str) -> tuple[Settings, str | None]:
    """The document's `[tool.initlint]`, read afresh; on a config error, the defaults and the
    error's one line (shown to the user: the CLI would stop on it)."""
    from initlint.files import UsageError

    try:
        return SettingsResolver(lambda settings: settings).for_path(path), None
    except UsageError as error:
        return Settings(), str(error)


def check_text(source: str, path: str) -> tuple[list[Finding], str | None]:
    from initlint.engine import lint_source

    settings, error = settings_for(path)
    return lint_source(source, path, settings), error


def _position(server: InitlintServer, uri: str, lines: list[str], line: int, column: int) -> types.Position:
    """1-based line and code-point column -> the client's position (UTF-16 unless negotiated)."""
    document = server.workspace.get_text_document(uri)
    line0 = min(max(line - 1, 0), max(len(lines) - 1, 0))
    character = max(column - 1, 0) if line - 1 == line0 else 0
    return document.position_codec.position_to_client_units(lines, ServerTextPosition(line0, character))


def _range(server, uri, lines, line, column, end_line, end_column) -> types.Range:
    return types.Range(_position(server, uri, lines, line, column), _position(server, uri, lines, end_line, end_column))


#: Where an evidence step without a path of its own lies: (document URI, its lines).
Locator = Callable[[Evidence], tuple[str, list[str]]]


def diagnostic(
    server: InitlintServer, uri: str, lines: list[str], finding: Finding, locate: Locator | None = None
) -> types.Diagnostic:
    related = []
    for step in finding.evidence:
        step_uri, step_lines = (uri, lines) if locate is None else locate(step)
        related.append(
            types.DiagnosticRelatedInformation(
                types.Location(
                    step_uri if step.path is None else _uri(step.path),
                    _range(server, step_uri, step_lines, step.line, step.column, step.line, step.column),
                ),
                step.message,
            )
        )
    url = rule_url(finding.code)
    message = finding.message + (f"\nhelp: {finding.help}" if finding.help else "")
    return types.Diagnostic(
        range=_range(server, uri, lines, finding.line, finding.column, finding.end_line, finding.end_column),
        message=message,
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        related_information=related or None,
    )


def _uri(path: str) -> str:
    from pathlib import Path

    return Path(path).resolve().as_uri()


def _show_config_error(server: InitlintServer, config_error: str | None) -> None:
    if config_error and config_error not in server.config_errors:
        server.config_errors.add(config_error)  # once per distinct error, not per keystroke
        server.window_show_message(
            types.ShowMessageParams(types.MessageType.Warning, f"initlint: {config_error} (using the defaults)")
        )


def _lines_of(source: str) -> list[str]:
    return [line.rstrip("\r\n") for line in physical_lines(source)] or [""]


def _publish(server: InitlintServer, uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> None:
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics)
    )


async def check_document(server: InitlintServer, uri: str) -> None:
    document = server.workspace.get_text_document(uri)
    if not (document.path or "").endswith((".py", ".pyi")):
        return  # a notebook cell is checked with its notebook
    version, source, path = document.version, document.source, document.path
    findings, config_error = await asyncio.get_running_loop().run_in_executor(None, check_text, source, path)
    _show_config_error(server, config_error)
    if server.workspace.get_text_document(uri).version != version:
        return  # typed on meanwhile: that version gets its own check
    lines = _lines_of(source)
    server.checked[uri] = _Checked(version, lines, findings)
    _publish(server, uri, version, [diagnostic(server, uri, lines, finding) for finding in findings])


# --- notebooks ------------------------------------------------------------------------------


def check_cells(sources: Sequence[str | None], path: str) -> tuple[list[Finding], str | None]:
    """Findings in the lines of their cells (`Finding.cell` numbers every cell from 1, as in
    the CLI); `sources` has None for the markdown cells."""
    from initlint.engine import lint_source
    from initlint.notebook import join_code_cells, to_cells

    settings, error = settings_for(path)
    notebook = join_code_cells(None, sources)
    return [to_cells(notebook, finding) for finding in lint_source(notebook.source, path, settings)], error


async def check_notebook(server: InitlintServer, notebook_uri: str) -> None:
    notebook = server.workspace.get_notebook_document(notebook_uri=notebook_uri)
    if notebook is None:
        return  # closed meanwhile
    version, cells = notebook.version, list(notebook.cells)
    documents = {
        number: server.workspace.get_text_document(cell.document)
        for number, cell in enumerate(cells, 1)
        if cell.kind == types.NotebookCellKind.Code
    }
    sources = [documents[number].source if number in documents else None for number in range(1, len(cells) + 1)]
    path = uris.to_fs_path(notebook_uri) or notebook_uri
    findings, config_error = await asyncio.get_running_loop().run_in_executor(None, check_cells, sources, path)
    _show_config_error(server, config_error)
    current = server.workspace.get_notebook_document(notebook_uri=notebook_uri)
    if current is None or current.version != version:
        return  # edited meanwhile: that version gets its own check
    cell_lines = {
        number: (document.uri, _lines_of(sources[number - 1] or "")) for number, document in documents.items()
    }

    def locate(step: Evidence) -> tuple[str, list[str]]:
        return cell_lines.get(step.cell or 0, next(iter(cell_lines.values())))

    published = set()
    for number, (uri, lines) in cell_lines.items():
        in_cell = [finding for finding in findings if finding.cell == number]
        server.checked[uri] = _Checked(documents[number].version, lines, in_cell)
        _publish(server, uri, None, [diagnostic(server, uri, lines, finding, locate) for finding in in_cell])
        published.add(uri)
    for removed in server.published_cells.get(notebook_uri, set()) - published:
        server.checked.pop(removed, None)
        _publish(server, removed, None, [])
    server.published_cells[notebook_uri] = published


def close_notebook(server: InitlintServer, notebook_uri: str) -> None:
    _cancel_pending(server, notebook_uri)
    for uri in server.published_cells.pop(notebook_uri, set()):
        server.checked.pop(uri, None)
        _publish(server, uri, None, [])


# --- scheduling -----------------------------------------------------------------------------


def _cancel_pending(server: InitlintServer, uri: str) -> None:
    waiting = server.pending.pop(uri, None)
    if waiting is not None:
        waiting.cancel()


def schedule(
    server: InitlintServer,
    uri: str,
    delay: float,
    check: Callable[[InitlintServer, str], Coroutine[Any, Any, None]] = check_document,
) -> None:
    """Run `check` on `uri` after `delay` seconds, replacing a check already waiting for it."""
    loop = asyncio.get_running_loop()
    _cancel_pending(server, uri)
    server.pending[uri] = loop.call_later(delay, lambda: loop.create_task(check(server, uri)))


# --- code actions and hover ---------------------------------------------------------------


def _overlaps(finding: Finding, start: int, end: int) -> bool:
    """Does the finding's line span meet the 1-based lines start..end?"""
    return finding.line <= end and finding.end_line >= start


def _fix_action(server, uri: str, checked: _Checked, finding: Finding, fix: Fix) -> types.CodeAction:
    edits = [
        types.TextEdit(_range(server, uri, checked.lines, e.line, e.column, e.end_line, e.end_column), e.text)
        for e in fix.edits
    ]
    title = f"{finding.code}: {fix.description}" + ("" if fix.safe else " (unsafe: changes the model's numbers)")
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        is_preferred=fix.safe,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def noqa_edit(line_text: str, code: str) -> tuple[int, str] | None:
    """(code-point column, text to insert) that silences `code` on this line; None if it is."""
    match = NOQA_PATTERN.search(line_text)
    if match is None:
        return len(line_text), f"  # noqa: {code}"
    codes = match.group("codes")
    if codes is None or code in re.split(r"[,\s]+", codes):
        return None  # a bare directive already hides everything
    return match.start("codes") + len(codes.rstrip(", ")), f", {code}"


def _noqa_action(server, uri: str, checked: _Checked, finding: Finding) -> types.CodeAction | None:
    line_text = checked.lines[finding.line - 1] if finding.line <= len(checked.lines) else ""
    edit = noqa_edit(line_text, finding.code)
    if edit is None:
        return None
    column, text = edit
    where = _range(server, uri, checked.lines, finding.line, column + 1, finding.line, column + 1)
    return types.CodeAction(
        title=f"Disable {finding.code} for this line (# noqa)",
        kind=types.CodeActionKind.QuickFix,
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(where, text)]}),
    )


def code_actions(server: InitlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    checked = server.checked.get(uri)
    wanted = params.context.only
    if checked is None or (wanted and not any(types.CodeActionKind.QuickFix.startswith(kind) for kind in wanted)):
        return []  # e.g. a client asking for source.organizeImports only
    start, end = params.range.start.line + 1, params.range.end.line + 1
    actions = []
    for finding in checked.findings:
        if not _overlaps(finding, start, end):
            continue
        if finding.fix is not None:
            actions.append(_fix_action(server, uri, checked, finding, finding.fix))
        noqa = _noqa_action(server, uri, checked, finding)
        if noqa is not None:
            actions.append(noqa)
    return actions


def _rule_docs(code: str) -> types.Hover | None:
    from initlint.rules import rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        return None
    return types.Hover(types.MarkupContent(kind=types.MarkupKind.Markdown, value=rule.documentation()))


def hover(server: InitlintServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    checked = server.checked.get(uri)
    if checked is None:
        return None
    document = server.workspace.get_text_document(uri)
    at = document.position_codec.position_from_client_units(checked.lines, params.position)
    line, column = at.line + 1, at.character + 1
    if line <= len(checked.lines):
        for match in _CODE.finditer(checked.lines[line - 1]):
            comment = checked.lines[line - 1].find("#")
            if 0 <= comment < match.start() and match.start() < column <= match.end() + 1:
                return _rule_docs(match.group())
    for finding in checked.findings:
        if (finding.line, finding.column) <= (line, column) <= (finding.end_line, finding.end_column):
            return _rule_docs(finding.code)
    return None


# --- wiring -------------------------------------------------------------------------------


def build_server() -> InitlintServer:
    server = InitlintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: InitlintServer, params: types.DidOpenTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: InitlintServer, params: types.DidChangeTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: InitlintServer, params: types.DidSaveTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: InitlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        _cancel_pending(ls, uri)
        ls.checked.pop(uri, None)
        _publish(ls, uri, None, [])

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    async def notebook_opened(ls: InitlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        schedule(ls, params.notebook_document.uri, 0, check_notebook)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    async def notebook_changed(ls: InitlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        schedule(ls, params.notebook_document.uri, DEBOUNCE_SECONDS, check_notebook)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    async def notebook_saved(ls: InitlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        schedule(ls, params.notebook_document.uri, 0, check_notebook)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_closed(ls: InitlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        close_notebook(ls, params.notebook_document.uri)

    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
    )(code_actions)
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
    return server


def main() -> int:
    build_server().start_io()
    return 0
