#!/usr/bin/env python
"""Mutation test: plant the seed init bugs into correct real model files and count what initlint sees.

    python scripts/mutation.py                 # download if needed, mutate, lint, print the table
    python scripts/mutation.py --limit 3       # only the first 3 target files (a quick check)
    python scripts/mutation.py --verbose       # one line per mutant: detected or not, and what was new
    python scripts/mutation.py --json out.json # also the counts per kind, to compare two runs

Each target is a model file from a pinned wheel (downloaded at run time into `.corpus/`, never
committed) whose depth-scaled init of the residual writers was read and found correct; `sites`
are the lines where the depth factor of the writers' init stands (other depth factors in the file,
such as CLIP-style q/k/v scaling, are not the writers' and are left alone). Each bug kind is a
LibCST transform of that tree (never a text edit):

- `drop-depth-factor`: `std / math.sqrt(2 * n_layer)` -> `std` (expected INI001)
- `n-instead-of-2n`: `2 * n_layer` -> `n_layer` (expected INI002)
- `break-name-test`: the string of the writer's name test loses its last letter (`c_proj` ->
  `c_prof`) (expected INI001); only where the scaled init is chosen by a name string
- `generic-reinit`: a `for name, p in self.named_parameters(): normal_(p, std=0.02)` over every
  matrix after the init has run (expected INI001); `generic-reinit-modules`: the same over
  `self.modules()` of the writers' class (`nn.Linear`, `Conv1D`, ...), re-initialising `.weight`
- `runtime-divide`: `/ math.sqrt(2 * self.config.n_layer)` on a branch at its residual add in the
  block's `forward`, on top of the scaled init (expected INI003)
- `drop-scale-flag`: the statement that sets a scaling flag on a writer is removed, or a
  `rescale...=True` default becomes False (expected INI001); only where the file has one

and the neutral edits, which must produce no new finding: `rename-local` (a local of the init
function), `reorder-statements` (two independent layer assignments of the block's `__init__`),
`add-docstring`, `add-unrelated-layer` (an unused `nn.Linear` on the block).

A mutant counts as detected when initlint reports an INI0xx finding that the original file does
not have (findings are compared by code and the layer they name, so shifted lines do not count);
the table also says how many were detected with the expected code. Deterministic: no randomness,
targets and transforms in a fixed order.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus_eval  # noqa: E402  (the pinned packages and their download live there)

DEPTH_NAME = re.compile(r"^(n_layers?|num_hidden_layers|num_layers|n_layer)$")
WRITER_STRING = re.compile(r"(c_proj|o_proj|out_proj|down_proj|dense_4h_to_h|fc2|w2|proj)")
FLAG_NAME = re.compile(r"(SCALE|scale_init|_is_residual|RESIDUAL|rescale)", re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    package: str
    path: str
    #: Lines holding the depth factor of the residual writers' init (read in the pinned source).
    sites: tuple[int, ...]
    #: The block class whose forward holds the residual adds.
    block: str
    #: The config attribute holding the depth, as the block's `config` argument names it.
    depth: str
    #: The class of the writers, as the file names it (for a re-init loop over modules).
    writer_class: str = "nn.Linear"
    #: Where model, blocks and init live in different modules: the other files of the project,
    #: linted in one run with the mutant (in a copy of the package, so imports resolve on disk).
    project: tuple[str, ...] = ()
    #: Kinds that would plant no bug in this file (read in the source; the reason is at the target).
    skip: tuple[str, ...] = ()


MPT_PROJECT = (
    "llmfoundry/models/mpt/modeling_mpt.py",
    "llmfoundry/models/layers/blocks.py",
    "llmfoundry/models/layers/attention.py",
    "llmfoundry/models/layers/ffn.py",
    "llmfoundry/models/utils/param_init_fns.py",
)

# Chosen by reading each file: pre-norm blocks with two residual adds, writers scaled by
# 1/sqrt(2 * n_layer) in the init the model runs by default.
TARGETS = (
    Target("transformers", "transformers/models/gpt2/modeling_gpt2.py", (447,), "GPT2Block", "n_layer", "Conv1D"),
    Target(
        "transformers", "transformers/models/gpt_bigcode/modeling_gpt_bigcode.py", (360,), "GPTBigCodeBlock", "n_layer"
    ),
    Target(
        "transformers",
        "transformers/models/decision_transformer/modeling_decision_transformer.py",
        (343,),
        "DecisionTransformerGPT2Block",
        "n_layer",
        "Conv1D",
    ),
    Target(
        "transformers",
        "transformers/models/imagegpt/modeling_imagegpt.py",
        (381,),
        "ImageGPTBlock",
        "n_layer",
        "Conv1D",
    ),
    # nanochat scales o_proj only (fc2 is a known true positive); the mutants touch o_proj.
    Target(
        "transformers",
        "transformers/models/nanochat/modeling_nanochat.py",
        (334,),
        "NanoChatDecoderLayer",
        "num_hidden_layers",
    ),
    # clvp: the decoder's c_proj is scaled (line 799); line 782 scales q/k/v, not a writer.
    Target(
        "transformers",
        "transformers/models/clvp/modeling_clvp.py",
        (799,),
        "ClvpDecoderLayer",
        "num_hidden_layers",
        "Conv1D",
    ),
    # ModernBERT: pre-norm encoder/decoder, "out" std for both Wo layers.
    Target(
        "transformers",
        "transformers/models/modernbert/modeling_modernbert.py",
        (363,),
        "ModernBertEncoderLayer",
        "num_hidden_layers",
    ),
    Target(
        "transformers",
        "transformers/models/modernbert_decoder/modeling_modernbert_decoder.py",
        (388,),
        "ModernBertDecoderLayer",
        "num_hidden_layers",
    ),
    # CLIP-style towers whose out_proj and c_proj both get proj_std (the CLIP family scales c_proj only).
    Target(
        "transformers",
        "transformers/models/bridgetower/modeling_bridgetower.py",
        (891,),
        "BridgeTowerResidualAttention",
        "num_hidden_layers",
    ),
    Target(
        "transformers",
        "transformers/models/oneformer/modeling_oneformer.py",
        (2817,),
        "OneFormerTextTransformerLayer",
        "num_layers",
    ),
    # microgpt: the nanoGPT recipe verbatim (a named_parameters() loop with a c_proj name test).
    Target("microgpt", "microgpt/model.py", (133,), "Block", "n_layer"),
    # llm-foundry MPT: out_proj/down_proj flagged `_is_residual` in the layers, divided by
    # sqrt(2 * n_layers) in param_init_fns (init_div_is_residual defaults to True).
    Target(
        "llm-foundry",
        "llmfoundry/models/layers/attention.py",
        (),
        "MPTBlock",
        "n_layers",
        project=MPT_PROJECT,
    ),
    Target("llm-foundry", "llmfoundry/models/layers/ffn.py", (), "MPTBlock", "n_layers", project=MPT_PROJECT),
    # The `init_div_is_residual=True` default of generic_param_init_fn_ is overridden by the
    # model's init_config, so turning it off plants nothing.
    Target(
        "llm-foundry",
        "llmfoundry/models/utils/param_init_fns.py",
        (559,),
        "MPTBlock",
        "n_layers",
        project=MPT_PROJECT,
        skip=("drop-scale-flag",),
    ),
    # nanotron: an explicit entry point (init_model_randomly) scales every row-parallel linear.
    Target(
        "nanotron",
        "nanotron/models/llama.py",
        (930,),
        "LlamaDecoderLayer",
        "num_hidden_layers",
        "TensorParallelRowLinear",
    ),
    Target(
        "nanotron", "nanotron/models/starcoder2.py", (1512,), "GPTBlock", "num_hidden_layers", "TensorParallelRowLinear"
    ),
)

BUG_KINDS = {
    "drop-depth-factor": "INI001",
    "n-instead-of-2n": "INI002",
    "break-name-test": "INI001",
    "generic-reinit": "INI001",
    "generic-reinit-modules": "INI001",
    "runtime-divide": "INI003",
    "drop-scale-flag": "INI001",
}
NEUTRAL_KINDS = ("rename-local", "reorder-statements", "add-docstring", "add-unrelated-layer")

# Over parameters, not `nn.Linear` modules: GPT-2's writers are `Conv1D`s, which a Linear-only
# loop would leave alone (no bug planted).
REINIT_LOOP = """
for reinit_name, reinit_param in self.named_parameters():
    if reinit_param.dim() >= 2:
        torch.nn.init.normal_(reinit_param, mean=0.0, std=0.02)
