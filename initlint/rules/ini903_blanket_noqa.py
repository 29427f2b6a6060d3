from initlint.rules.base import Rule


class BlanketNoqa(Rule):
    code = "INI903"
    docs = """
## What it does
Reports a bare `# noqa` comment (no code list) that hides at least one initlint finding. The
message names the codes it hid, ready to be written into the directive.

A directive whose code list does not parse is bare too: flake8 reads `# noqa : INI001`,
`# noqa:  INI001` (two spaces) and `# noqa: INI` as a bare `# noqa`, and so does initlint.

## Why is this bad?
A bare `# noqa` silences every rule of every linter on that line, including the ones nobody
meant to silence: an init bug added to the line later goes unreported.

## Example
```python
self.c_proj = nn.Linear(4 * n_embd, n_embd)  # noqa
```

## Use instead
```python
self.c_proj = nn.Linear(4 * n_embd, n_embd)  # noqa: INI001
```

## Notes
Off by default; enable it with `extend-select = ["INI903"]`. The finding is reported on the line
of the `# noqa` comment and is never hidden by that comment. Under flake8 a bare `# noqa`
hides this finding too (flake8 applies its own noqa), so the rule is in effect CLI-only.

## Fix safety
No fix.
"""
