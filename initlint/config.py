"""Settings for one run: rule selection and the project's own conventions.

`[tool.initlint]` in `pyproject.toml` is read by `load_settings`. Which file: the given
`--config`, else the closest `pyproject.toml` *that has a `[tool.initlint]` table*, searched
from the checked paths upward (a sub-package's pyproject without the table does not hide the
project's). Every key is validated: an unknown key, a wrong type or an unknown rule code is a
`ConfigError` (one line, exit code 2), never silently ignored.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from initlint.codes import CODES
from initlint.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class ConfigError(UsageError):
    """An invalid `[tool.initlint]` table or an unknown rule code."""


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
    #: (user class, known library layer) pairs: the project's own layer classes that behave like
    #: a layer the analyzer knows, e.g. its own `ColumnParallelLinear`.
    layer_classes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: (glob, codes) pairs; globs match paths relative to `root` (or the bare file name).
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: None: the default excludes (`files.DEFAULT_EXCLUDE`); a list replaces them.
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    #: Apply the excludes to files named on the command line too (pre-commit passes names).
    force_exclude: bool = False
    extend_ignore: tuple[str, ...] = ()
    ignore_noqa: bool = False
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    #: Follow imports into the checked file's project on disk (`project-analysis`).
    project_analysis: bool = True
    #: Where the project summaries are kept between runs (`cache-dir`); "" turns the disk cache
    #: off, None keeps the default (`INITLINT_CACHE_DIR`, else the user cache folder).
    cache_dir: str | None = None
    #: The folder of the pyproject.toml the settings came from ("" = current directory).
    root: str = ""
    #: The pyproject.toml the settings came from, if any.
    config_path: str = ""
    #: Sub-tables of `[tool.initlint]` (e.g. "runtime") as read; their owners validate them.
    subtables: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, compare=False, hash=False)

    def excludes(self) -> tuple[str, ...]:
        from initlint.files import DEFAULT_EXCLUDE

        return (DEFAULT_EXCLUDE if self.exclude is None else self.exclude) + self.extend_exclude

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """The codes `per-file-ignores` switches off for `path`."""
        if not self.per_file_ignores or not path:
            return ()
        candidates = _path_forms(path, self.root)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores:
            if any(fnmatch.fnmatch(candidate, pattern) for candidate in candidates):
                codes.extend(pattern_codes)
        return tuple(codes)


def _path_forms(path: str, root: str) -> tuple[str, ...]:
    """`path` relative to the project root (posix), and its bare file name."""
    absolute = Path(os.path.abspath(path))
    base = Path(os.path.abspath(root or os.curdir))
    try:
        relative = absolute.relative_to(base).as_posix()
    except ValueError:
        relative = absolute.as_posix()
    return (relative, absolute.name)


def code_matches(code: str, selectors: Iterable[str]) -> bool:
    """`INI0` selects every static rule, `INI001` just one, `ALL` everything."""
    return any(sel == "ALL" or code.startswith(sel) for sel in selectors)


def is_enabled(code: str, default_enabled: bool, settings: Settings, path: str = "") -> bool:
    ignored = settings.ignore + settings.extend_ignore + settings.ignored_for(path)
    if code_matches(code, ignored):
        return False
    if settings.select:
        return code_matches(code, settings.select) or code_matches(code, settings.extend_select)
    return default_enabled or code_matches(code, settings.extend_select)


# --- rule codes ------------------------------------------------------------------------------

_SELECTOR_SHAPE = re.compile(r"^INI[0-9]{0,3}$")


def validate_codes(codes: Iterable[str], where: str) -> tuple[str, ...]:
    """Normalise selectors to upper case; an unknown code or prefix is a ConfigError."""
    known = list(CODES)
    result = []
    for raw in codes:
        code = raw.strip().upper()
        if code != "ALL" and not (_SELECTOR_SHAPE.match(code) and any(k.startswith(code) for k in known)):
            hint = difflib.get_close_matches(code, known, n=1)
            suggestion = f" (did you mean {hint[0]}?)" if hint else " (`initlint rules` lists them)"
            raise ConfigError(f"{where}: unknown rule code {raw!r}{suggestion}")
        result.append(code)
    return tuple(result)


def parse_code_list(text: str) -> tuple[str, ...]:
    """`"INI001, INI002"` -> `("INI001", "INI002")` (command-line form)."""
    return tuple(part.strip() for part in re.split(r"[,\s]+", text) if part.strip())


# --- [tool.initlint] ------------------------------------------------------------------------

CONFIG_FILE = "pyproject.toml"
#: A pyproject.toml is a few kilobytes; anything this big is not one (or is an attack).
MAX_CONFIG_BYTES = 2**20


def _string_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(f"{where}: expected a list of non-empty strings, got {_describe(value)}")
    return tuple(item.strip() for item in value)


def _dotted_names(value: Any, where: str) -> tuple[str, ...]:
    names = _string_list(value, where)
    for name in names:
        if not all(part.isidentifier() for part in name.split(".")):
            raise ConfigError(f"{where}: {name!r} is not a Python name or dotted name")
    return names


def _positive_number(value: Any, where: str) -> float:
    try:
        number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an integer beyond the float range
        number = math.inf
    if not math.isfinite(number) or number <= 0:
        raise ConfigError(f"{where}: expected a positive number, got {_describe(value)}")
    return number


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {_describe(value)}")
    return value


def _folder(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f'{where}: expected a folder path ("" for no disk cache), got {_describe(value)}')
    return value.strip()


def _per_file_ignores(value: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table of glob = [codes], got {_describe(value)}")
    return tuple(
        (pattern, validate_codes(_string_list(codes, f"{where}.{pattern!r}"), f"{where}.{pattern!r}"))
        for pattern, codes in value.items()
    )


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _codes(value: Any, where: str) -> tuple[str, ...]:
    return validate_codes(_string_list(value, where), where)


def _layer_classes(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """`{"mypkg.layers.ColumnParallelLinear" = "megatron.core.tensor_parallel.ColumnParallelLinear"}`."""
    from initlint.analysis.knowledge import REGISTRY

    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table of class name = known layer class, got {_describe(value)}")
    pairs = tuple(
        (user, known)
        for user, known in zip(_dotted_names(list(value), where), _dotted_names(list(value.values()), where))
    )
    for user, known in pairs:
        if REGISTRY.layer(known) is None:
            raise ConfigError(
                f"{where}: {user!r} maps to {known!r}, which is not a layer initlint knows (e.g. 'torch.nn.Linear')"
            )
    return pairs


#: key -> (Settings or AnalysisOptions field, parser). Keys use TOML's dashed style.
_SETTINGS_KEYS: dict[str, tuple[str, Callable[[Any, str], Any]]] = {
    "select": ("select", _codes),
    "extend-select": ("extend_select", _codes),
    "ignore": ("ignore", _codes),
    "extend-ignore": ("extend_ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "exclude": ("exclude", _string_list),
    "extend-exclude": ("extend_exclude", _string_list),
    "force-exclude": ("force_exclude", _boolean),
    "project-analysis": ("project_analysis", _boolean),
    "cache-dir": ("cache_dir", _folder),
}
_ANALYSIS_KEYS: dict[str, tuple[str, Callable[[Any, str], Any]]] = {
    "depth-names": ("depth_names", _dotted_names),
    "writer-names": ("writer_names", _dotted_names),
    "init-helpers": ("init_helpers", _dotted_names),
    "base-std": ("base_std", _positive_number),
    "extend-layer-classes": ("layer_classes", _layer_classes),
}
#: Sub-tables other parts of initlint own; their keys are validated where they are used.
SUBTABLES = ("runtime",)


def settings_from_table(table: Mapping[str, Any], source: str = CONFIG_FILE, root: str = "") -> Settings:
    """Build Settings from a `[tool.initlint]` table; `source` names it in error messages."""
    settings: dict[str, Any] = {}
    analysis: dict[str, Any] = {}
    subtables: dict[str, Mapping[str, Any]] = {}
    for key, value in table.items():
        where = f"{source}: [tool.initlint] {key}"
        if key in _SETTINGS_KEYS:
            name, parse_value = _SETTINGS_KEYS[key]
            settings[name] = parse_value(value, where)
        elif key in _ANALYSIS_KEYS:
            name, parse_value = _ANALYSIS_KEYS[key]
            analysis[name] = parse_value(value, where)
        elif key in SUBTABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: [tool.initlint.{key}] must be a table, got {_describe(value)}")
            subtables[key] = value
        else:
            known = sorted([*_SETTINGS_KEYS, *_ANALYSIS_KEYS, *SUBTABLES])
            hint = difflib.get_close_matches(key, known, n=1)
            suggestion = f"did you mean {hint[0]!r}?" if hint else "known keys: " + ", ".join(known)
            raise ConfigError(f"{source}: [tool.initlint] unknown key {key!r} ({suggestion})")
    return Settings(
        **settings,
        analysis=AnalysisOptions(**analysis),
        root=root,
        config_path=source,
        subtables=subtables,
    )


def _read_toml(path: Path) -> dict[str, Any]:
    from initlint.safety import read_regular_file

    try:
        text = read_regular_file(path, MAX_CONFIG_BYTES).decode("utf-8")
        return tomllib.loads(text)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise ConfigError(f"{path}: invalid TOML: nested too deeply to read") from None
    except ValueError as error:  # e.g. an integer beyond Python's 4,300-digit conversion limit
        raise ConfigError(f"{path}: invalid TOML: {str(error).splitlines()[0][:200]}") from None


def _initlint_table(data: Mapping[str, Any], path: Path) -> Mapping[str, Any] | None:
    tool = data.get("tool")
    if not isinstance(tool, dict) or "initlint" not in tool:
        return None
    table = tool["initlint"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.initlint] must be a table, got {_describe(table)}")
    return table


def _is_file(path: Path) -> bool:
    """`path.is_file()`, False in a folder initlint may not look into (no PermissionError)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _has_table(candidate: Path) -> bool:
    return _is_file(candidate) and _initlint_table(_read_toml(candidate), candidate) is not None


