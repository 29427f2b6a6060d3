"""Stage 4: whether a gate a layer computes starts small, read from the init plan.

A branch multiplied by a later output of a module (`h, gate = self.ada_norm(x, c)`, adaLN's
`gate_msa`) is a deliberate scheme only where that gate starts at zero or near it: adaLN-Zero
zero-initialises the modulation Linear, so every branch starts switched off. A gate computed by
a Linear at PyTorch's default init (or any ordinary std) is O(1) from step zero: the writer it
multiplies is a plain residual writer. The same holds for a learned gate, a parameter the branch
is multiplied by: ReZero's alpha starts at zero and LayerScale's gamma at 0.1 or far below, while
a mixing weight that starts at 0.5 or 1 leaves the branch's scale to its writer. Anything the plan
cannot show stays deliberate.
"""

from __future__ import annotations

from initlint.analysis.flow import is_norm
from initlint.analysis.model import ModuleNode, Param, ResidualAdd, final_init

#: A constant std below this starts a gate near zero (small-init schemes use 1e-4 to 1e-6).
SMALL_STD = 1e-3
#: A learned gate starting at this magnitude or more at most halves its branch, whatever the
#: depth: a mixing weight, not a small start (LayerScale's largest usual start is CaiT's 0.1).
ORDER_ONE_GATE = 0.5


def settle_gates(adds: list[ResidualAdd]) -> None:
    """Mark gated the adds whose gate-computing modules or learned gates may start small; the
    others stay plain."""
    for add in adds:
        if (add.gate_layers or add.gate_params) and not add.gated:
            add.gated = not all(_starts_large(module) for module in add.gate_layers) or not all(
                gate_start(param) is not None for param in add.gate_params
            )


def gate_start(param: Param) -> float | None:
    """The value a learned gate certainly starts at, where that is of order one; None where it
    may start small or its start is not known."""
    final = final_init(param)
    support = final.op.support if final.op is not None else None
    if not final.certain or len(final.chain) != 1 or support is None or support[0] != support[1]:
        return None
    return support[0] if abs(support[0]) >= ORDER_ONE_GATE else None


def _starts_large(module: ModuleNode) -> bool:
    """Every linear layer of the module has a certain, ordinary weight init, and no parameter
    outside those layers and its norms may start small: whatever output of it is the gate, it is
    not a zero or small start."""
    layers = [node for _, node in module.named_modules() if node.kind in ("linear", "conv")]
    if not layers or module.kind not in ("module", "sequential", "linear"):
        return False
    for _, node in module.named_modules():
        if node.kind == "unknown":
            return False  # a layer of another package: its parameters are not seen
        if node in layers:
            weight = node.params.get("weight")
            if weight is None or not _ordinary(weight):
                return False
        elif not is_norm(node) and not all(_ordinary(param) for param in node.params.values()):
            return False
    return True


def _ordinary(param: Param) -> bool:
    """A certain init whose std is neither zero nor a small constant."""
    final = final_init(param)
    std = final.std
    if not final.certain or std is None or std.const == 0:
        return False
    return bool(std.atoms) or abs(std.const) >= SMALL_STD
