"""One options object for a runtime check: what the CLI parses, the child process receives and
the pipeline reads. Torch-free, so the CLI can build it before any child starts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from initlint.runtime.policy import Policy

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
