"""Hard limits on what the referee reads.

Every file the referee reads (a record, a component file, a .rules file, a schema) goes
through ``read_bytes``: it must be a regular file, it is never read past its limit, and a
FIFO, a device, a folder or a link that goes round in a loop is refused with a message
instead of hanging the referee or filling its memory. A record may also come from standard
input (``-``), read by ``read_stdin`` under the same limit.
"""

from __future__ import annotations

import os
import select
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from referee.errors import Problem, RefereeError, Span
from referee.text import escape

MAX_DIGITS = 100  # digits of an integer written in a record, a data file or a .rules file
STDIN = "-"  # a record's path that means standard input
STDIN_NAME = "<stdin>"  # how errors and verdicts name it
_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """What a file is, said for people: 'a FIFO', 'a folder'..., or 'a file'."""
    return next((name for test, name in _KINDS if test(mode)), "a file")


def _refuse(file: str, message: str, line: int = 0, hint: str = "") -> RefereeError:
    return RefereeError([Problem(Span(file, line, line), message, hint)])


def _stdin_hint(what: str, mode: int) -> str:
    """For a record given as a pipe's or a terminal's path (/dev/stdin, say): what to do."""
    if what == "record" and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return f"to read a record from standard input, give {STDIN} instead of a path"
    return ""


class Snapshot:
    """Inside ``snapshot()``: each file's bytes as first read, given again to every later
    reading of the same path, so that what is hashed is what is parsed (the spec cache)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}


_LOCAL = threading.local()  # the snapshots of this thread, the innermost last


def _snapshots() -> list[Snapshot]:
    found: list[Snapshot] | None = getattr(_LOCAL, "snapshots", None)
    if found is None:
        found = _LOCAL.snapshots = []
    return found


@contextmanager
def snapshot() -> Iterator[Snapshot]:
    """Every file read through ``read_bytes`` inside it is read once: a second reading of a
    path gets the first one's bytes, whatever the file holds by then."""
    snap = Snapshot()
    _snapshots().append(snap)
    try:
        yield snap
    finally:
        _snapshots().remove(snap)


# The files a walk of a folder listed, by path: the file (device, inode) each was then. Such a
# file is read only if what is opened is still that file: one swapped for a link out of the
# folder (or for anything else) after the folder was listed is refused, not read.
_LISTED: dict[str, tuple[int, int]] = {}


def remember_listed(path: str | Path, st: os.stat_result) -> None:
    _LISTED[os.path.abspath(path)] = (st.st_dev, st.st_ino)


def forget_listed() -> None:
    _LISTED.clear()


def _still_listed(path: str | Path, st: os.stat_result, file: str) -> None:
    listed = _LISTED.get(os.path.abspath(path))
    if listed is not None and (st.st_dev, st.st_ino) != listed:
        raise _refuse(
            file,
            "changed since its folder was listed (another file, or a link, in its place): not read",
        )


def read_bytes(path: str | Path, limit: int, what: str = "file") -> bytes:
    """At most ``limit`` bytes of a regular file: anything else, or anything longer, refused
    (inside ``snapshot()``, the bytes of its first reading)."""
    snapshots = _snapshots()
    if not snapshots:
        return _read_bytes(path, limit, what)
    key = os.path.abspath(path)
    files = snapshots[-1].files
    if key not in files:
        files[key] = _read_bytes(path, limit, what)
    return _at_most(files[key], limit, escape(str(path)), what)


def _read_bytes(path: str | Path, limit: int, what: str) -> bytes:
    """``read_bytes`` from the file itself.

    The size is looked at before the file is opened, the file is opened without blocking
    (a FIFO put in its place cannot hang the open) and checked again once open, and no more
    than ``limit + 1`` bytes are ever read from it.
    """
    file = escape(str(path))
    not_regular = "{}, not a regular file: a " + what + " must be one"
    try:
        st = os.stat(path)
        _still_listed(path, st, file)
        if not stat.S_ISREG(st.st_mode):
            hint = _stdin_hint(what, st.st_mode)
            raise _refuse(file, not_regular.format(kind_of(st.st_mode)), hint=hint)
        if st.st_size > limit:
            raise _refuse(file, f"{what} is {st.st_size:,} bytes; the limit is {limit:,}", 1)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(fd)
            _still_listed(path, st, file)
            if not stat.S_ISREG(st.st_mode):
                raise _refuse(
                    file,
                    f"{kind_of(st.st_mode)}, not a regular file: a {what} must be one",
                    hint=_stdin_hint(what, st.st_mode),
                )
            data = read_fd(fd, limit)
        finally:
            os.close(fd)
    except OSError as err:
        raise _refuse(file, f"cannot read file: {err.strerror or err}") from None
    except ValueError:  # a path no file can have (from the Python API): a null byte in it
        raise _refuse(file, "cannot read file: a path with a null byte names no file") from None
    return _at_most(data, limit, file, what)


def read_fd(fd: int, limit: int) -> bytes:
    """What an open file holds, up to ``limit + 1`` bytes: one more than the limit says the
    file is longer, and no more is read."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_stdin(limit: int, what: str = "file") -> bytes:
    """At most ``limit`` bytes of standard input, whatever it is (a pipe, a terminal, a
    file redirected): no more than ``limit + 1`` bytes are ever read from it, and anything
    longer is refused as a file is. Errors name it ``<stdin>``."""
    try:
        st = os.fstat(0)
        if stat.S_ISDIR(st.st_mode):
            raise _refuse(STDIN_NAME, f"standard input is a folder: a {what} must be a file")
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise _refuse(STDIN_NAME, f"{what} is {st.st_size:,} bytes; the limit is {limit:,}", 1)
        data = _read_waiting(0, limit)
    except OSError as err:
        raise _refuse(STDIN_NAME, f"cannot read standard input: {err.strerror or err}") from None
    return _at_most(data, limit, STDIN_NAME, what)


def _at_most(data: bytes, limit: int, file: str, what: str) -> bytes:
    """What was read (``limit + 1`` bytes at the most), refused if it is over the limit."""
    if len(data) > limit:
        raise _refuse(file, f"{what} is over the limit of {limit:,} bytes", 1)
    return data


def _read_waiting(fd: int, limit: int) -> bytes:
    """``read_fd`` on a descriptor that may have been left non-blocking: it waits for data."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        try:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
        except BlockingIOError:
            select.select([fd], [], [])
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_text(path: str | Path, limit: int, what: str = "file") -> str:
    """A regular file of at most ``limit`` bytes, as UTF-8 text; anything else refused."""
    return decode(read_bytes(path, limit, what), escape(str(path)))


def decode(raw: bytes, file: str) -> str:
    """Bytes read from ``file`` as UTF-8 text; a bad byte is a located error."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        span = Span(file, line, column)
        raise RefereeError(
            [Problem(span, f"not UTF-8 text (bad byte at offset {err.start})")]
        ) from None
