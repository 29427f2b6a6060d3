"""Building one model class: its config object (a dataclass, a Hugging Face config, minGPT's
`get_default_config()`, a plain class with defaults) with the `--config` overrides, or keyword
arguments. When a value is missing, `BuildError` names the `--config` keys to pass.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import types
from types import ModuleType
from typing import Any, Callable

from torch import nn

from initlint.runtime.build_error import BuildError

Factory = Callable[[], nn.Module]

_CONFIG_PARAMETER = re.compile(r"(?i)(config|conf|cfg|args|params|settings|options|spec)$")


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
    """A dataclass, an HF config, or a plain class whose arguments all have defaults."""
    if not isinstance(cls, type) or issubclass(cls, nn.Module) or cls.__module__ in ("builtins", "typing"):
        return False
    if dataclasses.is_dataclass(cls) or _is_hf_config(cls):
        return True
    return "__init__" in vars(cls) and not required_parameters(cls)


def required_parameters(func: Callable) -> list[str]:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in signature.parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _annotation(cls: type, parameter: str, module: ModuleType) -> Any:
    """`parameter`'s annotation, a string one looked up in the model's module."""
    annotation = inspect.signature(cls).parameters[parameter].annotation
    if isinstance(annotation, str):
        annotation = vars(module).get(annotation.split("[")[0].strip("'\" "), annotation)
    return annotation


def _config_class_for(cls: type, parameter: str, module: ModuleType) -> type | None:
    annotation = _annotation(cls, parameter, module)
    if _is_config_class(annotation):
        return annotation
    declared = getattr(cls, "config_class", None)
    if _is_config_class(declared):
        return declared
    if not _CONFIG_PARAMETER.search(parameter):
        return None  # `dim`, `vocab_size`: a value, not a config object
    configs = [
        value for value in vars(module).values() if _is_config_class(value) and value.__module__ == module.__name__
    ]
    return configs[0] if len(configs) == 1 else None


def _module_annotation(cls: type, parameter: str, module: ModuleType) -> str | None:
    """The class name when `parameter` is annotated as an nn.Module (a layer handed in to be
    copied or wrapped): a value no `--config KEY=VALUE` can spell."""
    annotation = _annotation(cls, parameter, module)
    if isinstance(annotation, type) and issubclass(annotation, nn.Module):
        return annotation.__name__
    return None


def make_config(config_class: type, overrides: dict[str, Any]) -> Any:
    # HF configs take their fields as keyword arguments (in 5.x they are also dataclasses).
    if dataclasses.is_dataclass(config_class) and not _is_hf_config(config_class):
        fields = {f.name: f for f in dataclasses.fields(config_class) if f.init}
        unknown = sorted(set(overrides) - set(fields))
        if unknown:
            raise BuildError(
                f"--config: {config_class.__name__} has no field {', '.join(unknown)} (fields: {', '.join(fields)})"
            )
        missing = [
            name
            for name, f in fields.items()
            if name not in overrides and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        if missing:
            raise BuildError(
                f"{config_class.__name__} has no default for {', '.join(missing)}: "
                f"pass --config {','.join(f'{m}=...' for m in missing)}"
            )
        typed = {key: _like(fields[key].default, value) for key, value in overrides.items()}
        return config_class(**typed)
    if not _is_hf_config(config_class) and not _takes_kwargs(config_class):
        accepted = set(inspect.signature(config_class).parameters)
        unknown = sorted(set(overrides) - accepted)
        if unknown:
            raise BuildError(
                f"--config: {config_class.__name__}() takes no argument {', '.join(unknown)} "
                f"(it takes {', '.join(sorted(accepted)) or 'none'})"
            )
    return config_class(**overrides)


def default_config(get_default_config: Callable[[], Any], overrides: dict[str, Any]) -> Any:
    """minGPT style: `cls.get_default_config()` (a CfgNode or namespace), overrides set on it."""
    config = get_default_config()
    for key, value in overrides.items():
        setattr(config, key, value)
    return config


def _unset_fields(config: Any) -> list[str]:
    """Fields a default config leaves as None (minGPT's vocab_size, block_size)."""
    values = vars(config) if hasattr(config, "__dict__") else {}
    return sorted(key for key, value in values.items() if value is None and not key.startswith("_"))


def _like(default: Any, value: Any) -> Any:
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def class_factory(cls: type[nn.Module], module: ModuleType, overrides: dict[str, Any]) -> Factory:
    """A zero-argument builder for `cls`: its config with defaults (+ overrides), or keywords."""
    name = cls.__name__
    required = required_parameters(cls)
    try:
        accepted = set(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        accepted = set()
    if len(required) == 1:
        get_default_config = getattr(cls, "get_default_config", None)
        if callable(get_default_config):
            return _with_unset_hint(cls, get_default_config, lambda: cls(default_config(get_default_config, overrides)))
        config_class = _config_class_for(cls, required[0], module)
        if config_class is not None:
            return lambda: cls(make_config(config_class, overrides))
        if _CONFIG_PARAMETER.search(required[0]) and required[0] not in overrides:
            return _namespace_factory(cls, required[0], module, overrides, accepted)
    missing = [p for p in required if p not in overrides]
    modules = {p: kind for p in missing if (kind := _module_annotation(cls, p, module)) is not None}
    if modules:
        taken = ", ".join(f"a {kind} as {p}" for p, kind in modules.items())
        raise BuildError(
            f"cannot build {name}: {name}({', '.join(required)}) takes {taken}, which --config cannot "
            "give; pass --factory FILE.py:CALLABLE (a function that builds the model with them)"
        )
    if missing:
        raise BuildError(
            f"cannot build {name}: {name}({', '.join(required)}) needs values for "
            f"{', '.join(missing)}; pass --config {','.join(f'{m}=...' for m in missing)} "
            f"or --factory FILE.py:CALLABLE"
        )
    unknown = sorted(set(overrides) - accepted) if not _takes_kwargs(cls) else []
    if unknown:
        raise BuildError(
            f"--config: {name}() takes no argument {', '.join(unknown)} "
            f"(it takes {', '.join(sorted(accepted)) or 'none'})"
        )
    return lambda: cls(**overrides)


class ConfigNamespace(types.SimpleNamespace):
    """The config object of a model whose config has no class: the `--config` values as
    attributes. A missing one raises an AttributeError that names it, so that `getattr(config,
    KEY, default)` and `hasattr` keep working and a required one can be reported."""

    def __getattr__(self, name: str) -> Any:  # only reached for an attribute not set
        raise AttributeError(f"--config does not set {name}", name=name, obj=self)


def _fields_read(module: ModuleType, parameter: str) -> list[str]:
    """The `PARAMETER.KEY` attributes the model's file reads (method calls left out)."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return []
    pattern = re.compile(rf"\b{re.escape(parameter)}\.([A-Za-z_]\w*)\b(?!\s*\()")
    return sorted(set(pattern.findall(source)))


def _namespace_factory(
    cls: type[nn.Module], parameter: str, module: ModuleType, overrides: dict[str, Any], accepted: set[str]
) -> Factory:
    """`Model(config)` where `config` is any object with attributes (no class to build it from):
    the `--config` values the constructor does not take by name become the attributes of one."""
    name = cls.__name__
    if not overrides:
        fields = _fields_read(module, parameter)
        wanted = ",".join(f"{field}=..." for field in fields) if fields else "KEY=VALUE,..."
        raise BuildError(
            f"cannot build {name}: {name}({parameter}) takes a config object and initlint found no "
            f"class to build it from; pass its fields as --config {wanted} (they become the "
            f"attributes of `{parameter}`), or --factory FILE.py:CALLABLE"
        )
    keywords = {key: value for key, value in overrides.items() if key in accepted and key != parameter}
    config = ConfigNamespace(**{key: value for key, value in overrides.items() if key not in keywords})

    def build() -> nn.Module:
        try:
            return cls(config, **keywords)
        except AttributeError as error:
            if getattr(error, "obj", None) is not config:
                raise
            raise BuildError(
                f"cannot build {name}: {name} reads {parameter}.{error.name}, which --config does not "
                f"set; add {error.name}=... to --config"
            ) from None

    return build


def _with_unset_hint(cls: type, get_default_config: Callable[[], Any], factory: Factory) -> Factory:
    """A build from a default config that leaves fields unset fails deep in the model's code:
    say which fields to pass instead."""

    def build() -> nn.Module:
        try:
            return factory()
        except Exception as error:
            unset = _unset_fields(get_default_config())
            if not unset:
                raise
            raise BuildError(
                f"{cls.__name__}.get_default_config() leaves {', '.join(unset)} unset "
                f"({type(error).__name__}); pass --model-config {','.join(f'{u}=...' for u in unset)}"
            ) from None

    return build


def _takes_kwargs(cls: type) -> bool:
    try:
        return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return False
