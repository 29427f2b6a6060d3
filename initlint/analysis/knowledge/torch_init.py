"""`torch.nn.init` functions, in-place tensor init methods and tensor factories."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Arg, InitSpec, Library, TensorFactory

#: `nn.init.normal_(tensor, mean=0.0, std=1.0)`: the tensor is argument 0.
STD = Arg(2, ("std",), 1.0)
#: `nn.init.trunc_normal_(tensor, mean, std, a=-2.0, b=2.0)`: the cut points.
TRUNC_LOW, TRUNC_HIGH = Arg(3, ("a",), -2.0), Arg(4, ("b",), 2.0)
GAIN = Arg(1, ("gain",), 1.0)

NORMAL = InitSpec("normal", std=STD)
TRUNC_NORMAL = InitSpec("trunc_normal", std=STD, low=TRUNC_LOW, high=TRUNC_HIGH, invisible_on_meta=True)
UNIFORM = InitSpec("uniform", low=Arg(1, ("a",), 0.0), high=Arg(2, ("b",), 1.0))
KAIMING_NORMAL = InitSpec("kaiming_normal", fan="fan_in")
CONSTANT_INVISIBLE = InitSpec("constant", invisible_on_meta=True)

_INIT = "torch.nn.init"

#: Tensor members that tell how many dimensions it has (`if p.dim() == 2:` picks the matrices).
RANK_METHODS = ("dim", "ndimension")
RANK_ATTRIBUTES = ("ndim",)
#: Members that give its shape as a sequence (`len(p.shape) > 1`, `len(p.size())`).
SHAPE_METHODS = ("size",)
#: Tensor methods whose result holds the receiver's values (`gamma.view(-1, 1, 1)` is still that
#: learned gain, `layer.weight.clone()` still that layer's weight), each with whether the result
#: is the receiver's own tensor, moved, cast or detached (`w.cpu()`, `w.detach()`): an in-place
#: draw on it (`w.cpu().normal_(std=0.02)`) is that tensor's draw. A draw on a copy (`clone`) or
#: on another layout (`view`, `t`) is not read as one.
VALUE_KEEPING_METHODS = {
    **dict.fromkeys(("cpu", "cuda", "to", "detach", "float", "double", "half", "bfloat16", "contiguous"), True),
    **dict.fromkeys(("view", "reshape", "unsqueeze", "squeeze", "expand", "expand_as", "type_as", "t", "clone"), False),
}
SHAPE_ATTRIBUTES = ("shape",)
TORCH_INIT = Library(
    init_functions=(
        (f"{_INIT}.normal_", NORMAL),
        (f"{_INIT}.normal", NORMAL),
        (f"{_INIT}.trunc_normal_", TRUNC_NORMAL),
        (f"{_INIT}.uniform_", UNIFORM),
        (f"{_INIT}.uniform", UNIFORM),
        (f"{_INIT}.zeros_", InitSpec("zeros")),
        (f"{_INIT}.ones_", InitSpec("ones")),
        (f"{_INIT}.constant_", InitSpec("constant", value=Arg(1, ("val",), 0.0))),
        (f"{_INIT}.eye_", CONSTANT_INVISIBLE),
        (f"{_INIT}.dirac_", CONSTANT_INVISIBLE),
        (f"{_INIT}.xavier_uniform_", InitSpec("xavier_uniform", gain=GAIN, fan="fan_avg")),
        (f"{_INIT}.xavier_normal_", InitSpec("xavier_normal", gain=GAIN, fan="fan_avg")),
        (f"{_INIT}.kaiming_uniform_", InitSpec("kaiming_uniform", fan="fan_in")),
        (f"{_INIT}.kaiming_normal_", KAIMING_NORMAL),
        (f"{_INIT}.orthogonal_", InitSpec("orthogonal", gain=GAIN, fan="fan_avg", invisible_on_meta=True)),
        # The std of the entries it does not zero.
        (f"{_INIT}.sparse_", InitSpec("normal", std=Arg(2, ("std",), 0.01), invisible_on_meta=True)),
    ),
    # Methods take no tensor argument: their arguments count from 0.
    tensor_methods=(
        ("torch.Tensor.normal_", InitSpec("normal", std=Arg(1, ("std",), 1.0))),
        (
            "torch.Tensor.trunc_normal_",
            InitSpec("trunc_normal", std=Arg(1, ("std",), 1.0), low=Arg(2, ("a",), -2.0), high=Arg(3, ("b",), 2.0)),
        ),
        ("torch.Tensor.uniform_", InitSpec("uniform", low=Arg(0, ("a", "from"), 0.0), high=Arg(1, ("b", "to"), 1.0))),
        ("torch.Tensor.zero_", InitSpec("zeros")),
        ("torch.Tensor.fill_", InitSpec("constant", value=Arg(0, ("value",), 0.0))),
        ("torch.Tensor.mul_", InitSpec("scale")),
        ("torch.Tensor.div_", InitSpec("scale", divides=True)),
        ("torch.Tensor.copy_", InitSpec("copy")),
        # The inverse CDF of a normal of std 1/sqrt(2): a uniform draw becomes a (cut) normal.
        ("torch.Tensor.erfinv_", InitSpec("erfinv")),
    ),
    tensor_factories=tuple(
        (f"torch.{name}", TensorFactory(kind, std, value))
        for name, kind, std, value in (
            ("ones", "ones", 0.0, None),
            ("ones_like", "ones", 0.0, None),
            ("zeros", "zeros", 0.0, None),
            ("zeros_like", "zeros", 0.0, None),
            ("empty", "empty", None, None),
            ("empty_like", "empty", None, None),
            ("Tensor", "empty", None, None),
            ("FloatTensor", "empty", None, None),
            ("randn", "normal", 1.0, None),
            ("randn_like", "normal", 1.0, None),
            ("rand", "uniform", 12**-0.5, None),
            ("rand_like", "uniform", 12**-0.5, None),
            ("full", "constant", 0.0, Arg(1, ("fill_value",), 0.0)),
            ("tensor", "constant", 0.0, Arg(0, ("data",), 0.0)),
            ("eye", "constant", 0.0, None),
        )
    ),
)
