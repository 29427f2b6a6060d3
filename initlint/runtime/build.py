"""How to build the models of a file: `--factory`, its own factories or its root classes (each
built from its config by `configs.py`), and finishing Hugging Face models' init.

Runs in the child process only (it imports the user's code). When it cannot tell how to build
a model it raises `BuildError` with a message that says exactly what to pass.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from torch import nn

from initlint.runtime.build_error import BuildError
from initlint.project.layout import package_module
from initlint.runtime.building_blocks import FACTORY_NAMES
from initlint.runtime.locate import class_location
from initlint.runtime.configs import Factory, class_factory, parse_assignments, required_parameters


# -- loading code ------------------------------------------------------------------------------

_LOADED: dict[str, ModuleType] = {}


def load_file(path: str) -> ModuleType:
    """Import a model file: as `package.module` (package root on sys.path) when it sits in a
    package, so its relative imports work; else by path, with its folder on sys.path."""
    path = os.path.abspath(path)
    if path in _LOADED:
        return _LOADED[path]
    packaged = package_module(Path(path))
    if packaged is not None:
        root, dotted = str(packaged[0]), packaged[1]
        if root not in sys.path:
            sys.path.insert(0, root)
        module = importlib.import_module(dotted)
        if os.path.abspath(getattr(module, "__file__", "") or "") == path:
            _LOADED[path] = module
            return module
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    stem = os.path.splitext(os.path.basename(path))[0] or "model"
    name = f"initlint_user_{stem}_{abs(hash(path)) % 10**8}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    _LOADED[path] = module
    return module


def model_site(path: str, name: str) -> tuple[str, int] | None:
    """(file, line) of the class or function `name` of the model file `path` (loaded already)."""
    module = _LOADED.get(os.path.abspath(path))
    value = vars(module).get(name) if module is not None else None
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None
    site = class_location(value)
    return site if site[0] else None


def resolve_factory(spec: str) -> tuple[str, Factory]:
    """`file.py:callable` or `pkg.module:callable` -> (label, zero-argument callable)."""
    target, sep, attribute = spec.rpartition(":")
    if not sep or not target or not attribute:
        raise BuildError(f"--factory {spec!r}: expected FILE.py:CALLABLE or PKG.MODULE:CALLABLE")
    if target.endswith(".py") or os.sep in target or os.path.exists(target):
        if not os.path.isfile(target):
            raise BuildError(f"--factory {spec!r}: no such file {target}")
        module = load_file(target)
    else:
        module = importlib.import_module(target)
    factory: Any = module  # any attribute of the user's module, until checked callable below
    for part in attribute.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise BuildError(f"--factory {spec!r}: {target} has no attribute {attribute!r}")
    if not callable(factory):
        raise BuildError(f"--factory {spec!r}: {attribute} is not callable")
    missing = required_parameters(factory)
    if missing:
        raise BuildError(
            f"--factory {spec!r}: {attribute}() needs arguments ({', '.join(missing)}); "
            "point --factory at a function that takes none"
        )
    return attribute, factory


# -- choosing what to build --------------------------------------------------------------------


def module_classes(module: ModuleType) -> list[type[nn.Module]]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, nn.Module) and value.__module__ == module.__name__
    ]


def module_factories(module: ModuleType) -> list[tuple[str, Factory]]:
    """Functions of this module named like model factories that need no argument."""
    found: list[tuple[str, Factory]] = []
    for name in FACTORY_NAMES:
        value = vars(module).get(name)
        if inspect.isfunction(value) and value.__module__ == module.__name__ and not required_parameters(value):
            found.append((name, value))
    return found


def root_class_names(source: str, candidates: list[str]) -> list[str]:
    """Classes not instantiated inside another candidate class (the static summary when the
    analysis offers one, else a scan of each class body for calls of the other names)."""
    try:
        from initlint.analysis import static_summary  # type: ignore[attr-defined]

        roots = [name for name in static_summary(source).root_classes if name in candidates]
        if roots:
            return roots
    except Exception:  # noqa: BLE001 -- the static summary is optional help here
        pass
    tree = ast.parse(source)
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    func = inner.func
                    called = (
                        func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    )
                    if called in candidates and called != node.name:
                        used.add(called)
    return [name for name in candidates if name not in used]


#: Among the heads of one Hugging Face family, the one a language-model check wants.
_PREFERRED_HEAD = re.compile(r"LMHead|CausalLM|MaskedLM|ForPreTraining")


def concrete_roots(roots: list[str], classes: dict[str, type]) -> list[str]:
    """Concrete classes over the bases they extend (`TinyGPTForCausalLM`, not its
    `*PreTrainedModel`), and one head per Hugging Face family (the language-model head)."""
    concrete = [
        name
        for name in roots
        if not any(other is not classes[name] and issubclass(other, classes[name]) for other in classes.values())
    ]
    families: dict[type, list[str]] = {}
    kept: list[str] = []
    for name in concrete:
        base = _hf_base(classes[name])
        if base is None:
            kept.append(name)
        else:
            families.setdefault(base, []).append(name)
    for members in families.values():
        kept.append(next((m for m in members if _PREFERRED_HEAD.search(m)), members[0]))
    return kept


def _hf_base(cls: type) -> type | None:
    """The model's own `*PreTrainedModel` base (the family), for transformers models."""
    return next(
        (
            base
            for base in cls.__mro__[1:]
            if base.__name__.endswith("PreTrainedModel") and base.__name__ != "PreTrainedModel"
        ),
        None,
    )


