"""The knowledge registry: teaching the analyzer an API is one entry in one module of
`initlint/analysis/knowledge/`, and the pre-filter, the runtime tracer and `[tool.initlint]`
all read the same entries."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest
from expectations import expected_findings, reported
from gpt_parts import GENERIC_INIT, gpt

from initlint.analysis import analyze
from initlint.analysis.model import display_parameters, final_init
from initlint.prefilter import might_define_model

PACKAGE = Path(__file__).resolve().parents[1] / "initlint"
KNOWLEDGE = PACKAGE / "analysis" / "knowledge"


def static_files_naming(word: str) -> list[str]:
    """Files of the static analyzer (analysis, rules, pre-filter) that mention `word` as a name."""
    pattern = re.compile(rf"\b{re.escape(word)}(?!\w)")
    files = [
        *PACKAGE.joinpath("analysis").rglob("*.py"),
        *PACKAGE.joinpath("rules").rglob("*.py"),
        PACKAGE / "prefilter.py",
    ]
    return sorted(str(path.relative_to(PACKAGE)) for path in files if pattern.search(path.read_text()))


# ------------------------------------------------------------------ nn.init.sparse_
SPARSE_INIT = """
def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
for name, p in self.named_parameters():
    if name.endswith("c_proj.weight"):
        nn.init.sparse_(p, sparsity=0.1, std={std})
"""


def sparse_gpt(std: str, marks: bool) -> str:
    init_call, _, init_function = SPARSE_INIT.format(std=std).partition("for name")
    return gpt("self.apply(self._init_weights)\nfor name" + init_function, init_call, marks=marks)


def test_sparse_init_is_one_registry_entry():
    assert static_files_naming("sparse_") == ["analysis/knowledge/torch_init.py"]


@pytest.mark.parametrize("std, scaled", [("0.02 / math.sqrt(2 * config.n_layer)", True), ("0.02", False)])
def test_sparse_init_std_reaches_the_writers(std, scaled):
    source = sparse_gpt(std, marks=not scaled)
    assert reported(source) == expected_findings(source)
    analysis = analyze(cst.parse_module(source))
    writer = analysis.stacks[0].writers[0]
    final = final_init(writer.weight)
    assert final.op is not None and final.op.label.startswith("sparse_(std=")
    assert ("n_layer" in final.std.atom_names()) is scaled


def test_the_runtime_wraps_the_registry_s_meta_invisible_init_functions():
    """`sparse_` draws nothing on the meta device: the tracer patches it because the registry says so."""
    from initlint.analysis.knowledge import REGISTRY
    from initlint.runtime.trace import INVISIBLE_ON_META

    assert set(INVISIBLE_ON_META) == set(REGISTRY.invisible_on_meta())
    assert {"sparse_", "trunc_normal_", "orthogonal_"} <= set(INVISIBLE_ON_META)


# ------------------------------------------------- a Hugging Face init entry point
HF_HEADER = "from transformers import PreTrainedModel"


def test_initialize_weights_is_one_registry_entry():
    assert static_files_naming("initialize_weights") == ["analysis/knowledge/huggingface.py"]


def test_initialize_weights_applies_the_models_init_weights_to_every_module():
    source = gpt(
        "self.initialize_weights()",
        GENERIC_INIT,
        base="PreTrainedModel",
        super_args="config",
        imports=HF_HEADER,
        marks=True,
    )
    assert reported(source) == expected_findings(source) != []
    analysis = analyze(cst.parse_module(source))
    via = final_init(analysis.stacks[0].writers[0].weight).op.via
    assert "self.initialize_weights()" in via and "GPT._init_weights" in via


def test_without_the_entry_initialize_weights_is_opaque(monkeypatch):
    """The entry alone makes the difference: without it the writers keep PyTorch's default init."""
    from initlint.analysis import interp
    from initlint.analysis.knowledge import LIBRARIES, Registry
    from initlint.analysis.knowledge.huggingface import HUGGINGFACE

    without = replace(
        HUGGINGFACE, init_entry_points=tuple(n for n in HUGGINGFACE.init_entry_points if n != "initialize_weights")
    )
    monkeypatch.setattr(
        interp, "REGISTRY", Registry(tuple(without if lib is HUGGINGFACE else lib for lib in LIBRARIES))
    )
    source = gpt(
        "self.initialize_weights()", GENERIC_INIT, base="PreTrainedModel", super_args="config", imports=HF_HEADER
    )
    final = final_init(analyze(cst.parse_module(source)).stacks[0].writers[0].weight)
    assert final.op is not None and final.op.kind == "default"


