"""Lazy per-statement positions agree with LibCST's whole-module PositionProvider."""

from __future__ import annotations

import libcst as cst
from gpt_parts import GENERIC_INIT, gpt
from libcst.metadata import MetadataWrapper, PositionProvider

from initlint.analysis.positions import LazyPositions, descendants, statement_parts

#: Whitespace and newline nodes are never reported; their columns may differ inside classes.
TRIVIA = (cst.EmptyLine, cst.Newline, cst.SimpleWhitespace, cst.TrailingWhitespace, cst.ParenthesizedWhitespace)

AWKWARD = '''#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""Module docstring."""


import torch ; import math


@decorator(
    1,
)
class A(torch.nn.Module):  # trailing comment
    x = 1

    def f(self):
        return (1 +
                2)
if True:
    y = [
        1,
    ]
# a comment at the end
'''


def test_lazy_positions_match_the_whole_module_provider():
    for source in (
        AWKWARD,
        gpt("self.apply(self._init_weights)", GENERIC_INIT),
        "x = 1\r\ny = 2\r\n",
        "class T:\n\tdef f(self):\n\t\treturn 1\n",
    ):
        module = cst.parse_module(source)
        full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        lazy = LazyPositions(module, source)
        checked = 0
        inside_statements = [node for statement in module.body for node in descendants(statement)]
        for node in inside_statements:
            if node not in full or isinstance(node, TRIVIA):
                continue
            assert lazy[node] == full[node], module.code_for_node(node)
            checked += 1
        assert checked > 5


def test_the_statement_walk_reaches_every_statement_the_full_walk_does():
    source = (
        "import os\n"
        "class A:\n"
        "    def f(self):\n"
        "        if x:\n            a = 1\n        elif y:\n            b = 2\n        else:\n            c = 3\n"
        "        try:\n            d = 4\n        except E:\n            e = 5\n        finally:\n            g = 6\n"
        "        for i in r:\n            h = 7\n        else:\n            k = 8\n"
        "        with m:\n            n = 9; o = 10\n"
        "        match p:\n            case 1:\n                q = 11\n"
        "lam = lambda: 0\n"
    )
    module = cst.parse_module(source)
    statement = (cst.BaseStatement, cst.BaseSmallStatement)
    every = [node for top in module.body for node in descendants(top) if isinstance(node, statement)]
    walked = [node for top in module.body for node in statement_parts(top) if isinstance(node, statement)]
    assert {id(node) for node in walked} == {id(node) for node in every}
