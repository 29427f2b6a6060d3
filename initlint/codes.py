"""The one table of codes initlint reports: code, name, default, severity, summary, producer.

Everything that needs to know which codes exist reads this table: configuration (`select`,
`ignore`), `# noqa` (INI903/INI904), the flake8 plugin (its default ignore list, at start-up of
every flake8 run), the rule modules (their name and summary) and the runtime (its findings).
It is a leaf module: it imports nothing from initlint, so any layer may read it, and importing
it costs no parse of anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Who reports a code: the static rules (`check`), the runtime verifier (`--runtime`), or
#: initlint itself about the file or its own directives.
Producer = Literal["static", "runtime", "tool"]
Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Code:
    code: str
    #: kebab-case, stable: `initlint rule NAME` and SARIF rule names use it.
    name: str
    producer: Producer
    severity: Severity
    summary: str
    default_enabled: bool = True


_TABLE = (
    Code(
        "INI001",
        "unscaled-residual-projection",
        "static",
        "warning",
        "A layer that writes into the residual stream is initialised without a depth factor.",
    ),
    Code(
        "INI002",
        "depth-factor-missing-2x",
        "static",
        "warning",
        "Residual writers are scaled by 1/sqrt(n_layer) although each block adds two branches (N = 2 * n_layer).",
    ),
    Code(
        "INI003",
        "runtime-residual-scaling",
        "static",
        "warning",
        "A residual branch is scaled by a depth or width constant in forward instead of (or on top of) its init.",
    ),
    Code(
        "INI101",
        "residual-writer-std-mismatch",
        "runtime",
        "warning",
        "Runtime: a residual writer is asked for a std the init policy does not expect.",
    ),
    Code(
        "INI102",
        "parameter-std-mismatch",
        "runtime",
        "warning",
        "Runtime: a non-writer parameter (embedding, head, linear, norm, bias) is asked for the wrong distribution.",
    ),
    Code(
        "INI103",
        "uninitialised-parameter",
        "runtime",
        "error",
        "Runtime: a parameter, or part of it, is never written after `torch.empty`.",
    ),
    Code(
        "INI104",
        "init-not-idempotent",
        "runtime",
        "warning",
        "Runtime: calling the model's init entry point a second time changes its distributions.",
    ),
    Code(
        "INI105",
        "meta-path-state-lost",
        "runtime",
        "warning",
        "Runtime: building on meta and materialising gives a different model than the eager build.",
    ),
    Code(
        "INI106",
        "cloned-block-parameters",
        "runtime",
        "warning",
        "Runtime: parameters of different blocks start with identical values.",
    ),
    Code(
        "INI107",
        "step-zero-loss-high",
        "runtime",
        "warning",
        "Runtime: the language model's loss at step zero is far above ln(vocab).",
    ),
    Code(
        "INI108",
        "effective-writer-std-mismatch",
        "runtime",
        "warning",
        "Runtime: a residual writer's effective std (init times runtime factors) is off policy.",
    ),
    Code(
        "INI109",
        "measured-std-mismatch",
        "runtime",
        "warning",
        "Runtime: a materialised tensor's values do not match the distribution its init requested.",
    ),
    Code(
        "INI110",
        "runtime-check-failed",
        "runtime",
        "error",
        "Runtime: the model could not be imported, built or run, so it was not verified.",
    ),
    Code("INI901", "unparseable-file", "tool", "error", "The file could not be read or parsed, so it was not checked."),
    Code("INI902", "internal-error", "tool", "error", "initlint failed while analysing the file; please report it."),
    Code(
        "INI903",
        "blanket-noqa",
        "tool",
        "warning",
        "A bare `# noqa` hides an initlint finding together with every other code on the line.",
        default_enabled=False,
    ),
    Code(
        "INI904",
        "unused-noqa",
        "tool",
        "warning",
        "A `# noqa: INIxxx` code hides nothing on its line.",
        default_enabled=False,
    ),
)

#: code -> its row, in code order.
CODES: dict[str, Code] = {entry.code: entry for entry in _TABLE}

# Names for the codes initlint's own modules emit, so a typo is an import error, not a
# finding with a code nobody can select.
INTERNAL_ERROR = "INI902"
BLANKET_NOQA = "INI903"
UNUSED_NOQA = "INI904"
RUNTIME_CHECK_FAILED = "INI110"


class UnknownCode(KeyError):
    """A code that is not in the table: a bug in initlint, never a user's mistake."""


def code_info(code: str) -> Code:
    """The row of `code`; `UnknownCode` if there is none."""
    try:
        return CODES[code]
    except KeyError:
        raise UnknownCode(code) from None


def find(text: str) -> Code | None:
    """The row named by a code (any case) or a kebab name, as users type them; else None."""
    wanted = text.strip()
    row = CODES.get(wanted.upper())
    if row is not None:
        return row
    return next((entry for entry in _TABLE if entry.name == wanted.lower()), None)


def default_enabled(code: str) -> bool:
    """Whether a code is on when nothing selects it; codes outside the table count as on so
    that selection never silently drops a finding."""
    row = CODES.get(code)
    return row.default_enabled if row is not None else True
