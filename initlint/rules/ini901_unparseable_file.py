from initlint.rules.base import Rule


class UnparseableFile(Rule):
    code = "INI901"
    docs = """
## What it does
Reports a Python file that initlint could not decode or parse (a syntax error, grammar newer
than LibCST understands, an invalid encoding, NUL bytes, nesting too deep to analyse).

## Why is this bad?
Nothing in that file was checked. A silent skip would let a broken init through unnoticed.

## Example
```python
class Block(nn.Module:
    ...
```

## Use instead
Fix the syntax error, or exclude generated files with `extend-exclude` in `[tool.initlint]`.

## Fix safety
No fix.
"""
