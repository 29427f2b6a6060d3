"""Lazy per-statement positions agree with LibCST's whole-module PositionProvider."""

from __future__ import annotations

import libcst as cst
from gpt_parts import GENERIC_INIT, gpt
from libcst.metadata import MetadataWrapper, PositionProvider

from initlint.analysis.positions import LazyPositions, descendants

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
