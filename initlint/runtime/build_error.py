"""The one error of building a model: why it could not be built and what to pass instead.

Raised where the model's files are loaded (`build.py`) and its config is made (`configs.py`),
in the child process; the child reports its message as it is.
"""

from __future__ import annotations


class BuildError(Exception):
    """One line: why a model could not be built and what to pass instead; `site` is (file, line)
    of the class or factory that could not be built, when one is to blame."""

    def __init__(self, message: str, site: tuple[str, int] | None = None) -> None:
        super().__init__(message)
        self.site = site