# ------------------------------------- a project's own ColumnParallelLinear, by config
PARALLEL_MODEL = """
import math

import torch.nn as nn
import torch.nn.functional as F
from mylib.parallel import ColumnParallelLinear, RowParallelLinear


def init_method_normal(sigma):
    def init_(tensor):
        return nn.init.normal_(tensor, mean=0.0, std=sigma)
    return init_


class ParallelAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.qkv = ColumnParallelLinear(config.hidden, 3 * config.hidden, init_method=init_method_normal(0.02))
        self.dense = RowParallelLinear(config.hidden, config.hidden, init_method={writer_init})

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.dense(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class ParallelMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense_h_to_4h = ColumnParallelLinear(config.hidden, 4 * config.hidden, init_method=init_method_normal(0.02))
        self.dense_4h_to_h = RowParallelLinear(4 * config.hidden, config.hidden, init_method={writer_init})

    def forward(self, x):
        return self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(x)))


class TransformerLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.input_norm = nn.LayerNorm(config.hidden)
        self.attention = ParallelAttention(config)
        self.post_attention_norm = nn.LayerNorm(config.hidden)
        self.mlp = ParallelMLP(config)

    def forward(self, x):
        x = x + self.attention(self.input_norm(x))
        return x + self.mlp(self.post_attention_norm(x))


class ParallelTransformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layers = nn.ModuleList([TransformerLayer(config) for _ in range(config.num_layers)])
        self.final_norm = nn.LayerNorm(config.hidden)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)
"""

LAYER_CLASSES_CONFIG = """
[tool.initlint.extend-layer-classes]
"mylib.parallel.ColumnParallelLinear" = "megatron.core.tensor_parallel.ColumnParallelLinear"
"mylib.parallel.RowParallelLinear" = "megatron.core.tensor_parallel.RowParallelLinear"
"""


def run_cli(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", "check", "model.py", "--format", "json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )


def parallel_project(tmp_path: Path, writer_init: str, config: str) -> Path:
    (tmp_path / "model.py").write_text(PARALLEL_MODEL.format(writer_init=writer_init))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mylib'\n" + config)
    return tmp_path


def test_megatron_layers_are_known_by_qualified_name_only():
    assert static_files_naming("ColumnParallelLinear") == ["analysis/knowledge/parallel_layers.py"]


def test_a_project_s_own_parallel_linear_is_unknown_without_config(tmp_path):
    result = run_cli(parallel_project(tmp_path, "init_method_normal(0.02)", ""))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_config_maps_a_project_s_parallel_linear_to_megatron_s(tmp_path):
    result = run_cli(parallel_project(tmp_path, "init_method_normal(0.02)", LAYER_CLASSES_CONFIG))
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)
    source = (tmp_path / "model.py").read_text().splitlines()
    assert sorted((f["code"], source[f["line"] - 1].strip().split(" = ")[0]) for f in findings) == [
        ("INI001", "self.dense"),
        ("INI001", "self.dense_4h_to_h"),
    ]


