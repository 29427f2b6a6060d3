"""timm: its own init functions and `DropPath`."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library, LayerSpec
from initlint.analysis.knowledge.torch_init import KAIMING_NORMAL, TRUNC_NORMAL

TIMM = Library(
    import_roots=("timm",),
    layers=(("timm.layers.DropPath", LayerSpec("dropout", "DropPath", match_class_name=True)),),
    init_functions=(
        ("timm.layers.trunc_normal_", TRUNC_NORMAL),
        # Same arguments as trunc_normal_; the cut points are in units of std.
        ("timm.layers.trunc_normal_tf_", TRUNC_NORMAL),
        ("timm.layers.lecun_normal_", KAIMING_NORMAL),
    ),
)
