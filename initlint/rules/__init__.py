"""The rule catalogue: every `iniNNN_*.py` module in this package defines one rule."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from initlint.codes import find
from initlint.rules.base import Rule, Violation

__all__ = ["Rule", "Violation", "all_rules", "rule_by_code"]


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("ini"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
            ):
                found.append(value)
    return tuple(sorted(found, key=lambda rule: rule.code))


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule of a code or kebab name, as users type them (any case)."""
    row = find(code)
    if row is None:
        return None
    return next((rule for rule in all_rules() if rule.code == row.code), None)
