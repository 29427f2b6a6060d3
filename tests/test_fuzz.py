"""Generated and mutated programs never crash the engine: no exception, no INI902.

Two sources of programs: hypothesmith (random programs from Python's grammar, and from LibCST's
node types), and mutations of a real-looking nanoGPT-style model (lines deleted, duplicated,
swapped, names and numbers replaced, init-related statements inserted, the text cut anywhere),
which reach deep into the analysis because most of the model survives each mutation.
Example counts are modest (about 10 s of CPU for the module); raise `max_examples` locally
when hunting. A failure prints the program and the seed that reproduces it.
"""

from __future__ import annotations

import hypothesmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from initlint.engine import lint_source
from robustness_inputs import nano_gpt

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
#: Makes every generated program pass the text pre-filter, so it reaches the parser.
PREFIX = "import torch.nn as nn\n"


def assert_no_internal_error(source: str) -> None:
    findings = lint_source(source, "fuzzed.py")
    internal = [finding.message for finding in findings if finding.code == "INI902"]
    assert not internal, internal
    assert all("\n" not in finding.message for finding in findings)


@FUZZ
@given(hypothesmith.from_grammar())
def test_programs_from_the_grammar(source):
    assert_no_internal_error(PREFIX + source)


@FUZZ
@given(hypothesmith.from_node())
def test_programs_from_libcst_nodes(source):
    assert_no_internal_error(PREFIX + source)


MODEL_LINES = nano_gpt(scaled=True).splitlines(keepends=True)

NAMES = (
    "c_proj",
    "c_fc",
    "c_attn",
    "self",
    "nn",
    "torch",
    "config",
    "n_layer",
    "module",
    "x",
    "std",
    "math",
    "Block",
    "GPT",
    "MLP",
    "apply",
    "_init_weights",
    "normal_",
    "zeros_",
    "weight",
    "h",
    "transformer",
)
NUMBERS = ("0", "-1", "0.0", "1e308", "10 ** 9", "2 ** -1074", "float('nan')", "True", "None", "config.n_layer")
STATEMENTS = (
    "self.apply(self._init_weights)",
    "self._init_weights(self)",
    "x = x + self.c_proj(x)",
    "x += self.mlp(x)",
    "for pn, p in self.named_parameters():",
    "torch.nn.init.normal_(self.c_proj.weight, std=0.02 / math.sqrt(2 * self.config.n_layer))",
    "self.c_proj.NANOGPT_SCALE_INIT = 1",
    "setattr(self, 'c_proj', nn.Linear(4, 4))",
    "del self.c_proj",
    "nn = nn",
    "self.c_proj = self.c_proj",
    "self.h = nn.ModuleList([GPT(config) for _ in range(config.n_layer)])",
    "return self.forward(x)",
    "while True:",
    "with torch.no_grad():",
    "if hasattr(module, 'NANOGPT_SCALE_INIT'):",
    "std *= (2 * self.config.n_layer) ** -0.5",
    "module.weight.data.mul_(1 / math.sqrt(2 * config.n_layer))",
    "class Block(Block):",
    "@torch.no_grad()",
    "global nn",
    "raise NotImplementedError",
    "lambda: self.apply(self._init_weights)",
    "config = config.config",
    "exec('self.c_proj = nn.Linear(4, 4)')",
)


@st.composite
def mutated_models(draw):
    lines = list(MODEL_LINES)
    for _ in range(draw(st.integers(1, 6))):
        index = draw(st.integers(0, len(lines) - 1))
        line = lines[index]
        indent = line[: len(line) - len(line.lstrip())]
        kind = draw(st.sampled_from(("delete", "duplicate", "swap", "name", "number", "insert", "indent")))
        if kind == "delete":
            del lines[index : index + draw(st.integers(1, 8))]
        elif kind == "duplicate":
            lines[index:index] = lines[index : index + draw(st.integers(1, 12))]
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif kind == "name":
            old, new = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
            lines[index] = line.replace(old, new)
        elif kind == "number":
            for digit in ("0.02", "0.0", "2", "3", "4"):
                if digit in line:
                    lines[index] = line.replace(digit, draw(st.sampled_from(NUMBERS)), 1)
                    break
        elif kind == "insert":
            statement = draw(st.sampled_from(STATEMENTS))
            body = "    pass\n" if statement.endswith(":") else ""
            lines.insert(index, f"{indent}{statement}\n" + (indent + body if body else ""))
        else:
            lines[index] = "    " + line
        if not lines:
            lines = [""]
    source = "".join(lines)
    if draw(st.booleans()) and len(source) > 1:  # cut anywhere, mid-token included
        source = source[: draw(st.integers(1, len(source) - 1))]
    return source


@settings(FUZZ, max_examples=60)
@given(mutated_models())
def test_mutations_of_a_real_looking_model(source):
    assert_no_internal_error(source)


def test_the_unmutated_model_is_clean_and_its_unscaled_twin_is_not():
    """The mutation fuzz starts from a model the analysis understands fully."""
    assert lint_source(nano_gpt(scaled=True), "model.py") == []
    assert {finding.code for finding in lint_source(nano_gpt(scaled=False), "model.py")} == {"INI001"}
