from steplm.registry import feedforwards


def build_feedforward(name, width):
    return feedforwards.get(name)(width)
