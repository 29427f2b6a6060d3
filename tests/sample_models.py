"""Model sources shared by the integration tests (CLI, flake8, pre-commit, noqa, reporters).

`gpt_source(scaled=False)` is a small GPT-2 style model whose two residual writers
(`self.c_proj = nn.Linear(...)` in the attention and in the MLP) get the generic std 0.02 and no
depth factor: INI001 reports each at the line that creates it. `gpt_source(scaled=True)` adds
the GPT-2 recipe (a `named_parameters()` loop drawing `c_proj.weight` with
0.02 / sqrt(2 * n_layer)) and is clean.
"""

from __future__ import annotations

from gpt_parts import GENERIC_INIT, gpt

SCALED_LOOP = """
for name, param in self.named_parameters():
    if name.endswith("c_proj.weight"):
        nn.init.normal_(param, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
"""

WRITER_LINE_TEXT = "self.c_proj = nn.Linear("


def gpt_source(scaled: bool = False, attn_comment: str = "", mlp_comment: str = "") -> str:
    """The model; `*_comment` is appended to a writer's line (e.g. `"  # noqa: INI001"`)."""
    init_call = "self.apply(self._init_weights)\n" + (SCALED_LOOP if scaled else "")
    return '"""A tiny GPT for the initlint integration tests."""\n' + gpt(
        init_call, GENERIC_INIT, attn_comment=attn_comment, mlp_comment=mlp_comment
    )


def writer_lines(source: str) -> list[int]:
    """1-based lines that create a residual writer (where INI001 points)."""
    return [number for number, line in enumerate(source.splitlines(), 1) if WRITER_LINE_TEXT in line]


#: LibCST cannot parse it (nor can `ast`): a deterministic INI901, independent of the analysis.
UNPARSEABLE = "import torch.nn as nn\n\n\nclass Broken(nn.Module:\n    pass\n"

#: A file initlint parses and finds nothing in, whatever the rules (no module subclass).
PLAIN = "import torch\n\n\ndef double(x):\n    return torch.cat([x, x])\n"


def tripwire_source(marker: str) -> str:
    """A model file that writes `marker` if anything imports or runs it."""
    return (
        "import pathlib\n"
        f"pathlib.Path({marker!r}).write_text('imported')\n\n"
        + gpt_source().split('"""A tiny GPT for the initlint integration tests."""\n', 1)[1]
    )
