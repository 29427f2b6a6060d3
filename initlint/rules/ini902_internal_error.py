from initlint.rules.base import Rule


class InternalError(Rule):
    code = "INI902"
    docs = """
## What it does
Reports a file whose analysis raised an unexpected error or ran past its time or recursion
budget. The run goes on with the other files.

## Why is this bad?
The file was not (fully) checked. It is a bug in initlint: the message names the exception,
so a minimal reproduction can be filed.

## Example
Any file that triggers a bug in the analyzer.

## Use instead
Report the message and the file's shape to the initlint issue tracker; exclude the file meanwhile.

## Fix safety
No fix.
"""
