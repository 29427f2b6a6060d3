"""How to build the models of a file: root classes, their configs, `--factory`, HF models.

Runs in the child process only (it imports the user's code). When it cannot tell how to build
a model it raises `BuildError` with a message that says exactly what to pass.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import os
import re
import sys
from types import ModuleType
from typing import Any, Callable

import torch
from torch import nn


_CONFIG_PARAMETER = re.compile(r"(?i)(config|conf|cfg|args|params|settings|options|spec)$")


class BuildError(Exception):
    """One line: why a model could not be built and what to pass instead."""


Factory = Callable[[], nn.Module]


# -- loading code ------------------------------------------------------------------------------

_LOADED: dict[str, ModuleType] = {}


def load_file(path: str) -> ModuleType:
    """Import a model file as a module (its folder on sys.path, so its own imports work)."""
    path = os.path.abspath(path)
    if path in _LOADED:
        return _LOADED[path]
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
    factory = module
    for part in attribute.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise BuildError(f"--factory {spec!r}: {target} has no attribute {attribute!r}")
    if not callable(factory):
        raise BuildError(f"--factory {spec!r}: {attribute} is not callable")
    missing = _required_parameters(factory)
    if missing:
        raise BuildError(f"--factory {spec!r}: {attribute}() needs arguments ({', '.join(missing)}); "
                         "point --factory at a function that takes none")
    return attribute, factory


# -- choosing the classes ----------------------------------------------------------------------

def module_classes(module: ModuleType) -> list[type[nn.Module]]:
    return [value for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, nn.Module) and value.__module__ == module.__name__]


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
                    called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    if called in candidates and called != node.name:
                        used.add(called)
    bases = {base.id for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
             for base in node.bases if isinstance(base, ast.Name)}
    return [name for name in candidates if name not in used and name not in bases]


# -- configs -----------------------------------------------------------------------------------

def parse_assignments(text: str) -> dict[str, Any]:
    """`n_layer=48,n_embd=1600,bias=False,name=gpt` -> values as Python literals where they parse."""
    result: dict[str, Any] = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip().isidentifier():
            raise BuildError(f"--config: expected key=value, got {part!r}")
        try:
            result[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            result[key.strip()] = value.strip()
    return result


def _is_hf_config(cls: Any) -> bool:
    # transformers < 5 spells it PretrainedConfig, 5.x PreTrainedConfig.
    return isinstance(cls, type) and any(base.__name__.lower() == "pretrainedconfig" for base in cls.__mro__)


def _is_config_class(cls: Any) -> bool:
    return isinstance(cls, type) and (dataclasses.is_dataclass(cls) or _is_hf_config(cls))


def _required_parameters(func: Callable) -> list[str]:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    return [p.name for p in signature.parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _config_class_for(cls: type, parameter: str, module: ModuleType) -> type | None:
    annotation = inspect.signature(cls).parameters[parameter].annotation
    if isinstance(annotation, str):
        annotation = vars(module).get(annotation.split("[")[0].strip("'\" "), annotation)
    if _is_config_class(annotation):
        return annotation
    declared = getattr(cls, "config_class", None)
    if _is_config_class(declared):
        return declared
    if not _CONFIG_PARAMETER.search(parameter):
        return None  # `dim`, `vocab_size`: a value, not a config object
    configs = [value for value in vars(module).values() if _is_config_class(value) and value.__module__ == module.__name__]
    return configs[0] if len(configs) == 1 else None


def make_config(config_class: type, overrides: dict[str, Any]) -> Any:
    # HF configs take their fields as keyword arguments (in 5.x they are also dataclasses).
    if dataclasses.is_dataclass(config_class) and not _is_hf_config(config_class):
        fields = {f.name: f for f in dataclasses.fields(config_class) if f.init}
        unknown = sorted(set(overrides) - set(fields))
        if unknown:
            raise BuildError(f"--config: {config_class.__name__} has no field {', '.join(unknown)} "
                             f"(fields: {', '.join(fields)})")
        missing = [name for name, f in fields.items() if name not in overrides
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            raise BuildError(f"{config_class.__name__} has no default for {', '.join(missing)}: "
                             f"pass --config {','.join(f'{m}=...' for m in missing)}")
        typed = {key: _like(fields[key].default, value) for key, value in overrides.items()}
        return config_class(**typed)
    return config_class(**overrides)


def _like(default: Any, value: Any) -> Any:
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def class_factory(cls: type[nn.Module], module: ModuleType, overrides: dict[str, Any]) -> Factory:
    """A zero-argument builder for `cls`: its config with defaults (+ overrides), or keywords."""
    name = cls.__name__
    required = _required_parameters(cls)
    try:
        accepted = set(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        accepted = set()
    if len(required) == 1:
        config_class = _config_class_for(cls, required[0], module)
        if config_class is not None:
            return lambda: cls(make_config(config_class, overrides))
    missing = [p for p in required if p not in overrides]
    if missing:
        raise BuildError(f"cannot build {name}: {name}({', '.join(required)}) needs values for "
                         f"{', '.join(missing)}; pass --config {','.join(f'{m}=...' for m in missing)} "
                         f"or --factory FILE.py:CALLABLE")
    unknown = sorted(set(overrides) - accepted) if not _takes_kwargs(cls) else []
    if unknown:
        raise BuildError(f"--config: {name}() takes no argument {', '.join(unknown)} "
                         f"(it takes {', '.join(sorted(accepted)) or 'none'})")
    return lambda: cls(**overrides)


def _takes_kwargs(cls: type) -> bool:
    try:
        return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return False


def model_factories(path: str, model: str | None, config_text: str | None, factory: str | None,
                    skipped: list[str] | None = None) -> list[tuple[str, Factory]]:
    """Every model to verify for one file, as (label, factory).

    Root classes that cannot be built while another one can are left out, with the reason
    appended to `skipped`; when none can be built, BuildError says what to pass.
    """
    skipped = [] if skipped is None else skipped
    if factory:
        return [resolve_factory(factory)]
    overrides = parse_assignments(config_text or "")
    module = load_file(path)
    classes = {cls.__name__: cls for cls in module_classes(module)}
    if model:
        if model not in classes:
            raise BuildError(f"--model {model}: no nn.Module subclass of that name in {path} "
                             f"(found: {', '.join(classes) or 'none'})")
        return [(model, class_factory(classes[model], module, overrides))]
    if not classes:
        raise BuildError(f"no nn.Module subclass defined in {path}; pass --factory FILE.py:CALLABLE")
    with open(path, encoding="utf-8") as handle:
        roots = root_class_names(handle.read(), list(classes))
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
        raise BuildError("; ".join(problems))
    # Root classes that need arguments beside a buildable model are helpers, not the model.
    skipped.extend(problems)
    return built


# -- Hugging Face ------------------------------------------------------------------------------

def is_hf_model(model: nn.Module) -> bool:
    return any(base.__name__ == "PreTrainedModel" for base in type(model).__mro__) and hasattr(model, "initialize_weights")


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