"""
MODULES_REINIT_LOOP = """
for reinit_module in self.modules():
    if isinstance(reinit_module, {writer_class}):
        torch.nn.init.normal_(reinit_module.weight, mean=0.0, std=0.02)
"""


class NotApplicable(Exception):
    """The file has nothing this transform can act on (e.g. no name test, no flag)."""


def terminal_name(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def mentions_depth(node: cst.CSTNode) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            if DEPTH_NAME.match(name.value):
                found.append(name)

    node.visit(Finder())
    return bool(found)


def is_two(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.value) == 2.0


class SiteTransformer(cst.CSTTransformer):
    """A transformer that only acts on expressions starting on one of the target's site lines."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, sites: tuple[int, ...]) -> None:
        super().__init__()
        self.sites = sites
        self.changed = 0

    def on_site(self, node: cst.CSTNode) -> bool:
        position = self.get_metadata(PositionProvider, node)
        return any(position.start.line <= site <= position.end.line for site in self.sites)


class DropDepthFactor(SiteTransformer):
    def leave_BinaryOperation(self, original, updated):
        if not self.on_site(original):
            return updated
        if (
            isinstance(updated.operator, cst.Divide)
            and mentions_depth(updated.right)
            and not mentions_depth(updated.left)
        ):
            self.changed += 1
            return updated.left
        if isinstance(updated.operator, cst.Multiply):
            for keep, factor in ((updated.left, updated.right), (updated.right, updated.left)):
                if (
                    mentions_depth(factor)
                    and not mentions_depth(keep)
                    and isinstance(factor, (cst.BinaryOperation, cst.Call))
                ):
                    self.changed += 1
                    return keep
        return updated

    def leave_Assign(self, original, updated):
        value = updated.value
        if self.on_site(original) and isinstance(value, cst.Call) and mentions_depth(value):
            if terminal_name(value.func) == "sqrt":
                self.changed += 1
                return updated.with_changes(value=cst.Float("1.0"))
        return updated