def find_config(paths: Iterable[str]) -> Path | None:
    """The closest pyproject.toml with a `[tool.initlint]` table above the checked paths."""
    absolute = [os.path.abspath(path) for path in paths] or [os.path.abspath(os.curdir)]
    try:
        start = Path(os.path.commonpath(absolute))
    except ValueError:  # paths on different drives
        start = Path(absolute[0])
    if not start.is_dir():
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_FILE
        if _has_table(candidate):
            return candidate
    return None


def load_settings(paths: Iterable[str] = (), config: str | os.PathLike | None = None) -> Settings:
    """Settings from `config` (an explicit pyproject.toml) or the one found above `paths`."""
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"{path}: config file not found")
    else:
        found = find_config(paths)
        if found is None:
            return Settings()
        path = found
    table = _initlint_table(_read_toml(path), path) or {}
    return settings_from_table(table, str(path), root=str(path.parent))


def with_overrides(settings: Settings, **overrides: Any) -> Settings:
    """Command-line values replace the config's; `None` means "flag not given"."""
    return replace(settings, **{key: value for key, value in overrides.items() if value is not None})


class SettingsResolver:
    """The settings that govern each file: the nearest `pyproject.toml` with a `[tool.initlint]`
    table above it (a monorepo's sub-projects each keep their own), with the command line on top
    (`overlay`). `--config` names one file for all; `isolated` reads none."""

    def __init__(
        self, overlay: Callable[[Settings], Settings], config: str | None = None, isolated: bool = False
    ) -> None:
        self._overlay = overlay
        self._fixed: Settings | None = None
        if isolated:
            self._fixed = overlay(Settings())
        elif config is not None:
            self._fixed = overlay(load_settings((), config))
        self._by_folder: dict[Path, Path | None] = {}
        self._by_config: dict[Path | None, Settings] = {}

    def for_path(self, path: str) -> Settings:
        if self._fixed is not None:
            return self._fixed
        absolute = Path(os.path.abspath(path))
        config = self._config_above(absolute if absolute.is_dir() else absolute.parent)
        if config not in self._by_config:
            base = Settings() if config is None else load_settings((), config)
            self._by_config[config] = self._overlay(base)
        return self._by_config[config]

    def _config_above(self, folder: Path) -> Path | None:
        visited = []
        found: Path | None = None
        for current in (folder, *folder.parents):
            if current in self._by_folder:
                found = self._by_folder[current]
                break
            visited.append(current)
            if _has_table(current / CONFIG_FILE):
                found = current / CONFIG_FILE
                break
        for current in visited:
            self._by_folder[current] = found
        return found
