"""Config libraries: bases that make every subclass a dataclass in all but name (PEP 681's
`dataclass_transform` on a base class): the class body's annotated names are its fields, their
values its defaults, and its `__init__` takes them by keyword."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library

CONFIG_CLASSES = Library(
    # `class Config(BaseModel): norm_placement: str = "pre"`; `BaseSettings` is a `BaseModel`.
    dataclass_bases=("pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic_settings.BaseSettings"),
)
