"""Name -> layer tables that the layer modules fill when they are imported."""


class Registry:
    def __init__(self, kind):
        self.kind = kind
        self._entries = {}

    def register(self, name, func=None):
        self._entries[name] = func
        return func

    def register_class(self, name):
        def add(cls):
            self._entries[name] = cls
            return cls

        return add

    def get(self, name):
        return self._entries[name]


mixers = Registry("mixers")
feedforwards = Registry("feedforwards")
