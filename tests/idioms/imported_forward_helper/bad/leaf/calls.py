"""Calling a sublayer with only the keyword arguments it accepts."""

import inspect


def call_layer(layer, x, **extra):
    if not extra:
        return layer(x)
    accepted = inspect.signature(layer.forward).parameters
    return layer(x, **{key: value for key, value in extra.items() if key in accepted})
