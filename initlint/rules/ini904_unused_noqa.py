from initlint.rules.base import Rule


class UnusedNoqa(Rule):
    code = "INI904"
    docs = """
## What it does
Reports each `INI` code in a `# noqa: ...` directive that hid no finding on its line: the
finding was fixed, the line moved, or the code was mistyped. Codes of other linters
(`E501`, `F401`, `B006`, ...) are left alone. A code is only judged when at least one rule it
names is enabled in this run (or it names no initlint rule at all), so `--select INI002` does
not call every `# noqa: INI001` unused.

## Why is this bad?
A stale suppression hides the next real finding on that line, and tells readers that the line
has a problem it no longer has.

## Example
```python
self.c_proj = nn.Linear(4 * n_embd, n_embd)  # noqa: INI001, INI002
```
where only INI001 is reported on that line.

## Use instead
```python
self.c_proj = nn.Linear(4 * n_embd, n_embd)  # noqa: INI001
```

## Notes
Off by default; enable it with `extend-select = ["INI904"]` (or `flake8 --extend-select INI904`).
The finding is reported on the line of the `# noqa` comment. `--ignore-noqa` (flake8:
`--disable-noqa`) turns the judgement off along with the suppression.

## Fix safety
No fix.
"""