class HalveDepth(SiteTransformer):
    def leave_BinaryOperation(self, original, updated):
        if not self.on_site(original) or not isinstance(updated.operator, cst.Multiply):
            return updated
        for two, depth in ((updated.left, updated.right), (updated.right, updated.left)):
            if is_two(two) and mentions_depth(depth):
                self.changed += 1
                return depth
        return updated


def misspell(value: str) -> str:
    body = value.strip("'\"")
    match = WRITER_STRING.search(body)
    if not match:
        return value
    word = match.group(0)
    broken = word[:-1] + ("f" if word[-1] != "f" else "g")
    return value.replace(word, broken, 1)


def break_name_test(module: cst.Module, target: Target) -> cst.Module:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    tests: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            body = positions[node.body]
            if any(body.start.line <= site <= body.end.line for site in target.sites):
                tests.append(node.test)

    module.visit(Collect())
    strings = {id(s) for test in tests for s in _strings_in(test) if WRITER_STRING.search(s.value.strip("'\""))}
    if not strings:
        raise NotApplicable("the scaled init is not chosen by a name string")

    class Break(cst.CSTTransformer):
        def leave_SimpleString(self, original, updated):
            return updated.with_changes(value=misspell(updated.value)) if id(original) in strings else updated

    return module.visit(Break())


def _strings_in(node: cst.CSTNode) -> list[cst.SimpleString]:
    found: list[cst.SimpleString] = []

    class Finder(cst.CSTVisitor):
        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            found.append(string)

    node.visit(Finder())
    return found


