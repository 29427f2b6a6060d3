"""A name -> layer table that layer modules fill when they are imported."""


class Registry:
    def __init__(self):
        self._entries = {}

    def register(self, name, func=None):
        self._entries[name] = func
        return func

    def get(self, name):
        return self._entries[name]


feedforwards = Registry()
