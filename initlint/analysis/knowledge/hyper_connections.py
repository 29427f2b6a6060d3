"""hyper-connections (lucidrains' `hyper_connections` package): modules standing between the
residual stream and each branch. `branch_input, add_residual = connection(x)` hands back the
branch input and the adder, `x = add_residual(branch(branch_input))` adds the branch; one built
around its branch (`connection(x)` with `branch=` given) does both. Its `Residual` (the one-stream
stand-in the factories choose with `disable`) works the same way.

The factories bind the stream count (and `dim`, and with the manifold-constrained ones any other
keyword) on the connection class; each returns `(init, expand, reduce)`."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import LayerFactory, LayerSpec, Library, StreamConnection

_ROOT = "hyper_connections"
#: Where each kind of connection is defined, and the names it is re-exported under.
_CONNECTIONS = {
    "HyperConnections": ("", ".hyper_connections", ".hyper_connections_channel_first"),
    "ManifoldConstrainedHyperConnections": ("", ".manifold_constrained_hyper_connections", ".mHCv2"),
    "mHC": ("", ".manifold_constrained_hyper_connections", ".mHCv2"),
    "Residual": (
        "",
        ".hyper_connections",
        ".hyper_connections_channel_first",
        ".manifold_constrained_hyper_connections",
        ".mHCv2",
    ),
}
_FACTORY = "get_init_and_expand_reduce_stream_functions"
#: The factories: each module's own, as a function and as a static method of its class.
_FACTORIES = {
    f"{_ROOT}.{_FACTORY}": "HyperConnections",
    f"{_ROOT}.mc_{_FACTORY}": "ManifoldConstrainedHyperConnections",
    **{
        f"{_ROOT}{module}{owner}.{_FACTORY}": cls
        for cls, modules in _CONNECTIONS.items()
        if cls != "Residual"
        for module in modules
        for owner in ("", f".{cls}")
        if module or owner
    },
}

_CONNECTION = StreamConnection(branch="branch", adds="add_branch_out_to_residual")

HYPER_CONNECTIONS = Library(
    import_roots=(_ROOT,),
    layers=tuple(
        (f"{_ROOT}{module}.{cls}", LayerSpec("wrapper", cls, connection=_CONNECTION))
        for cls, modules in _CONNECTIONS.items()
        for module in modules
    ),
    layer_factories=tuple(
        (name, LayerFactory(f"{_ROOT}.{cls}", returns=3)) for name, cls in sorted(_FACTORIES.items())
    ),
)
