"""No classes here: the factory that picks a feed-forward by name."""
from tiny.layers.gelu import GeluMLP
from tiny.layers.swiglu import SwiGLU


def build_ffn(kind, width, hidden):
    if kind == "swiglu":
        return SwiGLU(width, hidden)
    if kind == "gelu":
        return GeluMLP(width, hidden)
    raise ValueError(kind)
