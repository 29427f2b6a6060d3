"""`initlint server` driven by a real LSP client (pytest-lsp runs it as a subprocess on stdio):
diagnostics on open, change (debounced) and save, code actions (noqa, fixes), hover docs, the
workspace's pyproject.toml."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from sample_models import gpt_source, writer_lines  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SQRT_EXAMPLE = REPO / "examples" / "gpt2_sqrt_n_layer.py"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "initlint", "server"]), scope="module"
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    (root / "legacy").mkdir()
    (root / "legacy" / "pyproject.toml").write_text('[tool.initlint]\nignore = ["INI001"]\n')
    lsp_client.root = root
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


async def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> list[types.Diagnostic]:
    path.write_text(text, encoding="utf-8")
    client.diagnostics.pop(path.as_uri(), None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=version, text=text)
        )
    )
    return await diagnostics_for(client, path.as_uri())


async def diagnostics_for(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    while uri not in client.diagnostics:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def test_diagnostics_on_open_at_the_cli_positions(client: LanguageClient):
    source = gpt_source()
    diagnostics = await open_document(client, client.root / "model.py", source)
    assert [(d.code, d.range.start.line + 1, d.range.start.character + 1) for d in diagnostics] == [
        ("INI001", line, 9) for line in writer_lines(source)
    ]
    first = diagnostics[0]
    assert first.source == "initlint" and first.severity == types.DiagnosticSeverity.Warning
    assert first.code_description.href.endswith("#ini001-unscaled-residual-projection")


async def test_change_is_checked_after_a_pause_and_save_checks_at_once(client: LanguageClient):
    path = client.root / "edited.py"
    uri = path.as_uri()
    assert len(await open_document(client, path, gpt_source())) == 2
    fixed = gpt_source(scaled=True)
    client.diagnostics.pop(uri)
    for version, text in ((2, gpt_source() + "\n"), (3, fixed)):  # two keystrokes, one check
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    assert await diagnostics_for(client, uri) == []
    client.diagnostics.pop(uri)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert await diagnostics_for(client, uri) == []


async def test_workspace_config_applies(client: LanguageClient):
    assert await open_document(client, client.root / "legacy" / "model.py", gpt_source()) == []


async def test_a_broken_workspace_config_is_shown_once(client: LanguageClient):
    folder = client.root / "typo"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[tool.initlint]\nselct = ["INI0"]\n')
    assert len(await open_document(client, folder / "a.py", gpt_source())) == 2  # the defaults
    await open_document(client, folder / "b.py", gpt_source())
    shown = [message.message for message in client.messages if "selct" in message.message]
    assert len(shown) == 1 and "did you mean 'select'?" in shown[0]


async def test_code_action_adds_noqa(client: LanguageClient):
    path = client.root / "noqa_me.py"
    source = gpt_source()
    line = writer_lines(source)[0] - 1
    await open_document(client, path, source)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(path.as_uri()),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (noqa,) = [action for action in actions if "noqa" in action.title]
    (edit,) = noqa.edit.changes[path.as_uri()]
    line_text = source.splitlines()[line]
    assert edit.range.start == types.Position(line, len(line_text)) and edit.new_text == "  # noqa: INI001"
    imports_only = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(path.as_uri()),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceOrganizeImports]),
        )
    )
    assert not imports_only


async def test_code_action_offers_the_unsafe_fix_and_hover_shows_the_docs(client: LanguageClient):
    path = client.root / "sqrt.py"
    (diagnostic,) = await open_document(client, path, SQRT_EXAMPLE.read_text())
    assert diagnostic.code == "INI002"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(path.as_uri()),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    (fix,) = [action for action in actions if "unsafe" in action.title]
    (edit,) = fix.edit.changes[path.as_uri()]
    line = SQRT_EXAMPLE.read_text().splitlines()[edit.range.start.line]
    fixed = line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
    assert (
        fixed.endswith("std=0.02 / math.sqrt(2 * config.n_layer))")
        and edit.range.start.line == diagnostic.range.start.line
    )
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), diagnostic.range.start)
    )
    assert hover.contents.value.startswith("# INI002 `depth-factor-missing-2x`")


async def test_hover_over_a_noqa_code(client: LanguageClient):
    path = client.root / "commented.py"
    source = gpt_source(attn_comment="  # noqa: INI003")
    await open_document(client, path, source)
    line = writer_lines(source)[0] - 1
    column = source.splitlines()[line].index("INI003") + 2
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(line, column))
    )
    assert hover.contents.value.startswith("# INI003 `runtime-residual-scaling`")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(path.as_uri()),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (noqa,) = [action for action in actions if "noqa" in action.title]
    (edit,) = noqa.edit.changes[path.as_uri()]
    text = source.splitlines()[line]
    end = text.index("INI003") + len("INI003")
    assert (edit.range.start.character, edit.new_text) == (end, ", INI001")  # appended to the directive


# --- notebooks (LSP notebook sync): cells joined as `initlint check` joins an .ipynb -----------


def _cell_uri(notebook: Path, number: int) -> str:
    return f"vscode-notebook-cell:{notebook.as_posix()}#cell{number}"


def _open_notebook(client: LanguageClient, path: Path, cells: list[tuple[str, str]]) -> list[str]:
    """Open a notebook of (kind, text) cells, kind "code" or "markdown"; the cells' URIs."""
    cell_uris = [_cell_uri(path, number) for number in range(1, len(cells) + 1)]
    for uri in cell_uris:
        client.diagnostics.pop(uri, None)
    kinds = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=path.as_uri(),
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=kinds[kind], document=uri) for (kind, _), uri in zip(cells, cell_uris)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=uri, language_id="python" if kind == "code" else "markdown", version=1, text=text
                )
                for (kind, text), uri in zip(cells, cell_uris)
            ],
        )
    )
    return cell_uris


