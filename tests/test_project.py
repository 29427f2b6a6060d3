"""The project layer on real multi-file projects: layout, imports, re-exports, callers, the cache.

`tests/projects/gptpkg` is copied into a temporary folder for each test (its cache must not land
in the repository); the edge cases build their own small trees.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import libcst
import pytest

from initlint.analysis.index import build_index
from initlint.project import CLASS, CONSTANT, DEFAULT, EXTERNAL, FUNCTION, MODULE, UNKNOWN, Project, project_for
from initlint.project.cache import DiskCache
from initlint.project.layout import MAX_FILE_BYTES
from initlint.project.store import SUMMARY_VERSION

FIXTURES = Path(__file__).resolve().parent / "projects"
REPO = Path(__file__).resolve().parent.parent


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.fixture
def gptpkg(tmp_path, monkeypatch) -> Path:
    # The default disk cache is the user's and outlives a test: each test starts with an empty one.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv("INITLINT_CACHE_DIR", raising=False)
    return Path(shutil.copytree(FIXTURES / "gptpkg", tmp_path / "gptpkg"))


def open_project(path: Path, cache=None) -> tuple[Project, str]:
    project = Project.for_file(path, cache_folder=cache)
    return project, project.module_name(path)


def test_src_layout_gives_the_root_and_dotted_names(gptpkg):
    project, module = open_project(gptpkg / "src" / "gptpkg" / "utils" / "init_helpers.py")
    assert project.root == gptpkg.resolve()
    assert module == "gptpkg.utils.init_helpers"
    assert project.module_name(gptpkg / "src" / "gptpkg" / "__init__.py") == "gptpkg"
    assert project.module_name(gptpkg / "scripts" / "train.py") == "train"
    assert project.module_name(gptpkg.parent / "elsewhere.py") is None


def test_relative_absolute_and_aliased_imports_reach_the_defining_file(gptpkg):
    project, module = open_project(gptpkg / "src" / "gptpkg" / "model.py")
    package = gptpkg.resolve() / "src" / "gptpkg"
    block = project.resolve_symbol(module, "Block")
    assert (block.kind, block.qualified, block.path) == (CLASS, "gptpkg.blocks.Block", package / "blocks.py")
    assert block.definition.info.name == "Block" and "forward" in block.definition.info.methods
    assert block.definition.index.resolve(block.definition.info.node.bases[0].value) == "torch.nn.Module"
    config = project.resolve_symbol(module, "GPTConfig")
    assert (config.kind, config.path) == (CLASS, package / "config.py")
    helpers = project.resolve_symbol(module, "init_helpers")
    assert (helpers.kind, helpers.qualified) == (MODULE, "gptpkg.utils.init_helpers")
    scaled = project.resolve_symbol(module, "scaled")  # `import ... as scaled`
    assert (scaled.kind, scaled.qualified) == (FUNCTION, "gptpkg.utils.init_helpers.scaled_normal_")
    assert scaled.definition.node.name.value == "scaled_normal_"
    normal = project.resolve_symbol(module, "init_helpers.normal_")
    assert (normal.kind, normal.definition.node.name.value) == (FUNCTION, "normal_")


def test_package_reexports_and_star_imports_are_followed(gptpkg):
    project, module = open_project(gptpkg / "scripts" / "train.py")
    gpt = project.resolve_symbol(module, "GPT")  # `from gptpkg import GPT`, re-exported by __init__
    assert (gpt.kind, gpt.qualified, gpt.path.name) == (CLASS, "gptpkg.model.GPT", "model.py")
    config = project.resolve_symbol(module, "Config")  # re-exported under another name
    assert config.qualified == "gptpkg.config.GPTConfig"
    assert project.resolve(module, "gptpkg.blocks.Attention").qualified == "gptpkg.layers.Attention"  # star
    assert project.resolve("gptpkg", "..blocks").kind == MODULE  # `from . import blocks`, as the index writes it
    assert project.resolve("gptpkg.model", "gptpkg.model.GPT.from_pretrained").attribute == ("from_pretrained",)
    assert project.resolve_symbol("gptpkg.config", "GPTConfig").definition.info.attributes["n_layer"].value == "12"


def test_names_outside_the_project_are_external(gptpkg):
    project, module = open_project(gptpkg / "src" / "gptpkg" / "layers.py")
    for local, qualified in [("nn", "torch.nn"), ("F", "torch.nn.functional")]:
        found = project.resolve_symbol(module, local)
        assert (found.kind, found.qualified) == (EXTERNAL, qualified)
    assert project.resolve_symbol(module, "nn.Linear").qualified == "torch.nn.Linear"
    assert project.resolve(module, "transformers.PreTrainedModel").kind == EXTERNAL
    assert project.resolve_symbol("gptpkg", "blocks.nn.LayerNorm").qualified == "torch.nn.LayerNorm"
    missing = project.resolve_symbol(module, "Missing")
    assert missing.kind == UNKNOWN and "defines no Missing" in missing.reason


def test_only_the_modules_a_name_reaches_are_read(gptpkg):
    write_tree(gptpkg / "src" / "gptpkg", {f"unrelated_{i}.py": "import torch\nX = 1\n" for i in range(20)})
    train = gptpkg / "scripts" / "train.py"
    project, module = open_project(train)
    source = train.read_text()
    tree = libcst.parse_module(source)
    project.add_source(train, source, tree, build_index(tree))  # the checked file: parsed by the engine
    project.resolve_symbol(module, "GPT")
    assert {path.name for path in project.store.parsed_paths()} == {"train.py", "__init__.py", "model.py"}
    assert project.store.counters.parses == 2


def test_namespace_packages_and_plain_scripts_resolve(tmp_path):
    root = write_tree(
        tmp_path / "proj",
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "ns/models/gpt.py": "import torch.nn as nn\nclass GPT(nn.Module):\n    pass\n",
            "ns/models/extra/more.py": "from ..gpt import GPT\n",
            "helpers.py": "SCALE = 0.02\nStd: TypeAlias = float\ndepth, width = 12, 768\n",
            "train.py": "import helpers\nfrom ns.models.gpt import GPT\nimport ns.models.extra.more as more\n",
        },
    )
    project, module = open_project(root / "train.py")
    assert module == "train"
    assert project.resolve_symbol(module, "GPT").path == root.resolve() / "ns" / "models" / "gpt.py"
    assert project.resolve_symbol(module, "helpers.SCALE").definition.node.value == "0.02"
    for name in ("Std", "depth", "width"):  # bindings the index does not keep: known, without syntax
        assert project.resolve_symbol(module, f"helpers.{name}").kind == CONSTANT
    assert project.resolve(module, "ns.models").kind == MODULE  # a bare folder: a namespace package
    assert project.resolve_symbol(module, "more.GPT").qualified == "ns.models.gpt.GPT"


def test_each_script_folder_sees_its_own_modules(tmp_path):
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": "",
            "examples/gpt/model.py": "class GPT:\n    pass\n",
            "examples/gpt/train.py": "from model import GPT as Model\n",
            "examples/bert/model.py": "class Bert:\n    pass\n",
            "examples/bert/train.py": "from model import Bert as Model\n",
        },
    )
    project = Project(root, cache_folder=None)
    for name, expected in [("gpt", "GPT"), ("bert", "Bert"), ("gpt", "GPT")]:
        module = project.module_name(root / "examples" / name / "train.py")
        found = project.resolve_symbol(module, "Model")
        assert (found.name, found.path) == (expected, root.resolve() / "examples" / name / "model.py")


def test_a_root_that_is_itself_a_package(tmp_path):
    write_tree(tmp_path, {"blocks.py": "class Elsewhere:\n    pass\n"})  # beside the root: never read
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": "",
            "__init__.py": "",
            "blocks.py": "class Block:\n    pass\n",
            "model.py": "from .blocks import Block\nclass GPT:\n    pass\n",
            "train.py": "from model import GPT\nimport blocks\n",
        },
    )
    project, module = open_project(root / "model.py")
    assert module == "proj.model"
    assert project.resolve_symbol(module, "Block").path == root.resolve() / "blocks.py"
    train = project.module_name(root / "train.py")
    assert project.resolve_symbol(train, "GPT").qualified == "model.GPT"
    assert project.resolve_symbol(train, "blocks.Block").path == root.resolve() / "blocks.py"


def test_a_submodule_named_like_what_it_exports_and_namespace_folders(tmp_path):
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "from .override import override\nfrom .config import Config\n",
            "pkg/override.py": "def override(x):\n    return x\nclass Spec:\n    pass\n",
            "pkg/config.py": "from .override import Spec as Config\n",
            "pkg/models/flux/__init__.py": "",
            "pkg/models/flux/model/model.py": "class Flux:\n    pass\n",  # no __init__.py in model/
            "pkg/models/flux/model/adapter.py": "from .model import Flux\nfrom ..utils import helper\n",
            "pkg/models/flux/utils.py": "def helper():\n    pass\n",
        },
    )
    project, module = open_project(root / "pkg" / "__init__.py")
    assert project.resolve_symbol(module, "override").kind == FUNCTION
    assert project.resolve_symbol(module, "Config").qualified == "pkg.override.Spec"
    adapter = project.module_name(root / "pkg" / "models" / "flux" / "model" / "adapter.py")
    assert adapter == "adapter"  # no __init__.py beside it: on its own, a top-level module ...
    assert project.resolve_symbol(adapter, "Flux").qualified == "pkg.models.flux.model.model.Flux"
    assert project.resolve_symbol(adapter, "helper").qualified == "pkg.models.flux.utils.helper"  # ... but
    # its relative imports only work when imported through the namespace folder, so they are read so


def test_import_cycles_end_in_unknown(tmp_path):
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": "",
            "a.py": "from b import X\nfrom c import *\n",
            "b.py": "from a import X\n",
            "c.py": "from a import *\n",
        },
    )
    project, module = open_project(root / "a.py")
    found = project.resolve_symbol(module, "X")
    assert found.kind == UNKNOWN and "cycle" in found.reason
    assert project.resolve_symbol(module, "Y").kind == UNKNOWN  # through the star-import loop


def test_star_imports_that_all_import_each_other_end_quickly(tmp_path):
    names = [f"m{i}" for i in range(16)]
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": "",
            **{f"{name}.py": "".join(f"from {other} import *\n" for other in names if other != name) for name in names},
        },
    )
    project, module = open_project(root / "m0.py")
    start = time.perf_counter()
    assert project.resolve_symbol(module, "Missing").kind == UNKNOWN
    assert time.perf_counter() - start < 5


def test_a_broken_sibling_degrades_to_unknown_and_the_rest_resolves(tmp_path):
    root = write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/good.py": "class Good:\n    pass\n",
            "pkg/broken.py": "class Broken(:\n",
            "pkg/model.py": "from .broken import Broken\nfrom .good import Good\nfrom .binary import Blob\nfrom .huge import Big\n",
        },
    )
    (root / "pkg" / "binary.py").write_bytes(b"class Blob:\n\0\0\0")
    (root / "pkg" / "huge.py").write_text("X = 1\n" * (MAX_FILE_BYTES // 6 + 1))
    project, module = open_project(root / "pkg" / "model.py")
    broken = project.resolve_symbol(module, "Broken")
    assert broken.kind == UNKNOWN and "broken.py: syntax error" in broken.reason
    assert "NUL" in project.resolve_symbol(module, "Blob").reason
    assert "larger than" in project.resolve_symbol(module, "Big").reason
    assert project.resolve_symbol(module, "Good").kind == CLASS
    write_tree(
        root,
        {"pkg/train.py": "from .good import Good\nm = Good()\nm.init_weights()\n", "pkg/bad.py": "m.init_weights(\n"},
    )
    assert [(site.path.name, site.receiver_class.qualified) for site in project.find_calls("init_weights")] == [
        ("train.py", "pkg.good.Good")
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_links_fifos_and_files_outside_the_root_are_never_read(tmp_path):
    outside = write_tree(tmp_path / "outside", {"secret.py": "class Secret:\n    pass\n"})
    root = write_tree(
        tmp_path / "proj",
        {"pyproject.toml": "", "main.py": "from fifo import F\nfrom loop import L\nfrom secret import Secret\n"},
    )
    os.mkfifo(root / "fifo.py")
    os.symlink(root / "loop.py", root / "loop2.py")
    os.symlink(root / "loop2.py", root / "loop.py")
    os.symlink(outside / "secret.py", root / "secret.py")
    project, module = open_project(root / "main.py")
    assert project.resolve_symbol(module, "F").kind == EXTERNAL  # a FIFO is no module (and did not block)
    assert project.resolve_symbol(module, "L").kind == EXTERNAL  # nor is a link loop
    assert project.resolve_symbol(module, "Secret").kind == EXTERNAL
    os.symlink(root, root / "again")  # a folder loop: the file walk does not follow it
    assert [path.name for path in project.python_files()] == ["main.py"]


NOTHING_RUNS = """
import sys
from initlint.project import Project
project = Project.for_file(sys.argv[1], cache_folder=None)
found = project.resolve_symbol(project.module_name(sys.argv[1]), "GPT")
sites = project.find_calls("_init_weights")
print(found.qualified, len(sites), "torch" in sys.modules, "gptpkg" in sys.modules)
"""


def test_nothing_of_the_project_is_imported_or_run(gptpkg):
    marker = gptpkg / "ran"
    model = gptpkg / "src" / "gptpkg" / "model.py"
    model.write_text(f"open({str(marker)!r}, 'w').close()\n" + model.read_text())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", NOTHING_RUNS, str(gptpkg / "scripts" / "train.py")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.stdout.split() == ["gptpkg.model.GPT", "2", "False", "False"], result.stderr
    assert not marker.exists()


def test_callers_of_entry_points_with_their_arguments(gptpkg):
    project, module = open_project(gptpkg / "src" / "gptpkg" / "model.py")
    gpt = project.resolve_symbol(module, "GPT")
    applied = project.find_calls("_init_weights", gpt)
    assert [(site.path.name, site.line, site.via, site.receiver) for site in applied] == [
        ("train.py", 11, "apply", "model"),
        ("model.py", 25, "apply", "self"),
    ]
    train = applied[0]
    assert train.receiver_class.qualified == "gptpkg.model.GPT" and train.column == 5
    assert [(arg.keyword.value, train.parsed.module.code_for_node(arg.value)) for arg in train.arguments] == [
        ("n_layer", "config.n_layer")
    ]
    (gptpkg / "scripts" / "train.py").unlink()
    assert project.find_calls("_init_weights", gpt) == applied  # asked again: answered from memory, not disk
    direct = project.find_calls("init_weights", gpt)
    assert [(site.path.name, site.via, site.receiver_class.qualified) for site in direct] == [
        ("finetune.py", "call", "gptpkg.model.GPT")
    ]


def test_caller_search_parses_only_files_that_use_the_name(gptpkg):
    write_tree(gptpkg / "scripts", {"other.py": "class Other:\n    def init_weights(self):\n        pass\n"})
    project, _ = open_project(gptpkg / "src" / "gptpkg" / "config.py", DEFAULT)
    project.find_calls("init_weights")
    # Of the 11 files, five mention the name (model, train, finetune, notes, other): only they are
    # kept and summarised (finetune.py's `from gptpkg.model import GPT` needs no other file)
    assert project.store.counters.reads == project.store.counters.parses == 5
    warm, _ = open_project(gptpkg / "src" / "gptpkg" / "config.py", DEFAULT)
    assert [site.path.name for site in warm.find_calls("init_weights")] == ["finetune.py"]
    # the summaries say that only finetune.py calls it (the others define it, apply `_init_weights`
    # or name it in a comment); model.py is parsed for the definition of the receiver's class
    assert {path.name for path in warm.store.parsed_paths()} == {"finetune.py", "model.py"}
    gpt = project.resolve_symbol("gptpkg.model", "GPT")
    write_tree(gptpkg / "scripts", {"more.py": "from other import Other\nm = Other()\nm.init_weights()\n"})
    fresh, _ = open_project(gptpkg / "scripts" / "more.py")
    kept = fresh.find_calls("init_weights", gpt)
    assert {site.path.name for site in kept} == {"finetune.py"}  # `Other()` is another class


def test_disk_cache_answers_without_parsing_and_ignores_corrupt_entries(gptpkg, tmp_path):
    cache = tmp_path / "user-cache" / "initlint"
    first, module = open_project(gptpkg / "scripts" / "train.py", DEFAULT)
    first.resolve(module, "gptpkg.GPT")
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    entries = sorted(cache.glob("summaries/*/*/*.json"))
    assert len(entries) == 2 and all(json.loads(e.read_text())["version"] == SUMMARY_VERSION for e in entries)
    entries[0].write_text("{not json")
    second, _ = open_project(gptpkg / "scripts" / "train.py", DEFAULT)
    assert second.resolve(module, "gptpkg.GPT").qualified == "gptpkg.model.GPT"
    assert (second.store.counters.disk_hits, second.store.counters.parses) == (1, 1)
    assert json.loads(entries[0].read_text())["version"] == SUMMARY_VERSION  # rewritten
    assert not (gptpkg / ".initlint_cache").exists()  # never in the checked repository by default


def test_cache_folder_choice(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    installed = write_tree(
        tmp_path / "lib" / "site-packages" / "pkg", {"__init__.py": "X = 1\n", "m.py": "from . import X\n"}
    )
    project, module = open_project(installed / "m.py", DEFAULT)
    project.resolve(module, "..X")
    assert list((tmp_path / "user" / "initlint").glob("summaries/*/*/*.json"))
    assert not list((tmp_path / "lib").rglob("*.json"))
    monkeypatch.setenv("INITLINT_CACHE_DIR", "")
    assert not open_project(installed / "m.py", DEFAULT)[0].store.disk.enabled
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # a cache folder that cannot be made: no disk cache, same answers
    project, module = open_project(installed / "m.py", blocked / "cache")
    assert project.resolve(module, "..X").kind == CONSTANT and not project.store.disk.enabled


CONCURRENT_RUN = """
import sys
from initlint.analysis.index import build_index
from initlint.project import Project
project = Project.for_file(sys.argv[1], cache_folder=sys.argv[2])
module = project.module_name(sys.argv[1])
sites = project.find_calls("_init_weights")
print(project.resolve_symbol(module, "GPT").qualified, [(s.path.name, s.line) for s in sites])
"""


def test_concurrent_runs_share_one_cache_safely(gptpkg):
    cache = gptpkg.parent / "shared-cache"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-c", CONCURRENT_RUN, str(gptpkg / "scripts" / "train.py"), str(cache)]
    runs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in range(6)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in outputs]
    assert len({out for out, _ in outputs}) == 1 and "gptpkg.model.GPT" in outputs[0][0]
    assert not list(cache.rglob(".tmp-*"))
    assert all(
        json.loads(entry.read_text())["version"] == SUMMARY_VERSION for entry in cache.glob("summaries/*/*/*.json")
    )


def test_two_summary_formats_keep_their_own_entries(tmp_path):
    """pre-commit's initlint and a project's own may differ in summary format while sharing the
    user cache: each reads back its own entry instead of rewriting the other's."""
    digest = "ab" + "0" * 62
    older, newer = DiskCache(tmp_path, SUMMARY_VERSION - 1), DiskCache(tmp_path, SUMMARY_VERSION)
    older.put(digest, {"digest": digest, "version": SUMMARY_VERSION - 1})
    newer.put(digest, {"digest": digest, "version": SUMMARY_VERSION})
    assert older.get(digest) == {"digest": digest, "version": SUMMARY_VERSION - 1}
    assert newer.get(digest) == {"digest": digest, "version": SUMMARY_VERSION}


