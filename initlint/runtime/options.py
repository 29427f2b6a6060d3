"""One options object for a runtime check: what the CLI parses, the child process receives and
the pipeline reads. Torch-free, so the CLI can build it before any child starts.

Settings come from the command line, over `[tool.initlint.runtime]` in pyproject.toml
(`runtime_options`):

    [tool.initlint.runtime]
    policy = "gpt2"          # auto | gpt2 | per-layer | small-init | zero-init | fan-in | none [:base_std]
    timeout = 300            # seconds per model file
    memory-limit = 8000      # MB for the child process (default: 75% of physical memory)
    device = "cpu"
    materialize = false
    model = "GPT"
    config = "n_layer=4"
    factory = "model.py:build"
    input-shape = "1,3,32,32"
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from initlint.errors import UsageError
from initlint.runtime.policy import Policy, PolicyError

DEFAULT_TIMEOUT = 300.0


def _silent(message: str) -> None:
    pass


@dataclass
class Options:
    policy: Policy = field(default_factory=Policy)
    device: str = "cpu"
    materialize: bool = False
    input_shape: tuple[int, ...] | None = None
    seed: int = 0
    #: Files whose lines name an init op (the checked files).
    focus_files: tuple[str, ...] = ()
    base_std: float | None = None  # [tool.initlint] base-std, under the policy's own
    #: What to build: `--model`, `--config k=v,...`, `--factory FILE.py:CALLABLE`.
    model: str | None = None
    config: str | None = None
    factory: str | None = None
    #: The child process's limits (the CLI only).
    timeout: float = DEFAULT_TIMEOUT
    memory_limit_mb: int | None = None
    progress: Callable[[str], None] = _silent

    def to_spec(self, path: str) -> dict[str, Any]:
        """What the child process needs to check `path`, as JSON-ready values."""
        return {
            "file": path,
            "policy": self.policy.spec(),
            "device": self.device,
            "materialize": self.materialize,
            "input_shape": list(self.input_shape) if self.input_shape else None,
            "seed": self.seed,
            "focus_files": list(self.focus_files),
            "base_std": self.base_std,
            "model": self.model,
            "config": self.config,
            "factory": self.factory,
        }


# -- from the command line and pyproject.toml ---------------------------------------------------

_TABLE_KEYS: dict[str, type | tuple[type, ...]] = {
    "policy": str,
    "timeout": (int, float),
    "memory-limit": int,
    "device": str,
    "materialize": bool,
    "model": str,
    "config": str,
    "factory": str,
    "input-shape": str,
}


def runtime_options(args: argparse.Namespace, table: Mapping[str, Any]) -> Options:
    """Command line over `[tool.initlint.runtime]` over defaults, validated; UsageError otherwise."""
    for key, value in table.items():
        expected = _TABLE_KEYS.get(key)
        if expected is None:
            raise UsageError(f"[tool.initlint.runtime]: unknown key {key!r} (known: {', '.join(_TABLE_KEYS)})")
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            raise UsageError(f"[tool.initlint.runtime] {key}: wrong type {type(value).__name__}")

    def pick(name: str, key: str, default: Any = None) -> Any:
        value = getattr(args, name, None)
        return value if value is not None else table.get(key, default)

    policy_text = pick("policy", "policy")
    try:
        policy = Policy.parse(policy_text)
    except PolicyError as error:
        raise UsageError(str(error)) from None
    timeout = float(pick("timeout", "timeout", DEFAULT_TIMEOUT))
    if not timeout > 0:
        raise UsageError(f"--timeout must be positive, got {timeout:g}")
    memory = pick("memory_limit", "memory-limit")
    if memory is not None and memory < 256:
        raise UsageError(f"--memory-limit {memory} MB is too small to import torch (at least 256)")
    shape = pick("input_shape", "input-shape")
    return Options(
        policy=policy,
        timeout=timeout,
        memory_limit_mb=memory,
        device=pick("device", "device", "cpu"),
        materialize=bool(pick("materialize", "materialize", False)),
        model=pick("model", "model"),
        config=pick("model_config", "config"),
        factory=pick("factory", "factory"),
        input_shape=tuple(_parse_shape(shape)) if shape else None,
    )


def _parse_shape(text: str) -> list[int]:
    try:
        shape = [int(part) for part in str(text).replace("x", ",").split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--input-shape {text!r}: expected whole numbers like 1,3,32,32") from None
    if not shape or any(size < 1 for size in shape):
        raise UsageError(f"--input-shape {text!r}: expected positive sizes like 1,3,32,32")
    return shape
