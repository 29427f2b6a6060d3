"""A tiny attribute-bag config, the way minGPT-style code keeps its configs."""


class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def merge_from_dict(self, values):
        self.__dict__.update(values)

    def __repr__(self):
        return f"CfgNode({self.__dict__})"