def test_project_for_shares_one_project_per_root(gptpkg):
    one = project_for(gptpkg / "scripts" / "train.py", cache_folder=None)
    two = project_for(gptpkg / "src" / "gptpkg" / "model.py", cache_folder=None)
    assert one is two and two.module_name(gptpkg / "scripts" / "train.py") == "train"


def test_installed_code_is_its_own_package_not_the_venv_or_its_project(tmp_path, monkeypatch):
    # A venv inside a project: walking up from an installed file meets site-packages, then the
    # project's pyproject.toml. Neither is the project of that file: its package is.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    site = tmp_path / "proj" / ".venv" / "lib" / "python3.11" / "site-packages"
    write_tree(tmp_path / "proj", {"pyproject.toml": "[project]\nname = 'proj'\n"})
    write_tree(site, {"otherlib/__init__.py": "", "mylib/__init__.py": "", "mylib/blocks.py": "X = 1\n"})
    (site / "single.py").write_text("Y = 2\n")
    project, module = open_project(site / "mylib" / "blocks.py")
    assert project.root == (site / "mylib").resolve() and module == "mylib.blocks"
    assert project.module_name(site / "otherlib" / "__init__.py") is None
    assert Project.for_file(site / "single.py").root == site.resolve()
    assert Project.for_file(tmp_path / "proj" / "pyproject.toml").root == (tmp_path / "proj").resolve()