def test_config_mapped_parallel_linear_with_megatron_s_scaled_init_is_silent(tmp_path):
    # What Megatron's scaled_init_method_normal(sigma, num_layers) computes.
    result = run_cli(
        parallel_project(
            tmp_path, "init_method_normal(0.02 / math.sqrt(2.0 * config.num_layers))", LAYER_CLASSES_CONFIG
        )
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == []


def test_config_mapping_to_an_unknown_layer_is_a_one_line_error(tmp_path):
    config = '\n[tool.initlint.extend-layer-classes]\n"mylib.parallel.RowParallelLinear" = "mylib.Unknown"\n'
    result = run_cli(parallel_project(tmp_path, "init_method_normal(0.02)", config))
    assert result.returncode == 2
    assert "'mylib.Unknown', which is not a layer initlint knows" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


LOCAL_LAYER_MODEL = """
import torch
import torch.nn as nn
from kernels import fused_dense


class Dense(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return fused_dense(x, self.weight, self.bias)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = Dense(width, 4 * width)
        self.down = Dense(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(self.norm(x))))


class Net(nn.Module):
    def __init__(self, width=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""


@pytest.mark.parametrize(
    "user_class, reports",
    [("Dense", True), ("model.Dense", True), ("pkg.model.Dense", False), ("other.Dense", False), ("", False)],
)
def test_config_maps_a_class_of_the_checked_file_by_its_name_or_module(tmp_path, user_class, reports):
    # Its forward is a kernel initlint cannot read: only the config says `Dense` is a linear layer.
    (tmp_path / "model.py").write_text(LOCAL_LAYER_MODEL)
    table = f'\n[tool.initlint.extend-layer-classes]\n"{user_class}" = "torch.nn.Linear"\n' if user_class else ""
    (tmp_path / "pyproject.toml").write_text("[tool.initlint]\n" + table)
    result = run_cli(tmp_path)
    lines = LOCAL_LAYER_MODEL.splitlines()
    found = [lines[f["line"] - 1].strip() for f in json.loads(result.stdout)]
    assert found == (["self.down = Dense(4 * width, width)"] if reports else []), result.stderr


# ------------------------------------------------------------------ text pre-filter
@pytest.mark.parametrize(
    "source",
    [
        "import torch\n",
        "import torch.nn as nn\n",
        "from torch import nn\n",
        "import os, torch\n",
        "import os, torch as T\n",
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n",
        "from transformers import PreTrainedModel\n",
        "import timm.layers\n",
        "from .modeling_utils import PreTrainedModel\n\n\nclass Model(PreTrainedModel):\n    pass\n",
        "class Block(\n    nn.Module,\n):\n    pass\n",
    ],
)
def test_prefilter_passes_model_code(source):
    assert might_define_model(source)


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    import yaml\nexcept ModuleNotFoundError:\n    yaml = None\n",
        "from types import ModuleType\n\n\nclass Lazy(ModuleType):\n    pass\n",
        "def close(conn):\n    conn.commit()\n    conn.close()\n",
        "import torchvision\n",
        "import torch_xla\n",
        "# import torch\n",
        "HELP = 'pip install torch'\n",
        "import mypkg.torch\n",
    ],
)
def test_prefilter_rejects_code_that_only_contains_the_words(source):
    assert not might_define_model(source)


def test_prefilter_does_not_import_libcst():
    code = "import sys, initlint.prefilter; print('libcst' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_registry_modules_hold_no_libcst_or_torch():
    """The registry is plain data: the pre-filter and the runtime import it cheaply."""
    for path in KNOWLEDGE.glob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(import|from)\s+(libcst|torch)\b", text, re.M), path.name


def test_recipe_shows_one_entry_and_one_test():
    recipe = (PACKAGE.parent / "docs" / "recipes" / "teach-an-api.md").read_text()
    assert "initlint/analysis/knowledge/" in recipe
    for module in re.findall(r"knowledge/(\w+)\.py", recipe):
        assert (KNOWLEDGE / f"{module}.py").is_file(), module
    assert textwrap.dedent(recipe).count("```python") >= 2


# ------------------------------------------------------------------ tensor rank
RANK_GUARDED_REINIT = """
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith("c_proj.weight"):
        torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
for name, p in self.named_parameters():
    if {test}:
        nn.init.normal_(p, std=0.02)
"""


@pytest.mark.parametrize(
    "test, redraws_matrices",
    [
        ("p.dim() == 2", True),
        ("p.ndim >= 2", True),
        ("len(p.shape) > 1", True),
        ("p.data.ndimension() > 1 and 'ln' not in name", True),
        ("len(p.size()) == 2", True),
        ("p.dim() == 1", False),
        ("p.dim() > 2", False),
    ],
)
def test_a_rank_test_is_decided_from_the_layer_s_parameter_shapes(test, redraws_matrices):
    """A Linear weight is 2-D, its bias and a norm's gain 1-D: a redraw of the matrices after the
    scaled init overwrites the writers; one of the vectors (or of 3-D tensors) leaves them alone."""
    source = gpt(RANK_GUARDED_REINIT.format(test=test), GENERIC_INIT, marks=redraws_matrices)
    assert reported(source) == expected_findings(source)
    analysis = analyze(cst.parse_module(source))
    for writer in analysis.stacks[0].writers:
        assert final_init(writer.weight).certain


def test_tensor_rank_comes_from_the_registry():
    assert static_files_naming("ndimension") == ["analysis/knowledge/torch_init.py"]


# ------------------------------------------------------ Megatron's init-method factories
MEGATRON_GOOD = Path(__file__).resolve().parent / "idioms" / "megatron_init_method" / "good.py"


def test_megatron_init_method_factories_are_registry_entries():
    assert static_files_naming("scaled_init_method_normal") == ["analysis/knowledge/parallel_layers.py"]


@pytest.mark.parametrize(
    "factory, expected",
    [
        ("scaled_init_method_normal(config.init_method_std, config.num_layers)", []),
        ("scaled_init_method_normal(config.init_method_std, config.num_layers, multiplier=2.0)", []),
        ("scaled_init_method_normal(config.init_method_std, config.num_layers, multiplier=1.0)", ["INI002"]),
        ("init_method_normal(config.init_method_std)", ["INI001", "INI001"]),
    ],
)
def test_scaled_init_method_normal_divides_sigma_by_sqrt_of_multiplier_times_depth(factory, expected):
    """Megatron-core: std = sigma / sqrt(multiplier * num_layers), multiplier 2 by default."""
    source = MEGATRON_GOOD.read_text(encoding="utf-8")
    written = "scaled_init_method_normal(config.init_method_std, config.num_layers)"
    assert written in source
    assert [code for _, code in reported(source.replace(written, factory))] == expected


# ------------------------------------------------------------------ torchvision's StochasticDepth
STOCHASTIC_DEPTH_IDIOM = Path(__file__).resolve().parent / "idioms" / "stochastic_depth_wrapper" / "bad.py"


def test_stochastic_depth_is_one_registry_entry():
    assert static_files_naming("StochasticDepth") == ["analysis/knowledge/torchvision.py"]


@pytest.mark.parametrize(
    "imported",
    [
        "from torchvision.ops import StochasticDepth",
        "from torchvision.ops.stochastic_depth import StochasticDepth",
        "from ..ops.stochastic_depth import StochasticDepth",
    ],
)
def test_stochastic_depth_passes_the_branch_through(imported):
    """Wherever it is imported from, the branch it wraps reaches the add: its writers are found."""
    source = STOCHASTIC_DEPTH_IDIOM.read_text(encoding="utf-8")
    written = "from torchvision.ops import StochasticDepth"
    assert written in source
    assert reported(source.replace(written, imported)) == expected_findings(source)


# ------------------------------------------------------------------ Tensor.erfinv_
def test_inverse_normal_cdf_is_one_registry_entry():
    assert static_files_naming("erfinv_") == ["analysis/knowledge/torch_init.py"]


# ------------------------------------------------------------------ nanotron's PipelineBlock
def test_pipeline_block_is_one_registry_entry():
    assert static_files_naming("PipelineBlock") == ["analysis/knowledge/parallel_layers.py"]
    assert static_files_naming("module_builder") == ["analysis/knowledge/parallel_layers.py"]


PIPELINE_IDIOM = Path(__file__).resolve().parent / "idioms" / "pipeline_block" / "bad.py"


@pytest.mark.parametrize("qualified", [True, False])
def test_pipeline_block_builds_its_stage_as_pp_block(qualified):
    """The stage a `PipelineBlock` builds is its child `pp_block`; a class of that name imported
    from anywhere else is a layer initlint cannot see: no stack, no finding."""
    source = PIPELINE_IDIOM.read_text(encoding="utf-8")
    if not qualified:
        source = source.replace("nanotron.parallel.pipeline_parallel.block", "mylib.pipeline")
    analysis = analyze(cst.parse_module(source))
    paths = sorted(writer.node.path for stack in analysis.stacks for writer in stack.writers)
    if qualified:
        assert paths == ["decoder.0.pp_block.attn.o_proj", "decoder.0.pp_block.down_proj"]
        assert reported(source) == expected_findings(source) != []
    else:
        assert paths == [] and reported(source) == []


# ------------------------------------------------------------------ PyTorch's own transformer layers
LIBRARY_BLOCKS = """
import math

import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab=1000, d=128, n_layer=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, batch_first=True, norm_first={norm_first}){marks}
        self.encoder = nn.TransformerEncoder(layer, n_layer)
        for name, p in self.named_parameters():
            if name.endswith({writers}):
                nn.init.normal_(p, std={std})

    def forward(self, ids):
        return self.encoder(self.embed(ids))
