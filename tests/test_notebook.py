"""Jupyter notebooks, written for real with nbformat: findings in cell coordinates in every
format, magics skipped, `# noqa` per cell line, and `--fix` writing a valid notebook that keeps
its outputs and metadata."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sample_models import WRITER_LINE_TEXT, gpt_source

nbformat = pytest.importorskip("nbformat")

REPO = Path(__file__).resolve().parent.parent
SQRT_EXAMPLE = REPO / "examples" / "gpt2_sqrt_n_layer.py"


def initlint(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def write_notebook(path: Path, *cells) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = list(cells)
    nbformat.write(notebook, str(path))
    return path


def model_notebook(path: Path, **comments) -> tuple[Path, str]:
    """Imports (behind IPython magics) in cell 2, the model in cell 3; cell 1 is markdown."""
    head, body = gpt_source(**comments).split("\n\n", 1)
    write_notebook(
        path,
        nbformat.v4.new_markdown_cell("# A tiny GPT"),
        nbformat.v4.new_code_cell("%matplotlib inline\n!pip install torch\n" + head),
        nbformat.v4.new_code_cell(body, execution_count=3, outputs=[nbformat.v4.new_output("stream", text="built\n")]),
        nbformat.v4.new_code_cell("%%time\nmodel = GPT(config)\nmodel?"),
    )
    return path, body


def writer_lines_in(body: str) -> list[int]:
    return [number for number, line in enumerate(body.splitlines(), 1) if WRITER_LINE_TEXT in line]


def test_findings_are_reported_in_cell_coordinates(tmp_path):
    _, body = model_notebook(tmp_path / "nb.ipynb")
    attn, mlp = writer_lines_in(body)
    result = initlint("check", "--isolated", "--quiet", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert [line.split(" INI")[0] for line in result.stdout.splitlines()] == [
        f"nb.ipynb:cell 3:{attn}:9:",
        f"nb.ipynb:cell 3:{mlp}:9:",
    ]
    shown = initlint("check", "--isolated", "nb.ipynb", cwd=tmp_path).stdout.splitlines()
    assert shown[1] == f"{attn:>5} | {body.splitlines()[attn - 1]}"  # the snippet is the cell's own line
    (first, second) = json.loads(initlint("check", "--isolated", "--format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert (first["cell"], first["line"], first["column"], first["end_line"]) == (3, attn, 9, attn)
    assert second["line"] == mlp


def test_sarif_and_github_for_notebooks(tmp_path):
    from test_reporters import _schema_path
    import jsonschema

    model_notebook(tmp_path / "nb.ipynb")
    log = json.loads(initlint("check", "--isolated", "--format", "sarif", "nb.ipynb", cwd=tmp_path).stdout)
    schema = json.loads(_schema_path().read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    results = log["runs"][0]["results"]
    assert [result["properties"]["cell"] for result in results] == [3, 3]
    github = initlint("check", "--isolated", "--format", "github", "nb.ipynb", cwd=tmp_path).stdout
    assert github.startswith("::warning file=nb.ipynb,title=INI001 (cell 3%3A") and "line=" not in github.split("::")[1]


def test_noqa_works_per_cell_line(tmp_path):
    _, body = model_notebook(tmp_path / "nb.ipynb", mlp_comment="  # noqa: INI001")
    attn, _ = writer_lines_in(body)
    result = initlint("check", "--isolated", "--quiet", "--extend-select", "INI904", "nb.ipynb", cwd=tmp_path)
    # the MLP writer's directive hides its finding and is therefore not reported as unused
    assert [line.split(" INI")[0] for line in result.stdout.splitlines()] == [f"nb.ipynb:cell 3:{attn}:9:"]


def test_a_folder_run_picks_up_notebooks_but_not_checkpoints(tmp_path):
    model_notebook(tmp_path / "nb.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    model_notebook(tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb")
    result = initlint("check", "--isolated", "--quiet", ".", cwd=tmp_path)
    assert {line.split(":")[0] for line in result.stdout.splitlines()} == {"nb.ipynb"}


def test_a_broken_notebook_is_one_finding(tmp_path):
    (tmp_path / "bad.ipynb").write_text('{"cells": [', encoding="utf-8")
    write_notebook(
        tmp_path / "syntax.ipynb", nbformat.v4.new_code_cell("import torch\n"), nbformat.v4.new_code_cell("class (:\n")
    )
    result = initlint("check", "--isolated", "--quiet", "bad.ipynb", "syntax.ipynb", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("bad.ipynb:1:1: INI901 cannot read notebook")
    assert lines[1].startswith("syntax.ipynb:cell 2:1:") and "INI901" in lines[1]
    assert "Traceback" not in result.stderr


def test_fix_writes_a_valid_notebook_and_keeps_outputs_and_metadata(tmp_path):
    example = SQRT_EXAMPLE.read_text()
    path = write_notebook(
        tmp_path / "sqrt.ipynb",
        nbformat.v4.new_code_cell("!nvidia-smi\nimport math"),
        nbformat.v4.new_code_cell(example, execution_count=7, outputs=[nbformat.v4.new_output("stream", text="ok\n")]),
    )
    before = nbformat.read(str(path), as_version=4)
    (finding,) = json.loads(initlint("check", "--isolated", "--format", "json", "sqrt.ipynb", cwd=tmp_path).stdout)
    (edit,) = finding["fix"]["edits"]  # in the cell's lines, like the finding
    assert (finding["cell"], edit["line"]) == (2, finding["line"])
    assert example.splitlines()[edit["line"] - 1][edit["column"] - 1 : edit["end_column"] - 1] == "config.n_layer"
    diff = initlint("check", "--isolated", "--diff", "--unsafe-fixes", "sqrt.ipynb", cwd=tmp_path)
    assert (
        diff.returncode == 1
        and "+                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))"
        in diff.stdout
    )
    assert nbformat.read(str(path), as_version=4) == before  # --diff writes nothing
    fixed = initlint("check", "--isolated", "--fix", "--unsafe-fixes", "sqrt.ipynb", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    after = nbformat.read(str(path), as_version=4)
    nbformat.validate(after)
    assert after.cells[1].source == example.replace("math.sqrt(config.n_layer)", "math.sqrt(2 * config.n_layer)")
    assert after.cells[0].source == before.cells[0].source
    assert after.cells[1].outputs == before.cells[1].outputs and after.cells[1].execution_count == 7
    assert after.metadata == before.metadata


def test_fix_leaves_a_notebook_that_changed_since_it_was_linted(tmp_path):
    from initlint.notebook import apply_notebook_fixes, lint_path

    path = write_notebook(tmp_path / "sqrt.ipynb", nbformat.v4.new_code_cell(SQRT_EXAMPLE.read_text()))
    findings = lint_path(str(path))
    assert any(finding.fix is not None for finding in findings)
    path.write_bytes(path.read_bytes() + b"\n")
    report, _ = apply_notebook_fixes(findings, unsafe=True)
    assert report.fixed == {} and "changed since it was linted" in report.skipped[0][1]


def test_only_ipython_syntax_at_a_statement_start_is_skipped(tmp_path):
    from initlint.notebook import parse_notebook

    python = 'message = ("%d layers"\n           % 12)\ndoc = """\n!not a shell escape\n"""\nx = 1 + \\\n    2\n'
    cell = "%load_ext autoreload\nfiles = !ls\nif True:\n    %time x = 1\n" + python + "GPT?\n"
    path = write_notebook(tmp_path / "nb.ipynb", nbformat.v4.new_code_cell(cell))
    joined = parse_notebook(path.read_bytes()).source
    assert joined == "pass\npass\nif True:\n    pass\n" + python + "pass\n"
    compile(joined, "nb", "exec")


def test_without_nbformat_folders_skip_notebooks_and_a_named_one_says_what_to_install(tmp_path):
    model_notebook(tmp_path / "nb.ipynb")
    (tmp_path / "model.py").write_text(gpt_source(), encoding="utf-8")
    blocked = "import sys; sys.modules['nbformat'] = None; from initlint.cli import main; sys.exit(main(sys.argv[1:]))"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-c", blocked, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )

    folder = run("check", "--isolated", "--quiet", ".")
    assert {line.split(":")[0] for line in folder.stdout.splitlines()} == {"model.py"}
    named = run("check", "--isolated", "nb.ipynb")
    assert named.returncode == 2
    assert (
        named.stderr
        == "initlint: error: nb.ipynb: checking notebooks needs nbformat: pip install 'initlint[notebook]'\n"
    )
