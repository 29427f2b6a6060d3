from steplm import feedforward  # noqa: F401  (fills the registry on import)
