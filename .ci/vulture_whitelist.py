"""Names vulture cannot see being used (`vulture` reads this file beside the package).

Only false positives belong here: code reached through an entry point, a plugin hook, a
class attribute read by reflection, or a dunder protocol. Dead code is deleted instead; the
backlog section at the end lists dead code that predates this check, owner by owner.
"""

from initlint import codes, flake8_plugin, runtime
from initlint.rules import base

# flake8 loads the checker from the `flake8.extension` entry point and calls these hooks.
flake8_plugin.InitlintChecker
flake8_plugin.InitlintChecker.add_options
flake8_plugin.InitlintChecker.parse_options

# Rule classes are found by `rules.all_rules()` walking the package; tests read the examples.
# A Protocol's methods are never called on the Protocol itself.
base.NodePositions.__getitem__

base.Rule.good_examples
base.Rule.bad_examples
UnscaledResidualProjection
DepthFactorMissing2x
RuntimeResidualScaling
ResidualWriterStdMismatch
ParameterStdMismatch
UninitialisedParameter
InitNotIdempotent
MetaPathStateLost
ClonedBlockParameters
StepZeroLossHigh
EffectiveWriterStdMismatch
MeasuredStdMismatch
RuntimeCheckFailed
UnparseableFile
InternalError
BlanketNoqa
UnusedNoqa

# Started by name in worker processes (`python -c "from initlint.parallel import worker_main"`).
worker_main

# Module-level `__getattr__` (PEP 562) is called by Python for lazy attributes.
runtime.__getattr__

# For runtime/ to replace its "INI110" literals (issue 8 switch-over, runtime engineer).
codes.RUNTIME_CHECK_FAILED

# --- Backlog: dead code that predates this check. Owners delete the code and the line. ----
# analysis/ (registry engineer)
LAYER_INDEX
ABSOLUTE_KINDS
std_source
# config.py (workflow engineer): `Settings.config_path` is written, never read.
config_path
# runtime/ (runtime engineer)
types
expected_stream_variance
all_zero
all_ones
keepalive
sparsity
tied_groups

# The project layer's API read by its tests (tests/test_project.py) rather than by initlint itself.
_.for_file
_.parsed_paths
