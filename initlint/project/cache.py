"""The on-disk summary cache: one small JSON file per file content, named by its sha256.

Safe under concurrent runs without locks: an entry is written to a temporary file in its own
folder and renamed over the final name (atomic on POSIX and Windows), so a reader sees a whole
entry or none. Entries are keyed by content, so two runs writing the same key write the same
summary. A corrupt or older entry is ignored and rewritten. Any failure to write (read-only
folder, full disk) turns the disk cache off for the run: it is an accelerator, never a need.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from initlint.project.layout import INSTALLED_FOLDERS
from initlint.safety import read_regular_file

#: Setting this variable chooses the cache folder; set to an empty string it turns the disk cache off.
ENV_VARIABLE = "INITLINT_CACHE_DIR"
#: A summary is a few kilobytes; a bigger entry is not one of ours.
MAX_ENTRY_BYTES = 4 * 2**20
FOLDER_NAME = ".initlint_cache"


def user_cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "initlint"


def default_cache_folder(root: Path) -> Path | None:
    """`INITLINT_CACHE_DIR` if set (empty: no disk cache), else the user cache folder.

    Not the checked repository: there a pull request could plant forged summaries (the key is
    only the hash of a file it also controls) or make the folder a link that sends our writes
    elsewhere. Entries are keyed by content, so one folder serves every project. `root` stays
    in the signature for a per-project choice (`cache-dir` in the project's config)."""
    del root
    configured = os.environ.get(ENV_VARIABLE)
    if configured is not None:
        return Path(configured).expanduser() if configured.strip() else None
    return user_cache_folder()


def choose_folder(folder: Path) -> Path:
    """`folder`, unless it lies inside installed packages: never write there."""
    if any(part in INSTALLED_FOLDERS for part in folder.parts):
        return user_cache_folder()
    return folder


class DiskCache:
    def __init__(self, folder: Path | None, version: int) -> None:
        self.folder = choose_folder(Path(folder)) if folder is not None else None
        #: Entries of each summary format live apart: two initlint versions sharing the user
        #: cache (pre-commit's environment beside a project's) must not rewrite each other's.
        self.version = version
        self._prepared = False

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def _entry(self, digest: str) -> Path:
        assert self.folder is not None  # callers check `enabled` first
        return self.folder / "summaries" / f"v{self.version}" / digest[:2] / f"{digest}.json"

    def get(self, digest: str):
        """The stored JSON for `digest`, or None (missing, unreadable, corrupt)."""
        if self.folder is None:
            return None
        try:
            # The cache can live in the checked repository: a FIFO planted there must not hang.
            data = json.loads(read_regular_file(self._entry(digest), MAX_ENTRY_BYTES))
        except (OSError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) and data.get("digest") == digest else None

    def put(self, digest: str, data: dict) -> None:
        if self.folder is None:
            return
        try:
            self._prepare()
            entry = self._entry(digest)
            entry.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(entry, json.dumps({**data, "digest": digest}, separators=(",", ":")))
        except (OSError, ValueError):
            self.folder = None

    def _prepare(self) -> None:
        if self._prepared or self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            _write_atomically(ignore, "# initlint's cache: nothing here belongs in version control\n*\n")
        self._prepared = True


def _write_atomically(path: Path, text: str) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
