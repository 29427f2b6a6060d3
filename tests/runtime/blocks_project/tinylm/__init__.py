"""A small language model spread over three files, for `check --runtime` on a package folder."""
