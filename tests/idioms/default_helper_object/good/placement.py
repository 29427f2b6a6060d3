"""A placement policy: a plain object (no `nn.Module`) that hands each block back, maybe moved;
the model's default is a module-level instance of it."""

import os

SKIPPED = os.environ.get("SKIP_PLACEMENT", "").split(",")


class Placement:
    def place(self, block, index):
        if type(block).__name__ not in SKIPPED:
            return self._place(block, index)
        else:
            print(f"not placing {type(block).__name__}")
            return block

    def _place(self, block, index):
        raise NotImplementedError


class StayLocal(Placement):
    def _place(self, block, index):
        return block


LOCAL = StayLocal()
