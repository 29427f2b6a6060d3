"""`[tool.initlint]`: discovery, every key, validation errors (exit 2, one line), CLI overrides."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from initlint.cli import main
from initlint.config import ConfigError, Settings, find_config, is_enabled, load_settings
from sample_models import PLAIN, UNPARSEABLE


def write(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run_cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_every_key_is_read(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        """
        [project]
        name = "demo"

        [tool.initlint]
        select = ["INI90", "INI9"]
        extend-select = ["INI904"]
        ignore = ["INI902"]
        per-file-ignores = { "generated/*.py" = ["INI901"], "legacy.py" = ["INI902"] }
        exclude = ["third_party"]
        extend-exclude = ["*_pb2.py"]
        depth-names = ["num_hidden_layers", "cfg.depth"]
        writer-names = ["out_proj", "down"]
        init-helpers = ["utils.init.trunc_normal_", "my_normal"]
        base-std = 0.006

        [tool.initlint.runtime]
        anything = "the runtime engineer validates these"
        """,
    )
    settings = load_settings([str(tmp_path)])
    assert settings.select == ("INI90", "INI9")
    assert settings.extend_select == ("INI904",)
    assert settings.ignore == ("INI902",)
    assert settings.per_file_ignores == (("generated/*.py", ("INI901",)), ("legacy.py", ("INI902",)))
    assert settings.exclude == ("third_party",) and settings.extend_exclude == ("*_pb2.py",)
    assert settings.analysis.depth_names == ("num_hidden_layers", "cfg.depth")
    assert settings.analysis.writer_names == ("out_proj", "down")
    assert settings.analysis.init_helpers == ("utils.init.trunc_normal_", "my_normal")
    assert settings.analysis.base_std == 0.006
    assert settings.subtables["runtime"] == {"anything": "the runtime engineer validates these"}
    assert settings.root == str(tmp_path)


def test_closest_pyproject_with_the_table_wins(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nignore = ["INI902"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "sub"\n')  # no table: skipped
    model = write(tmp_path / "pkg" / "models" / "gpt.py", PLAIN)
    assert find_config([str(model)]) == tmp_path / "pyproject.toml"
    write(tmp_path / "pkg" / "models" / "pyproject.toml", '[tool.initlint]\nignore = ["INI901"]\n')
    assert load_settings([str(model)]).ignore == ("INI901",)


def test_search_starts_at_the_common_folder_of_all_paths(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nignore = ["INI902"]\n')
    write(tmp_path / "a" / "pyproject.toml", '[tool.initlint]\nignore = ["INI901"]\n')
    first, second = write(tmp_path / "a" / "m.py", PLAIN), write(tmp_path / "b" / "m.py", PLAIN)
    assert load_settings([str(first), str(second)]).ignore == ("INI902",)
    assert load_settings([str(first)]).ignore == ("INI901",)


def test_no_config_gives_defaults(tmp_path):
    model = write(tmp_path / "m.py", PLAIN)
    if find_config([str(model)]) is None:  # a pyproject above the temp folder would be found
        assert load_settings([str(model)]) == Settings()


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('selct = ["INI001"]', "unknown key 'selct' (did you mean 'select'?)"),
        ('colour = "red"', "unknown key 'colour'"),
        ('select = "INI901"', "select: expected a list of non-empty strings, got str 'INI901'"),
        ('select = ["INI999"]', "select: unknown rule code 'INI999'"),
        ('ignore = ["E501"]', "ignore: unknown rule code 'E501'"),
        ('extend-select = ["INIT001"]', "unknown rule code 'INIT001'"),
        ('per-file-ignores = ["x.py"]', "per-file-ignores: expected a table"),
        ('per-file-ignores = { "x.py" = ["INI9999"] }', "unknown rule code 'INI9999'"),
        ("base-std = -0.02", "base-std: expected a positive number, got float -0.02"),
        ("base-std = true", "base-std: expected a positive number, got bool True"),
        ('base-std = "0.02"', "base-std: expected a positive number"),
        ('init-helpers = ["my helper"]', "init-helpers: 'my helper' is not a Python name or dotted name"),
        ("depth-names = [1]", "depth-names: expected a list of non-empty strings, got list [1]"),
        ('runtime = "on"', "[tool.initlint.runtime] must be a table"),
    ],
)
def test_invalid_config_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, table, expected):
    write(tmp_path / "pyproject.toml", "[tool.initlint]\n" + table + "\n")
    write(tmp_path / "m.py", PLAIN)
    with pytest.raises(ConfigError) as raised:
        load_settings([str(tmp_path)])
    assert expected in str(raised.value)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "m.py"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"initlint: error: {tmp_path / 'pyproject.toml'}: ") and expected in err


def test_invalid_toml_and_non_table_section(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.initlint\nselect = 1\n")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2 and "invalid TOML" in result.stderr and result.stderr.count("\n") == 1
    write(tmp_path / "pyproject.toml", '[tool]\ninitlint = "yes"\n')
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2 and "[tool.initlint] must be a table" in result.stderr


def test_unknown_codes_on_the_command_line_exit_2(tmp_path):
    write(tmp_path / "m.py", PLAIN)
    for flag in ("--select", "--extend-select", "--ignore", "--extend-ignore"):
        result = run_cli("check", flag, "INI9,XYZ1", "m.py", cwd=tmp_path)
        assert result.returncode == 2, flag
        assert result.stderr == f"initlint: error: {flag}: unknown rule code 'XYZ1' (`initlint rules` lists them)\n"


def test_missing_explicit_config_and_missing_path(tmp_path):
    write(tmp_path / "m.py", PLAIN)
    result = run_cli("check", "--config", "nowhere.toml", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (2, "initlint: error: nowhere.toml: config file not found\n")
    result = run_cli("check", "missing.py", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (2, "initlint: error: missing.py: no such file or directory\n")


def _codes(result: subprocess.CompletedProcess) -> list[str]:
    return [line.split(": ", 1)[1].split()[0] for line in result.stdout.splitlines() if ".py:" in line]


def test_config_drives_the_cli_and_flags_override_it(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nignore = ["INI901"]\n')
    write(tmp_path / "broken.py", UNPARSEABLE)
    write(tmp_path / "ok.py", PLAIN)
    quiet = run_cli("check", ".", cwd=tmp_path)
    assert (quiet.returncode, quiet.stdout) == (0, "")
    # --ignore replaces the config's list; --extend-ignore adds to it.
    shown = run_cli("check", "--ignore", "INI902", ".", cwd=tmp_path)
    assert (shown.returncode, _codes(shown)) == (1, ["INI901"])
    assert run_cli("check", "--extend-ignore", "INI902", ".", cwd=tmp_path).stdout == ""
    # --isolated reads no config; --config reads the named one.
    assert _codes(run_cli("check", "--isolated", ".", cwd=tmp_path)) == ["INI901"]
    other = write(tmp_path / "other.toml", '[tool.initlint]\nselect = ["INI902"]\n')
    assert run_cli("check", "--config", str(other), ".", cwd=tmp_path).stdout == ""
    assert _codes(run_cli("check", "--config", str(other), "--select", "INI9", ".", cwd=tmp_path)) == ["INI901"]


def test_per_file_ignores_are_relative_to_the_config_folder(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        '[tool.initlint.per-file-ignores]\n"generated/*.py" = ["INI901"]\n"scratch_*.py" = ["INI9"]\n',
    )
    write(tmp_path / "generated" / "broken.py", UNPARSEABLE)
    write(tmp_path / "src" / "scratch_1.py", UNPARSEABLE)
    write(tmp_path / "src" / "broken.py", UNPARSEABLE)
    result = run_cli("check", "src", "generated", cwd=tmp_path)
    assert result.stdout.splitlines()[0].startswith("src/broken.py:")
    assert _codes(result) == ["INI901"]
    # Run from another folder: the globs still match relative to the pyproject's folder.
    inside = run_cli("check", ".", cwd=tmp_path / "generated")
    assert (inside.returncode, inside.stdout) == (0, "")


def test_exclude_and_extend_exclude(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nexclude = ["vendor"]\nextend-exclude = ["*_gen.py"]\n')
    write(tmp_path / "vendor" / "broken.py", UNPARSEABLE)
    write(tmp_path / "model_gen.py", UNPARSEABLE)
    write(tmp_path / "model.py", UNPARSEABLE)
    result = run_cli("check", ".", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines() if ".py:" in line] == ["model.py"]


def test_opt_in_rules_need_selecting():
    assert not is_enabled("INI903", False, Settings())
    assert is_enabled("INI903", False, Settings(extend_select=("INI903",)))
    assert is_enabled("INI903", False, Settings(select=("INI9",)))
    assert not is_enabled("INI903", False, Settings(select=("INI9",), ignore=("INI903",)))
    assert not is_enabled("INI901", True, Settings(select=("INI902",)))
    assert is_enabled("INI901", True, Settings(select=("INI902",), extend_select=("INI901",)))


# --- file selection like ruff: default excludes, force-exclude, the nearest config per file ----


def _checked(result) -> list[str]:
    return sorted(
        {line.split(":")[0] for line in result.stdout.splitlines() if ": INI" in line and not line.startswith(" ")}
    )


def test_exclude_replaces_the_default_excludes(tmp_path):
    write(tmp_path / "env" / "policy.py", UNPARSEABLE)  # RL code keeps its environments in env/
    write(tmp_path / "vendor" / "lib.py", UNPARSEABLE)
    write(tmp_path / "model.py", UNPARSEABLE)
    assert _checked(run_cli("check", "--isolated", ".", cwd=tmp_path)) == ["model.py", "vendor/lib.py"]
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nexclude = ["vendor"]\n')
    assert _checked(run_cli("check", ".", cwd=tmp_path)) == ["env/policy.py", "model.py"]
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nextend-exclude = ["vendor"]\n')
    assert _checked(run_cli("check", ".", cwd=tmp_path)) == ["model.py"]


def test_force_exclude_applies_to_files_named_on_the_command_line(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nextend-exclude = ["generated"]\n')
    write(tmp_path / "generated" / "model.py", UNPARSEABLE)
    assert _checked(run_cli("check", "generated/model.py", cwd=tmp_path)) == ["generated/model.py"]
    forced = run_cli("check", "--force-exclude", "generated/model.py", cwd=tmp_path)
    assert (forced.returncode, forced.stdout) == (0, "")
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nextend-exclude = ["generated"]\nforce-exclude = true\n')
    assert run_cli("check", "generated/model.py", cwd=tmp_path).stdout == ""


def test_nearest_pyproject_governs_each_file(tmp_path):
    """A monorepo: pre-commit passes files of both sub-projects in one run."""
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nignore = ["INI901"]\n')
    write(tmp_path / "lib" / "broken.py", UNPARSEABLE)
    write(tmp_path / "research" / "pyproject.toml", '[tool.initlint]\nextend-exclude = ["scratch"]\n')
    write(tmp_path / "research" / "broken.py", UNPARSEABLE)
    write(tmp_path / "research" / "scratch" / "broken.py", UNPARSEABLE)
    write(tmp_path / "research" / "sub" / "pyproject.toml", '[project]\nname = "no-initlint-table"\n')
    write(tmp_path / "research" / "sub" / "broken.py", UNPARSEABLE)
    result = run_cli("check", "lib/broken.py", "research", cwd=tmp_path)
    assert _checked(result) == ["research/broken.py", "research/sub/broken.py"], result.stdout + result.stderr
    inside = run_cli("check", "broken.py", "../lib/broken.py", cwd=tmp_path / "research")
    assert _checked(inside) == ["broken.py"]


def test_extend_ignore_and_extend_select_are_config_keys(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nextend-ignore = ["INI901"]\nextend-select = ["INI904"]\n')
    write(tmp_path / "broken.py", UNPARSEABLE)
    write(tmp_path / "stale.py", "import torch\nx = 1  # noqa: INI001\n")
    assert _checked(run_cli("check", ".", cwd=tmp_path)) == ["stale.py"]
    # --ignore on the command line replaces `ignore`, not `extend-ignore`
    assert _checked(run_cli("check", "--ignore", "INI904", ".", cwd=tmp_path)) == []
    assert load_settings([str(tmp_path)]).extend_ignore == ("INI901",)
    write(tmp_path / "pyproject.toml", '[tool.initlint]\nforce-exclude = "yes"\n')
    bad = run_cli("check", ".", cwd=tmp_path)
    assert bad.returncode == 2 and "force-exclude: expected true or false" in bad.stderr