def model_factories(
    path: str, model: str | None, config_text: str | None, factory: str | None, skipped: list[str] | None = None
) -> list[tuple[str, Factory]]:
    """Every model to verify for one file, as (label, factory), the way the file means it:
    `--factory`; else `--model NAME` (a class or a factory function); else the file's own
    `build_model()`-style factories; else its concrete root classes, built from their configs.

    Root classes that cannot be built while another one can are left out, with the reason
    appended to `skipped`; when none can be built, BuildError says what it tried and what to pass.
    """
    skipped = [] if skipped is None else skipped
    if factory:
        return [resolve_factory(factory)]
    overrides = parse_assignments(config_text or "")
    module = load_file(path)
    classes = {cls.__name__: cls for cls in module_classes(module)}
    if model:
        return [_named_model(module, path, model, classes, overrides)]
    functions = module_factories(module)
    if functions and not overrides:
        return functions[:1]
    if not classes:
        raise BuildError(
            f"no nn.Module subclass or model factory ({'/'.join(FACTORY_NAMES[:3])}()) in {path}; "
            "pass --factory FILE.py:CALLABLE"
        )
    with open(path, encoding="utf-8") as handle:
        roots = concrete_roots(root_class_names(handle.read(), list(classes)), classes)
    if not roots:
        raise BuildError(f"cannot tell the root model class of {path}; pass --model NAME (one of {', '.join(classes)})")
    built: list[tuple[str, Factory]] = []
    problems: list[str] = []
    for name in roots:
        try:
            built.append((name, class_factory(classes[name], module, overrides)))
        except BuildError as error:
            problems.append(str(error))
    if not built:
        raise BuildError(f"tried {', '.join(roots)}: " + "; ".join(problems), model_site(path, roots[0]))
    # Root classes that need arguments beside a buildable model are helpers, not the model.
    skipped.extend(problems)
    return built


def _named_model(
    module: ModuleType, path: str, model: str, classes: dict[str, type], overrides: dict[str, Any]
) -> tuple[str, Factory]:
    if model in classes:
        return model, class_factory(classes[model], module, overrides)
    function = vars(module).get(model)
    if inspect.isfunction(function) and not required_parameters(function):
        return model, function
    raise BuildError(
        f"--model {model}: no nn.Module subclass or factory of that name in {path} "
        f"(found: {', '.join(classes) or 'none'})"
    )


# -- Hugging Face ------------------------------------------------------------------------------


def is_hf_model(model: nn.Module) -> bool:
    return any(base.__name__ == "PreTrainedModel" for base in type(model).__mro__) and hasattr(
        model, "initialize_weights"
    )


def finish_hf_init(model: nn.Module) -> bool:
    """transformers skips weight init on the meta device: run it explicitly (and the ties)."""
    if not is_hf_model(model):
        return False
    for module in model.modules():
        if getattr(module, "_is_hf_initialized", False):
            module._is_hf_initialized = False
    with torch.no_grad():
        model.initialize_weights()
    tie = getattr(model, "tie_weights", None)
    if callable(tie):
        try:
            tie()
        except TypeError:
            pass
    return True


def seeded(seed: int) -> None:
    torch.manual_seed(seed)