def test_a_folder_pip_installed_into_is_installed_code_too(tmp_path, monkeypatch):
    # `pip install --target vendor` (or an unpacked wheel) inside a repository: the `*.dist-info`
    # beside the package says so; the repository's `.git` above is not that package's project.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    write_tree(tmp_path / "repo", {".git/HEAD": "ref: refs/heads/main\n"})
    vendor = tmp_path / "repo" / "vendor"
    write_tree(vendor, {"mylib/__init__.py": "", "mylib/blocks.py": "X = 1\n", "mylib-1.0.dist-info/METADATA": ""})
    project, module = open_project(vendor / "mylib" / "blocks.py")
    assert project.root == (vendor / "mylib").resolve() and module == "mylib.blocks"
    (vendor / "loose.py").write_text("Y = 2\n")  # a plain module there is no package: as before
    assert Project.for_file(vendor / "loose.py").root == (tmp_path / "repo").resolve()


def test_every_file_of_an_installed_package_shares_its_root_and_imports(tmp_path, monkeypatch):
    # `esm/model/` has no `__init__.py` (a namespace folder inside a regular package): its files
    # get the package's root too, and `from esm.modules import ...` is found from above the root.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    wheel = tmp_path / "unpacked"
    write_tree(
        wheel,
        {
            "esm-2.0.dist-info/METADATA": "",
            "esm/__init__.py": "",
            "esm/modules.py": "class Layer:\n    pass\n",
            "esm/model/big.py": "from esm.modules import Layer\n",
        },
    )
    project, module = open_project(wheel / "esm" / "model" / "big.py")
    assert project.root == (wheel / "esm").resolve()
    assert Project.for_file(wheel / "esm" / "modules.py").root == project.root
    assert (
        project.resolve(project.layout.location_of(wheel / "esm" / "model" / "big.py"), "esm.modules.Layer").kind
        == CLASS
    )