def _model_cells() -> list[tuple[str, str]]:
    """The GPT split as a notebook has it: imports and a magic, a markdown note, the model."""
    imports, model = gpt_source().split("\n\n\n", 1)
    return [("code", "%matplotlib inline\n" + imports + "\n"), ("markdown", "# The model\n"), ("code", model)]


async def test_notebook_cells_get_their_findings_in_their_own_lines(client: LanguageClient):
    path = client.root / "explore.ipynb"
    cells = _model_cells()
    imports_uri, _, model_uri = _open_notebook(client, path, cells)
    diagnostics = await diagnostics_for(client, model_uri)
    assert [(d.code, d.range.start.line + 1) for d in diagnostics] == [
        ("INI001", line) for line in writer_lines(cells[2][1])
    ]
    assert await diagnostics_for(client, imports_uri) == []
    related = {info.location.uri for d in diagnostics for info in d.related_information}
    assert related and related <= {imports_uri, model_uri}  # evidence points into the cells
    line = diagnostics[0].range.start.line
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(model_uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (noqa,) = [action for action in actions if "noqa" in action.title]
    assert list(noqa.edit.changes) == [model_uri] and noqa.edit.changes[model_uri][0].range.start.line == line


async def test_notebook_edit_rechecks_and_close_clears(client: LanguageClient):
    path = client.root / "edited.ipynb"
    cells = _model_cells()
    _, _, model_uri = _open_notebook(client, path, cells)
    assert len(await diagnostics_for(client, model_uri)) == 2
    scaled_model = gpt_source(scaled=True).split("\n\n\n", 1)[1]
    client.diagnostics.pop(model_uri)
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=path.as_uri()),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=model_uri, version=2),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=scaled_model)],
                        )
                    ]
                )
            ),
        )
    )
    assert await diagnostics_for(client, model_uri) == []
    _open_notebook(client, client.root / "other.ipynb", cells)  # still unscaled elsewhere
    client.diagnostics.pop(model_uri)
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=path.as_uri()),
            cell_text_documents=[types.TextDocumentIdentifier(uri=_cell_uri(path, n)) for n in (1, 2, 3)],
        )
    )
    assert await diagnostics_for(client, model_uri) == []
