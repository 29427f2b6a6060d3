"""einops: `Rearrange` only moves a tensor's values between axes (heads split or merged,
patches flattened), so a branch read through it keeps what it holds; `pack` joins tensors into
one (the stream with learned tokens, a branch input with another's), `unpack` cuts it back into
its pieces, each holding what the joined tensor held. Its `einsum` contracts as torch's does."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import LayerSpec, Library, Packing

EINOPS = Library(
    import_roots=("einops",),
    layers=(("einops.layers.torch.Rearrange", LayerSpec("dropout", "Rearrange")),),
    packing=(("einops.pack", Packing("packs")), ("einops.unpack", Packing("unpacks", tensors=0, shapes=1))),
    tensor_functions=("einops",),
)