@pytest.mark.parametrize(
    "model_file, writers",
    [
        ("phi3/modeling_phi3.py", ("self.o_proj = ", "self.down_proj = ")),
        # its base `BackboneMixin._init_timm_backbone` (read from transformers' source) sets
        # attributes only: no init left to a trainer, so it must not silence the model
        (
            "vitpose_backbone/modeling_vitpose_backbone.py",
            ("self.dense = nn.Linear", "self.fc2 = nn.Linear(hidden_features, out_features, bias=True)"),
        ),
    ],
)
def test_a_real_installed_transformers_model_is_checked_like_its_source(tmp_path, monkeypatch, model_file, writers):
    # Installed model files are what `initlint check $(python -c ...)` users point at first; before
    # this, site-packages became the project and the findings were lost in it.
    import importlib.util

    from initlint.config import Settings
    from initlint.engine import lint_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        pytest.skip("transformers is not installed")
    package = Path(spec.origin).parent
    if not any(part in ("site-packages", "dist-packages") for part in package.parts):
        pytest.skip("transformers is not an installed copy here")
    model = package / "models" / model_file
    assert Project.for_file(model).root == package.resolve()
    lines = model.read_text(encoding="utf-8").splitlines()
    built = {number for number, line in enumerate(lines, 1) if any(writer in line for writer in writers)}
    findings = lint_file(model, Settings())
    assert {(f.code, f.line) for f in findings} == {("INI001", line) for line in built}


def test_project_text_reads_each_file_once_and_answers_byte_searches_in_file_order(tmp_path, monkeypatch):
    from initlint.project import text as text_module

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text("class GPT:\n    pass\n")
    (tmp_path / "b.py").write_text("from a import GPT\nmodel = GPT()\n")
    (tmp_path / "c.py").write_text("# GPTConfig lives elsewhere\n")
    reads: list[Path] = []
    real_read = text_module.read_regular
    monkeypatch.setattr(text_module, "read_regular", lambda path: reads.append(path) or real_read(path))
    project = Project(tmp_path, cache_folder=None)
    assert _names(project.text.containing(b"GPT")) == ["a.py", "b.py", "c.py"]
    assert _names(project.text.containing(b"GPT()")) == ["b.py"]
    assert [project.text.defines_class(path) for path in project.python_files()] == [True, False, False]
    assert _names(reads) == ["a.py", "b.py", "c.py"]


def _names(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]
