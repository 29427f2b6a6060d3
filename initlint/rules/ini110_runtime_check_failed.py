"""INI110: Runtime: the model could not be imported, built or run, so it was not verified."""

from __future__ import annotations

from initlint.rules.base import Rule


class RuntimeCheckFailed(Rule):
    code = "INI110"
    docs = """
## What it does
Reports, in one line, why `--runtime` could not verify a model: an import error, a crash, a hang
past `--timeout`, `sys.exit`, running out of `--memory-limit`, or a constructor initlint cannot
call (then it says exactly what to pass: `--model`, `--config k=v,...` or `--factory`). The
model's code only ever runs in a child process; the static findings are reported regardless.

## Why is this bad?
The runtime checks did not run: the init was not verified.

## Example
```
model.py:1:1: INI110 runtime check not run: cannot build GPT: GPT(vocab_size, n_layer) needs values for vocab_size, n_layer; pass --config vocab_size=...,n_layer=... or --factory FILE.py:CALLABLE
```

## Use instead
Pass what the message asks for, or a `--factory` that builds a small config.

## Fix safety
No fix.
"""