"""
WRITERS = '("out_proj.weight", "linear2.weight")'


def library_blocks(norm_first: str, writers: str, std: str, marks: str = "") -> str:
    return LIBRARY_BLOCKS.format(norm_first=norm_first, writers=writers, std=std, marks=marks)


def test_library_blocks_are_one_registry_entry():
    for name in ("TransformerEncoderLayer", "TransformerDecoderLayer", "norm_first", "linear2"):
        assert static_files_naming(name) == ["analysis/knowledge/torch_nn.py"], name


@pytest.mark.parametrize(
    "norm_first, writers, std, marks",
    [
        ("True", WRITERS, "0.02 / math.sqrt(2 * n_layer)", ""),
        ("True", WRITERS, "0.02", "  # expect: INI001, INI001"),
        ("True", '"linear2.weight"', "0.02 / math.sqrt(2 * n_layer)", "  # expect: INI001"),
        ("False", WRITERS, "0.02", ""),
    ],
)
def test_a_library_block_s_writers_and_norm_switch_come_from_the_registry(norm_first, writers, std, marks):
    source = library_blocks(norm_first, writers, std, marks)
    assert reported(source) == expected_findings(source)


def test_a_library_stack_repeats_its_block_as_many_times_as_its_depth_argument():
    source = library_blocks("True", WRITERS, "0.02 / math.sqrt(n_layer)")
    analysis = analyze(cst.parse_module(source), source=source)
    [stack] = analysis.stacks
    assert (stack.container.path, stack.depth.describe(), stack.adds_per_block, stack.prenorm) == (
        "encoder.layers",
        "1*n_layer",
        2,
        True,
    )
    assert sorted(writer.ref.display for writer in stack.writers) == ["linear2", "self_attn.out_proj"]


LIBRARY_LAYER = """
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = {construction}
"""


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize(
    "construction",
    [
        "nn.TransformerEncoderLayer(16, 2, 32, norm_first=True)",
        "nn.TransformerDecoderLayer(16, 2, 32, norm_first=True)",
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32), 3, nn.LayerNorm(16))",
        "nn.Transformer(16, 2, 2, 3, 32)",
    ],
)
def test_library_blocks_have_pytorch_s_parameters(construction):
    """The registry's sub-layers of a library block are the parameters PyTorch creates, by name."""
    torch = pytest.importorskip("torch")
    source = LIBRARY_LAYER.format(construction=construction)
    [root] = analyze(cst.parse_module(source), source=source).roots
    static = {name.replace(".*.", ".0.") for name, _, _ in display_parameters(root)}
    built = eval(construction, {"nn": torch.nn})  # noqa: S307 -- a constructor call written above
    first_copies = {f"m.{name}" for name, _ in built.named_parameters() if not re.search(r"layers\.[1-9]", name)}
    assert static == first_copies


