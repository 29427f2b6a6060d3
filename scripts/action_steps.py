"""Run the `run:` steps of action.yml the way the GitHub runner would, on this machine.

    python scripts/action_steps.py WORKSPACE [--input NAME=VALUE ...]

Each step's `if:` is evaluated for the simple forms action.yml uses (`inputs.x == 'v'`,
`inputs.x != ''`), `${{ inputs.x }}` and `${{ github.action_path }}` are substituted into its
`env:` and `run:`, and the step runs with `bash -e` in WORKSPACE, as GitHub runs a `shell: bash`
step. `uses:` steps (setup-python, the SARIF upload) need GitHub and are reported as skipped.
Prints one line per step and `step <name>: exit N`; exits with the status of the first failing
step. The release check (scripts/release_check.sh) calls it with a freshly installed wheel.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
_CONDITION = re.compile(r"^inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'$")


def _value(expression: str, inputs: dict[str, str]) -> str:
    if expression == "github.action_path":
        return str(REPO)
    if expression.startswith("inputs."):
        return inputs[expression[len("inputs.") :]]
    raise SystemExit(f"action_steps: unsupported expression {expression!r}")


def substitute(text: str, inputs: dict[str, str]) -> str:
    return _EXPRESSION.sub(lambda match: _value(match.group(1), inputs), str(text))


def wanted(condition: str | None, inputs: dict[str, str]) -> bool:
    if condition is None:
        return True
    match = _CONDITION.match(str(condition).strip())
    if match is None:
        raise SystemExit(f"action_steps: unsupported condition {condition!r}")
    name, operator, literal = match.groups()
    return (inputs[name] == literal) == (operator == "==")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    for pair in args.input:
        name, _, value = pair.partition("=")
        if name not in inputs:
            parser.error(f"action.yml has no input {name!r}")
        inputs[name] = value
    for step in action["runs"]["steps"]:
        name = step.get("name") or step.get("uses")
        if not wanted(step.get("if"), inputs):
            print(f"step {name}: not run (if: {step['if']})")
        elif "uses" in step:
            print(f"step {name}: skipped (needs GitHub: uses {step['uses']})")
        else:
            env = {**os.environ, **{key: substitute(value, inputs) for key, value in step.get("env", {}).items()}}
            result = subprocess.run(["bash", "-e", "-c", substitute(step["run"], inputs)], cwd=args.workspace, env=env)
            print(f"step {name}: exit {result.returncode}")
            if result.returncode != 0:
                return result.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
