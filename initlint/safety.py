"""Defences against a hostile checkout and a hostile CI: shared by the CLI, the engine and the
reporters, so that each of them stays a one-line call.

* `clean_sys_path`: the import path without the working directory, so that a `signal.py` in
  the checked folder is never imported by initlint (`python -m initlint`, `-j` workers);
* `read_regular_file`: only regular files, and at most `MAX_FILE_BYTES` of them (a FIFO named
  `model.py` would block forever, a link to /dev/zero would fill the memory);
* `terminate_on_signals`: SIGTERM and SIGHUP (what CI timeouts and `timeout(1)` send) unwind
  the stack like Ctrl-C does, so worker processes, the runtime child and temporary folders are
  cleaned up by the `finally` blocks that already handle Ctrl-C;
* `write_text`: output that names a file whose name is not valid UTF-8 cannot crash the report.
"""

from __future__ import annotations

# Only modules every interpreter has loaded before `python -m initlint` runs: `__main__`
# cleans sys.path with this module, before anything could be imported from the checkout.
import codecs
import os
import stat

# `typing` is not loaded at start-up: a checkout's typing.py could stand in for it. mypy
# treats a name TYPE_CHECKING as true; at run time nothing is imported.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

#: The largest file initlint reads. The largest real source file of the scale run is 1.9 MB
#: (sympy); LibCST needs about 1 GB per 1.6 MB of source, see docs/robustness.md.
MAX_FILE_BYTES = 8 * 2**20


def clean_sys_path(paths: list[str], cwd: str | None = None) -> list[str]:
    """`paths` without the working directory ('' or '.', or the folder itself) and without
    other relative entries (they mean the working directory wherever initlint runs)."""
    here = os.path.realpath(cwd or os.getcwd())
    kept = []
    for entry in paths:
        if not entry or not os.path.isabs(entry):
            continue
        if os.path.realpath(entry) == here:
            continue
        kept.append(entry)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.realpath(package_root) == here and package_root not in kept:
        # initlint itself was found in the working directory (run from its own checkout):
        # keep it reachable, after everything else, so the standard library still wins.
        kept.append(package_root)
    return kept


class NotARegularFile(OSError):
    """Refused before reading: a FIFO, a device, a socket, or a file above the size cap."""

    def __str__(self) -> str:  # no "[Errno 0]": there is no system error behind it
        return str(self.strerror)


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def read_regular_file(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of a regular file (links followed) of at most `limit` (`MAX_FILE_BYTES`) bytes.

    Opened without blocking (a FIFO with no writer would block `open` itself), checked with
    `fstat` on the open descriptor (no race with a swap of the name), read to at most `limit`.
    """
    limit = MAX_FILE_BYTES if limit is None else limit
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise NotARegularFile(0, f"not a regular file ({kind})", os.fspath(path))
        if info.st_size > limit:
            raise NotARegularFile(
                0,
                f"too large ({_megabytes(info.st_size)}; initlint reads at most {_megabytes(limit)})",
                os.fspath(path),
            )
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while being read
            raise NotARegularFile(0, f"too large (over {_megabytes(limit)})", os.fspath(path))
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


# -- signals ---------------------------------------------------------------------------------


TERMINATING_SIGNALS = ("SIGTERM", "SIGHUP")


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (cleaning up on the way) and exit 128 + the signal."""

    def __init__(self, signum: int, name: str) -> None:
        super().__init__(name)
        self.signum = signum


def _raise_terminated(signum: int, frame: object) -> None:
    import signal

    # Once is enough: a second signal must not interrupt the clean-up of the first.
    for name in TERMINATING_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    raise Terminated(signum, signal.Signals(signum).name)


class terminate_on_signals:
    """Within the block, SIGTERM and SIGHUP raise `Terminated` in the main thread."""

    def __enter__(self) -> "terminate_on_signals":
        import signal

        self.saved = {}
        for name in TERMINATING_SIGNALS:
            number = getattr(signal, name, None)
            try:
                if number is None or signal.getsignal(number) is signal.SIG_IGN:
                    continue  # `nohup initlint ...`: the caller asked for SIGHUP to be ignored
                self.saved[number] = signal.signal(number, _raise_terminated)
            except (ValueError, OSError):  # not the main thread: keep the defaults
                pass
        return self

    def __exit__(self, *_: object) -> None:
        import signal

        for number, handler in self.saved.items():
            signal.signal(number, handler)


# -- output ----------------------------------------------------------------------------------


def _undecodable_as_bytes(error: UnicodeError) -> tuple[str | bytes, int]:
    """Error handler: a file name's undecodable byte (a lone surrogate from `os.fsdecode`) is
    written back as that byte; any other unencodable character as a backslash escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    piece = error.object[error.start : error.end]
    if all(0xDC80 <= ord(char) <= 0xDCFF for char in piece):
        return bytes(ord(char) - 0xDC00 for char in piece), error.end
    return piece.encode("ascii", "backslashreplace").decode("ascii"), error.end


codecs.register_error("initlint.output", _undecodable_as_bytes)


def write_text(stream: TextIO, text: str) -> None:
    """`stream.write(text)`, falling back to the stream's bytes where `text` cannot be encoded."""
    try:
        stream.write(text)
        return
    except UnicodeEncodeError:
        pass
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if buffer is None:  # a text-only stream (a test's StringIO): escape instead
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding, "replace"))
        return
    stream.flush()
    buffer.write(text.encode(encoding, "initlint.output"))
    buffer.flush()


def require_ascii_compatible(encoding: str) -> None:
    """CPython refuses source in an encoding that does not keep ASCII as ASCII (a
    `# coding: utf-16` cookie in an ASCII file): so does initlint, instead of reading garbage."""
    probe = "#=(x)\n"
    try:
        compatible = probe.encode("ascii").decode(encoding) == probe  # utf-8-sig too: no BOM here
    except (LookupError, UnicodeError):
        compatible = False
    if not compatible:
        raise SyntaxError(
            f"encoding problem: {encoding} (Python refuses source in an encoding that is not ASCII-compatible)"
        )
