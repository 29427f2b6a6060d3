"""`NameUses`: the questions the analysis asks of a module's names, from one `ast` read."""

import libcst as cst
import pytest

from initlint.analysis.usage import NameUses

SOURCE = """
import torch.nn as nn


def parallelize(model, mesh, compile=False):
    for block in model.layers:
        shard(block, mesh)
    if compile:
        return model
    return model


def shard_pair(encoder, decoder, mesh):
    return encoder, decoder


def build(config):
    model = Transformer(config)
    return model


def rebuild(model, config):
    model = Transformer(config)
    return model


def wrap(model):
    return Wrapped(model)


def maybe(model):
    if model is None:
        return None
    return model


def main(model):
    train(model)
"""


@pytest.mark.parametrize(
    ("name", "hands_back"),
    [
        ("parallelize", True),  # every return hands back the model it was given
        ("shard_pair", True),  # a tuple of its parameters
        ("build", False),  # a model it builds
        ("rebuild", False),  # the parameter's name rebound to a new model
        ("wrap", False),  # a new module around it
        ("maybe", False),  # a value of its own (None) on one path
        ("main", False),  # returns nothing at all
    ],
)
def test_a_function_handing_back_its_input_is_told_apart(name, hands_back):
    uses = NameUses(cst.parse_module(SOURCE))
    assert uses.hands_back_its_input(name) is hands_back


LITERALS = """
def mesh_axes(dims):
    if dims.enabled:
        return dims.mesh, None
    return {"shard": dims.shard}


def choose(dims):
    if dims.enabled:
        return (None, None)
    return Transformer(dims)


def nested(config):
    def inner():
        return (1, 2)

    return inner()


def nothing(config):
    print(config)
"""


@pytest.mark.parametrize(
    ("name", "literal"),
    [
        ("mesh_axes", True),  # a tuple on one path, a dict on the other: no module either way
        ("choose", False),  # a model on one path
        ("nested", False),  # the inner function's tuple is its own, the outer returns a call
        ("nothing", False),  # returns nothing at all (another question's answer)
    ],
)
def test_a_function_returning_only_literals_is_told_apart(name, literal):
    uses = NameUses(cst.parse_module(LITERALS))
    assert uses.returns_only_literals(name) is literal


def test_unreadable_source_answers_no():
    uses = NameUses(cst.parse_module("def f(x):\n    return x\n"), source="def f(:\n")
    assert uses.hands_back_its_input("f") is False


def test_no_text_is_unknown_not_an_empty_module():
    """`NameUses(None)` has nothing to read: its answers are the unknown ones, as for a file `ast`
    cannot read, never "nothing uses it"."""
    uses = NameUses(None)
    assert uses.functions_using("build") is None
    assert uses.statements_using("apply") is None
    assert uses.import_texts() is None
    assert uses.is_used("init_weights") and uses.is_read("build") and uses.returns_value("build")
    assert not uses.returns_only_literals("build")
    assert NameUses(None, source="").functions_using("build") == frozenset()  # an empty module is known


def test_a_demo_under_main_reads_on_run_not_on_import():
    """A builder the file's quick test calls is read, but not by anything importing the file
    runs: it builds a model, not a part of one. The test of the guard and its `else` do run."""
    source = (
        'def build(depth):\n    return make(depth)\n\n\nif "__main__" == __name__:\n    build(4)\nelse:\n    make(2)\n'
    )
    uses = NameUses(None, source=source)
    assert uses.is_read("build") and not uses.is_read_on_import("build")
    assert uses.is_read_on_import("make") and uses.is_read_on_import("__name__")
    assert NameUses(None).is_read_on_import("build")  # nothing known: read


PART_HELPERS = """
def zero_init_(m):
    nn.init.zeros_(m.weight)


def init_params(m):
    nn.init.normal_(m.weight, std=0.02)


class Unet(nn.Module):
    def __init__(self):
        self.to_out = nn.Conv2d(8, 3, 1)
        zero_init_(self.to_out)
        self.apply(init_params)


def train(model):
    init_params(model)
"""


@pytest.mark.parametrize(
    ("name", "on_a_part"),
    [
        ("zero_init_", True),  # handed a part of the module being built
        ("init_params", False),  # applied to every module, and called on a whole model
    ],
)
def test_a_helper_called_on_a_part_is_told_apart(name, on_a_part):
    uses = NameUses(cst.parse_module(PART_HELPERS))
    assert uses.applied_to_a_part(name) is on_a_part
    assert NameUses(None).applied_to_a_part(name) is False  # unknown: no helper is set aside
