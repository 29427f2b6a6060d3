#!/usr/bin/env bash
# A release that installs: build the sdist and wheel, check their metadata, install the wheel
# into a fresh virtual environment (dependencies from PyPI) and use it as a user would: the CLI
# on examples/, the flake8 plugin, and the GitHub Action's steps. Nothing of the checkout is
# importable in that environment, so a file missing from the wheel fails here.
#
#   bash scripts/release_check.sh [PYTHON]        # PYTHON builds and hosts the venv (default python3)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
unset PYTHONPATH VIRTUAL_ENV

fail() { echo "release check: FAILED: $*" >&2; exit 1; }
expect_exit() {  # expect_exit STATUS OUTFILE COMMAND...
    local want="$1" out="$2"; shift 2
    local status=0
    "$@" >"$out" 2>&1 || status=$?
    [ "$status" -eq "$want" ] || { cat "$out" >&2; fail "$* exited $status, expected $want"; }
}

"$python" -m build --sdist --wheel --outdir "$work/dist" "$repo" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "python -m build"; }
"$python" -m twine check --strict "$work/dist"/* || fail "twine check"
wheel="$(ls "$work/dist"/initlint-*.whl)"
sdist="$(ls "$work/dist"/initlint-*.tar.gz)"
tar -tzf "$sdist" >"$work/sdist.txt"
grep -q "/initlint/server.py$" "$work/sdist.txt" || fail "the sdist lacks initlint/server.py"

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$wheel" flake8 || fail "pip install the wheel"
export PATH="$work/venv/bin:$PATH"
cp -r "$repo/examples" "$work/examples"
cd "$work"
installed="$(python -c 'import initlint; print(initlint.__file__)')"
case "$installed" in "$work/venv/"*) ;; *) fail "initlint imported from $installed, not the wheel" ;; esac
python -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is not None)' || fail "torch got installed"

# The README's first command: the bad examples are reported (exit 1), the good ones are not.
expect_exit 1 check.txt initlint check examples/
grep -q "^examples/gpt2_dead_name_test.py:.*INI001" check.txt || fail "initlint check examples/ missed INI001"
if grep -q "^examples/gpt2_nanogpt.py:" check.txt; then fail "a correct example was reported"; fi
expect_exit 1 flake8.txt flake8 --select INI examples/
grep -q "^examples/gpt2_dead_name_test.py:[0-9]*:[0-9]*: INI001 " flake8.txt || fail "flake8 --select INI missed INI001"
expect_exit 2 server.txt initlint server
grep -q "pip install 'initlint\[lsp\]'" server.txt || fail "initlint server without pygls gave no install hint"

# The GitHub Action's own steps, with this wheel as what it installs.
expect_exit 1 action.txt python "$repo/scripts/action_steps.py" "$work" --input "install=$wheel" --input args=examples/ \
    --input sarif=true --input python-version=
grep -q "^::warning file=examples/gpt2_dead_name_test.py,line=" action.txt || fail "the action printed no annotations"
python -c 'import json, sys; log = json.load(open("initlint.sarif")); sys.exit(not log["runs"][0]["results"])' || fail "the action wrote no SARIF results"

echo "release check passed: $(basename "$wheel") and $(basename "$sdist") build, pass twine check, install and run"