# ------------------------------------------------------------------ torch-einops-utils
EINOPS_UTILS_MODEL = """
import math

import torch.nn as nn
from torch_einops_utils.nn import Identity, Sequential


class FeedForward(nn.Module):
    def __init__(self, dim, post_act_norm=False):
        super().__init__()
        self.net = Sequential(
            nn.Linear(dim, 4 * dim),
            nn.GELU(),
            nn.LayerNorm(4 * dim) if post_act_norm else None,
            nn.Linear(4 * dim, dim),{mark}
            Identity(),
        )

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = FeedForward(dim)

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Model(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        for block in self.blocks:
            nn.init.normal_(block.ff.net[2].weight, std={std})

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""


def test_torch_einops_utils_is_one_registry_entry():
    assert static_files_naming("torch_einops_utils") == ["analysis/knowledge/einops_utils.py"]


@pytest.mark.parametrize("std, scaled", [("0.02 / math.sqrt(depth)", True), ("0.02", False)])
def test_einops_utils_sequential_drops_none_and_its_last_linear_writes(std, scaled):
    """`Sequential` of torch-einops-utils numbers only the modules that are not None: the writer
    the init names `net[2]` is the Linear built fourth."""
    source = EINOPS_UTILS_MODEL.format(std=std, mark="" if scaled else "  # expect: INI001")
    analysis = analyze(cst.parse_module(source))
    assert [writer.ref.path for stack in analysis.stacks for writer in stack.writers] == ["ff.net.2"]
    assert reported(source) == expected_findings(source)
    assert bool(expected_findings(source)) is not scaled


# ------------------------------------------------------- config_class, fused add-and-norm
IDIOMS = Path(__file__).resolve().parent / "idioms"


def test_fused_norms_are_one_registry_entry():
    assert static_files_naming("FusedResidualNorm") == ["analysis/knowledge/fla.py", "analysis/knowledge/specs.py"]
    assert [path.name for path in KNOWLEDGE.glob("*.py") if "fla.modules" in path.read_text()] == ["fla.py"]


def test_config_class_types_an_unannotated_config():
    """Without `config_class` the undecided flag counts the adds of both arms (N = 4 * depth)."""
    from initlint.config import Settings
    from initlint.engine import lint_file

    findings = lint_file(IDIOMS / "config_class_types_config" / "bad.py", Settings(select=("INI0",)))
    assert [f.code for f in findings] == ["INI001", "INI001"]
    assert all("1/sqrt(2 * depth)" in f.message for f in findings)


# ------------------------------------------------------------------------ hyper-connections
HYPER_CONNECTIONS_MODEL = """
from functools import partial

