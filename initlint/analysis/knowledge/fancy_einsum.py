"""fancy_einsum (TransformerLens and the models built like it): `einsum("batch pos d_mlp, d_mlp
d_model -> batch pos d_model", x, self.W_out)` is torch's einsum with axes named by words, so
the weight it is handed writes its result."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library

FANCY_EINSUM = Library(tensor_functions=("fancy_einsum",))
