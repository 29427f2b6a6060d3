"""The settings each file is checked under: its `[tool.initlint]`, with the command line on top."""

from __future__ import annotations

import argparse

from initlint.cli.runtime_hook import check_runtime_table
from initlint.config import Settings, SettingsResolver, validate_codes, with_overrides


def _overlay(args: argparse.Namespace):
    """The command line on top of a config file's settings (a function: each file may have its own)."""

    def flag(name: str) -> tuple[str, ...] | None:
        value = getattr(args, name, None)
        return None if value is None else validate_codes(value, f"--{name.replace('_', '-')}")

    select, extend_select, ignore, extend_ignore = (
        flag(name) for name in ("select", "extend_select", "ignore", "extend_ignore")
    )
    force_exclude = getattr(args, "force_exclude", None)

    def overlay(settings: Settings) -> Settings:
        check_runtime_table(settings)
        return with_overrides(
            settings,
            select=select,
            extend_select=None if extend_select is None else settings.extend_select + extend_select,
            ignore=ignore,
            extend_ignore=None if extend_ignore is None else settings.extend_ignore + extend_ignore,
            ignore_noqa=args.ignore_noqa or None,
            force_exclude=force_exclude,
        )

    return overlay


def resolver_for(args: argparse.Namespace) -> SettingsResolver:
    return SettingsResolver(_overlay(args), config=args.config, isolated=args.isolated)
