"""Records: the classes a `forward` builds to hand several values back by name (a dataclass such
as HF's `ModelOutput`, a `NamedTuple` class, a `namedtuple(...)` made at module level), and their
fields in the order their constructor takes them. The forward reader reads one as it reads a
tuple written out: its first field is the output the caller reads (`out.hidden`, `out[0]`)."""

from __future__ import annotations

import libcst as cst

from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.knowledge.conventions import NAMEDTUPLE_FACTORIES
from initlint.analysis.root_parameters import annotated_names, dataclass_fields


def class_fields(index: ModuleIndex, cls: ClassInfo) -> list[str]:
    """A record class's fields: a dataclass's (its bases' first), a `NamedTuple` class's; none
    for a module or any other class."""
    if index.is_module_class(cls):
        return []
    if any(base in NAMEDTUPLE_FACTORIES for base in cls.bases):  # (bases are resolved names)
        return annotated_names(cls)
    return dataclass_fields(index, index.mro(cls))


def factory_fields(index: ModuleIndex, name: str) -> list[str]:
    """The fields of the tuple class a module-level `name = namedtuple("Name", [...])` (or
    `NamedTuple("Name", [("field", type), ...])`) makes; none for any other name."""
    made = index.constants.get(name)
    if not isinstance(made, cst.Call) or index.resolve(made.func) not in NAMEDTUPLE_FACTORIES:
        return []
    given = [arg.value for arg in made.args if arg.keyword is None][1:2]
    given += [arg.value for arg in made.args if arg.keyword is not None and arg.keyword.value == "field_names"]
    if not given:
        return []
    if isinstance(given[0], cst.SimpleString):
        text = given[0].evaluated_value
        return text.replace(",", " ").split() if isinstance(text, str) else []
    if not isinstance(given[0], (cst.List, cst.Tuple)):
        return []
    fields = []
    for element in given[0].elements:
        item = element.value
        if isinstance(item, cst.Tuple) and item.elements:
            item = item.elements[0].value  # `("hidden", Tensor)` of `NamedTuple("Out", [...])`
        if not isinstance(item, cst.SimpleString) or not isinstance(item.evaluated_value, str):
            return []
        fields.append(item.evaluated_value)
    return fields