import torch.nn as nn
from hyper_connections import HyperConnections


class Mlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width){mark}

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class Net(nn.Module):
    def __init__(self, width=64, depth=4):
        super().__init__()
        {connect}
        self.blocks = nn.ModuleList([connect(branch=Mlp(width){switch}) for _ in range(depth)])
        self.out = nn.Linear(width, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.out(x)
"""
_CONNECT_FORMS = (
    "connect = partial(HyperConnections, 4, dim=width)",
    "connect, _, _ = HyperConnections.get_init_and_expand_reduce_stream_functions(4, dim=width)",
)


def test_hyper_connections_are_one_registry_entry():
    assert static_files_naming("ManifoldConstrainedHyperConnections") == ["analysis/knowledge/hyper_connections.py"]
    assert static_files_naming("StreamConnection") == [
        "analysis/construction.py",
        "analysis/knowledge/hyper_connections.py",
        "analysis/knowledge/specs.py",
    ]


@pytest.mark.parametrize("connect", _CONNECT_FORMS)
@pytest.mark.parametrize("switch", ["", ", add_branch_out_to_residual=False"])
def test_a_connection_built_around_its_branch_adds_it(connect, switch):
    """`HyperConnections(n, dim=d, branch=mlp)`, made by `partial` or by the library's factory,
    runs its branch and adds it into the stream: the branch's last linear writes, unless the
    connection's add switch is off (the branch output then replaces the stream)."""
    adds = not switch
    source = HYPER_CONNECTIONS_MODEL.format(connect=connect, switch=switch, mark="  # expect: INI001" if adds else "")
    analysis = analyze(cst.parse_module(source))
    assert [writer.ref.path for stack in analysis.stacks for writer in stack.writers] == (
        ["branch.down"] if adds else []
    )
    assert reported(source) == expected_findings(source)


# ------------------------------------------------------------------- einops pack / unpack
PACKED_MODEL = """
import math

import torch
import torch.nn as nn
from einops import pack, unpack


class Mixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.back = nn.Linear(4 * dim, dim){mark}

    def forward(self, x):
        return self.back(self.fc(self.norm(x)).relu())


class Net(nn.Module):
    def __init__(self, dim=64, depth=4, n_summary=2):
        super().__init__()
        self.summary = nn.Parameter(torch.zeros(n_summary, dim))
        self.blocks = nn.ModuleList([Mixer(dim) for _ in range(depth)])
        for block in self.blocks:
            nn.init.normal_(block.back.weight, std={std})

    def forward(self, x):
        summary = self.summary.expand(x.shape[0], -1, -1)
        for block in self.blocks:
            joined, shapes = pack([summary, x], "b * d")
            summary_out, x_out = unpack(block(joined), shapes, "b * d")
            x = x + x_out
        return x
"""


def test_einops_pack_and_unpack_are_one_registry_entry_each():
    assert static_files_naming("einops.pack") == ["analysis/knowledge/einops.py"]
    assert static_files_naming("einops.unpack") == ["analysis/knowledge/einops.py"]


@pytest.mark.parametrize("std, scaled", [("0.02 / math.sqrt(depth)", True), ("0.02", False)])
def test_a_piece_unpack_hands_back_holds_what_the_packed_tensor_held(std, scaled):
    """The block runs on the stream packed with summary tokens; `unpack` hands back, as its
    second piece, the block's output on the stream's tokens: added back, its last linear writes."""
    source = PACKED_MODEL.format(std=std, mark="" if scaled else "  # expect: INI001")
    analysis = analyze(cst.parse_module(source))
    assert [writer.ref.path for stack in analysis.stacks for writer in stack.writers] == ["back"]
    assert reported(source) == expected_findings(source)
    assert bool(expected_findings(source)) is not scaled


# ------------------------------------------------------------------- fancy_einsum
def test_fancy_einsum_is_one_registry_entry():
    """Its package is named by one entry (the registry's own module imports it by that name)."""
    entry = [path.name for path in PACKAGE.rglob("*.py") if '"fancy_einsum"' in path.read_text()]
    assert entry == ["fancy_einsum.py"]
    assert static_files_naming("fancy_einsum") == [
        "analysis/knowledge/__init__.py",
        "analysis/knowledge/fancy_einsum.py",
    ]


@pytest.mark.parametrize("variant", ["bad", "good"])
def test_fancy_einsum_applies_the_weight_it_is_handed(variant):
    """`einsum("batch pos d_mlp, d_mlp d_model -> batch pos d_model", post, self.W_out)` of
    fancy_einsum computes as torch's einsum: its last weight writes what it returns."""
    source = (IDIOMS / "einsum_named_axes" / f"{variant}.py").read_text()
    analysis = analyze(cst.parse_module(source))
    assert sorted(writer.ref.display for stack in analysis.stacks for writer in stack.writers) == [
        "attn.W_O",
        "mlp.W_out",
    ]
    assert reported(source) == expected_findings(source)
