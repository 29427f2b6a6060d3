"""Settings for one run: rule selection and the project's own conventions.

`[tool.initlint]` loading lives here too (see `load_settings`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AnalysisOptions:
    """Conventions the analysis cannot infer from the code alone."""

    #: Extra names that mean "number of blocks" (beyond what the block container shows).
    depth_names: tuple[str, ...] = ()
    #: Extra attribute names of layers that write into the residual stream (name fallback only).
    writer_names: tuple[str, ...] = ()
    #: Dotted or bare names of functions that behave like `torch.nn.init.normal_(tensor, mean, std)`.
    init_helpers: tuple[str, ...] = ()
    #: The std of ordinary linears and embeddings under the GPT-2 recipe.
    base_std: float = 0.02


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    ignore_noqa: bool = False
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)


def code_matches(code: str, selectors: tuple[str, ...]) -> bool:
    """`INI0` selects every static rule, `INI001` just one, `ALL` everything."""
    return any(sel == "ALL" or code.startswith(sel) for sel in selectors)


def is_enabled(code: str, default_enabled: bool, settings: Settings) -> bool:
    if code_matches(code, settings.ignore):
        return False
    if settings.select:
        return code_matches(code, settings.select) or code_matches(code, settings.extend_select)
    return default_enabled or code_matches(code, settings.extend_select)