def _functions_at(module: cst.Module, lines: tuple[int, ...]) -> list[cst.FunctionDef]:
    """The innermost functions containing any of the lines."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found: list[cst.FunctionDef] = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            span = positions[node]
            if any(span.start.line <= line <= span.end.line for line in lines):
                found.append(node)

    module.visit(Finder())
    return found[-1:]


def _parameter_names(function: cst.FunctionDef) -> set[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return {p.name.value for p in every}


def _class(module: cst.Module, name: str) -> cst.ClassDef:
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == name:
            return statement
    raise NotApplicable(f"no class {name}")


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef:
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement
    raise NotApplicable(f"{cls.name.value} has no {name}")


def _replace(module: cst.Module, old: cst.CSTNode, new: cst.CSTNode) -> cst.Module:
    return module.deep_replace(old, new)


def _calls_self_method(statement: cst.CSTNode, names: tuple[str, ...]) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and func.attr.value in names
            ):
                found.append(call)

    statement.visit(Finder())
    return bool(found)


def generic_reinit(module: cst.Module, target: Target, text: str = REINIT_LOOP) -> cst.Module:
    loop = cst.parse_module(text.format(writer_class=target.writer_class).lstrip("\n")).body
    function = _functions_at(module, target.sites)
    if not function:
        raise NotApplicable("the site is not in a function")
    init_function = function[0]
    if "module" not in _parameter_names(init_function):
        # A whole-model init (nanoGPT's __init__ loop, an explicit entry point): re-init at its end.
        body = init_function.body
        return _replace(
            module, init_function, init_function.with_changes(body=body.with_changes(body=[*body.body, *loop]))
        )
    # A per-module `_init_weights(module)` runs from post_init(): re-init after every post_init(),
    # head classes included (their post_init() would otherwise redo the scaled init).
    replacements = {}
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef):
            continue
        try:
            constructor = _method(statement, "__init__")
        except NotApplicable:
            continue
        body = list(constructor.body.body)
        hits = [i for i, s in enumerate(body) if _calls_self_method(s, ("post_init", "apply", "init_weights"))]
        if hits:
            body[hits[-1] + 1 : hits[-1] + 1] = loop
            replacements[constructor] = constructor.with_changes(body=constructor.body.with_changes(body=body))
    if not replacements:
        raise NotApplicable("no constructor runs the init")

    class Replace(cst.CSTTransformer):
        def leave_FunctionDef(self, original, updated):
            return replacements.get(original, updated)

    return module.visit(Replace())


def _first_residual_add(forward: cst.FunctionDef) -> tuple[cst.BinaryOperation, str]:
    """The first `a = x + branch` in forward (at any nesting), and which side is the branch."""
    assigns: list[cst.Assign] = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            assigns.append(node)

    forward.visit(Finder())
    for small in assigns:
        add = small.value
        if not (isinstance(add, cst.BinaryOperation) and isinstance(add.operator, cst.Add)):
            continue
        target = terminal_name(small.targets[0].target)
        sides = (("right", add.left), ("left", add.right))
        # A side named `residual` is the stream; only without one does `x = x + f(x)` decide.
        for side, other in sides:
            if terminal_name(other) == "residual":
                return add, side
        for side, other in sides:
            if terminal_name(other) == target and not isinstance(other, cst.Call):
                return add, side
        calls = [side for side, other in sides if isinstance(getattr(add, side), cst.Call)]
        if len(calls) == 1:
            return add, calls[0]
    raise NotApplicable("no residual add in the block's forward")


def runtime_divide(module: cst.Module, target: Target) -> cst.Module:
    block = _class(module, target.block)
    forward = _method(block, "forward")
    constructor = _method(block, "__init__")
    if "config" not in _parameter_names(constructor):
        raise NotApplicable("the block gets no config")
    add, side = _first_residual_add(forward)
    divisor = cst.parse_expression(f"math.sqrt(2 * self.config.{target.depth})")
    branch = getattr(add, side)
    divided = cst.BinaryOperation(left=branch, operator=cst.Divide(), right=divisor)
    new_forward = forward.deep_replace(add, add.with_changes(**{side: divided}))
    body = list(constructor.body.body)
    if "self.config =" not in cst.Module(body=[]).code_for_node(constructor):
        body.insert(1, cst.parse_statement("self.config = config"))
    new_constructor = constructor.with_changes(body=constructor.body.with_changes(body=body))
    new_block = block.with_changes(
        body=block.body.with_changes(
            body=[new_forward if s is forward else new_constructor if s is constructor else s for s in block.body.body]
        )
    )
    changed = _replace(module, block, new_block)
    return _ensure_import(changed, "math")


def _ensure_import(module: cst.Module, name: str) -> cst.Module:
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import) and any(
                    cst.Module(body=[]).code_for_node(alias.name) == name for alias in small.names
                ):
                    return module
    return module.with_changes(body=[cst.parse_statement(f"import {name}"), *module.body])


def drop_scale_flag(module: cst.Module, target: Target) -> cst.Module:
    """Removes `self.x.FLAG = 1`-style flag statements, or turns `rescale...=True` defaults off."""
    removed = []

    class Drop(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original, updated):
            small = updated.body[0] if len(updated.body) == 1 else None
            if isinstance(small, cst.Assign) and not removed:
                target = small.targets[0].target
                name = terminal_name(target)
                # A flag marks a layer (`self.c_proj.FLAG = 1`), not the module itself
                # (`self.softmax_scale = ...` is a value, not a flag).
                on_layer = isinstance(target, cst.Attribute) and isinstance(target.value, cst.Attribute)
                constant = cst.Module(body=[]).code_for_node(small.value) in ("True", "1", "1.0")
                if name and FLAG_NAME.search(name) and on_layer and constant:
                    removed.append(name)
                    return cst.RemoveFromParent()
            return updated

        def leave_Param(self, original, updated):
            if (
                not removed
                and FLAG_NAME.search(updated.name.value)
                and isinstance(updated.default, cst.Name)
                and updated.default.value == "True"
            ):
                removed.append(updated.name.value)
                return updated.with_changes(default=cst.Name("False"))
            return updated

    changed = module.visit(Drop())
    if not removed:
        raise NotApplicable("no scaling flag")
    return changed


def rename_local(module: cst.Module, target: Target) -> cst.Module:
    function = _functions_at(module, target.sites)
    if not function:
        raise NotApplicable("the site is not in a function")
    function = function[0]
    params = _parameter_names(function)
    candidates: list[str] = []

    class Locals(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Name):
                candidates.append(node.target.value)

        def visit_For(self, node: cst.For) -> None:
            if isinstance(node.target, cst.Name):
                candidates.append(node.target.value)
            elif isinstance(node.target, cst.Tuple):
                candidates.extend(e.value.value for e in node.target.elements if isinstance(e.value, cst.Name))

    function.visit(Locals())
    names = [name for name in candidates if name not in params]
    if not names:
        raise NotApplicable("the init function has no local")
    old, new = names[0], names[0] + "_renamed"

    class Rename(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return updated.with_changes(value=new) if updated.value == old else updated

        # Keyword names and attribute names are not the local, even when spelled alike.
        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword) if original.keyword else updated

        def leave_Attribute(self, original, updated):
            return updated.with_changes(attr=original.attr)

    return _replace(module, function, function.visit(Rename()))


def _self_assigned(statement: cst.CSTNode) -> str | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
            ):
                return target.attr.value
    return None


def reorder_statements(module: cst.Module, target: Target) -> cst.Module:
    block = _class(module, target.block)
    constructor = _method(block, "__init__")
    body = list(constructor.body.body)
    code = cst.Module(body=[]).code_for_node
    for i in range(len(body) - 1):
        first, second = _self_assigned(body[i]), _self_assigned(body[i + 1])
        if first and second and first not in code(body[i + 1]) and second not in code(body[i]):
            body[i], body[i + 1] = body[i + 1], body[i]
            new = constructor.with_changes(body=constructor.body.with_changes(body=body))
            return _replace(module, constructor, new)
    raise NotApplicable("no two independent layer assignments")


def add_docstring(module: cst.Module, target: Target) -> cst.Module:
    block = _class(module, target.block)
    forward = _method(block, "forward")
    docstring = cst.parse_statement('"""Adds the attention and MLP branches to the residual stream."""')
    body = list(forward.body.body)
    if forward.get_docstring() is not None:
        body = body[1:]
    new = forward.with_changes(body=forward.body.with_changes(body=[docstring, *body]))
    return _replace(module, forward, new)


def add_unrelated_layer(module: cst.Module, target: Target) -> cst.Module:
    block = _class(module, target.block)
    constructor = _method(block, "__init__")
    layer = cst.parse_statement("self.unrelated_probe = torch.nn.Linear(8, 8)")
    new = constructor.with_changes(body=constructor.body.with_changes(body=[*constructor.body.body, layer]))
    return _ensure_import(_replace(module, constructor, new), "torch")


def _site_transform(kind: type[SiteTransformer]):
    def apply(module: cst.Module, target: Target) -> cst.Module:
        transformer = kind(target.sites)
        changed = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
        if not transformer.changed:
            raise NotApplicable("nothing to change on the site lines")
        return changed

    return apply


MUTATORS = {
    "drop-depth-factor": _site_transform(DropDepthFactor),
    "n-instead-of-2n": _site_transform(HalveDepth),
    "break-name-test": break_name_test,
    "generic-reinit": generic_reinit,
    "generic-reinit-modules": lambda module, target: _ensure_import(
        generic_reinit(module, target, MODULES_REINIT_LOOP), "torch"
    ),
    "runtime-divide": runtime_divide,
    "drop-scale-flag": drop_scale_flag,
    "rename-local": rename_local,
    "reorder-statements": reorder_statements,
    "add-docstring": add_docstring,
    "add-unrelated-layer": add_unrelated_layer,
}

FIRST_BACKTICK = re.compile(r"`([^`]*)`")


def keys_of(findings) -> Counter:
    """Findings by code and the layer they name: shifted lines do not make a finding new."""
    keys = Counter()
    for finding in findings:
        subject = FIRST_BACKTICK.search(finding.message)
        keys[(finding.code, subject.group(1) if subject else re.sub(r"\d+", "#", finding.message))] += 1
    return keys


def finding_keys(source: str, path: str) -> Counter:
    from initlint.config import Settings
    from initlint.engine import lint_source

    return keys_of(lint_source(source, path, Settings(select=("INI0",))))


def project_keys(root: Path, target: Target, source: str, scratch: Path) -> Counter:
    """Findings of the whole project with `source` as the target file, linted from a copy on disk."""
    from initlint.config import Settings
    from initlint.engine import lint_files

    package = target.path.split("/")[0]
    copy = scratch / package
    if not copy.exists():
        shutil.copytree(root / package, copy)
    (scratch / target.path).write_text(source, encoding="utf-8")
    return keys_of(lint_files([str(scratch / p) for p in target.project], Settings(select=("INI0",))).findings)


def run(targets: list[Target], corpus: Path, verbose: bool) -> dict:
    packages = sorted({t.package for t in targets})
    chosen = [p for p in corpus_eval.PACKAGES_ALL if p.name in packages]
    download_dir = corpus / "dl"
    corpus_eval.download(chosen, download_dir)
    roots = {p.name: corpus_eval.unpack(p, download_dir, corpus / "src") for p in chosen}
    tally = {kind: Counter() for kind in MUTATORS}
    for target in targets:
        path = roots[target.package] / target.path
        source = path.read_text(encoding="utf-8")
        module = cst.parse_module(source)
        scratch = Path(tempfile.mkdtemp(prefix="initlint-mutation-"))
        if target.project:
            keys = functools.partial(project_keys, roots[target.package], target, scratch=scratch)
        else:
            keys = functools.partial(finding_keys, path=target.path)
        original = keys(source)
        for kind, mutate in MUTATORS.items():
            if kind in target.skip:
                tally[kind]["n/a"] += 1
                continue
            try:
                mutant = mutate(module, target).code
            except NotApplicable as reason:
                tally[kind]["n/a"] += 1
                if verbose:
                    print(f"   n/a  {kind:22} {target.path}: {reason}")
                continue
            if mutant == source:
                raise SystemExit(f"mutation: {kind} left {target.path} unchanged")
            new = keys(mutant) - original
            tally[kind]["mutants"] += 1
            tally[kind]["detected"] += bool(new)
            expected = BUG_KINDS.get(kind)
            tally[kind]["expected code"] += any(code == expected for code, _ in new)
            if verbose:
                status = (
                    ("DETECTED" if new else "missed") if kind in BUG_KINDS else ("NEW FINDING" if new else "silent")
                )
                print(f"   {status:11} {kind:22} {target.path}  {sorted(new)}")
        shutil.rmtree(scratch)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=corpus_eval.DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, help="only the first N target files")
    parser.add_argument("--verbose", action="store_true", help="one line per mutant")
    parser.add_argument("--json", type=Path, help="also write the counts per kind to this file (to compare runs)")
    args = parser.parse_args(argv)
    targets = list(TARGETS[: args.limit] if args.limit else TARGETS)
    started = time.perf_counter()
    tally = run(targets, args.corpus, args.verbose)
    print(f"== mutation test: {len(targets)} files, {time.perf_counter() - started:.1f} s")
    print(f"   {'bug kind':22} {'mutants':>7} {'detected':>8} {'rate':>6} {'expected code':>13} {'n/a':>4}")
    total = Counter()
    for kind, expected in BUG_KINDS.items():
        row = tally[kind]
        total.update({k: row[k] for k in ("mutants", "detected", "expected code")})
        rate = f"{row['detected'] / row['mutants']:.0%}" if row["mutants"] else "-"
        print(
            f"   {kind:22} {row['mutants']:>7} {row['detected']:>8} {rate:>6}"
            f" {row['expected code']:>8} ({expected}) {row['n/a']:>4}"
        )
    rate = f"{total['detected'] / total['mutants']:.0%}" if total["mutants"] else "-"
    print(f"   {'all bugs':22} {total['mutants']:>7} {total['detected']:>8} {rate:>6} {total['expected code']:>8}")
    neutral = sum(tally[kind]["mutants"] for kind in NEUTRAL_KINDS)
    false_alarms = sum(tally[kind]["detected"] for kind in NEUTRAL_KINDS)
    print(f"   neutral edits: {neutral}, with a new finding: {false_alarms}")
    if args.json:
        args.json.write_text(json.dumps({kind: dict(sorted(row.items())) for kind, row in tally.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
