"""Files the referee writes where the user asks: never through a link planted there, never
blocked by a FIFO, never over what is there unless the user said so.

``write_file`` writes the one file a user names (``convert -o OUT``): a regular file, made
or truncated; anything else at that name (a FIFO, a device, a folder) is refused, and the
file is opened without blocking, so a FIFO with no reader cannot hang the referee.
``Folder`` writes new files in a folder the user names (``play --out DIR``): each one made
exclusively (``O_EXCL``: a name already taken, by a file, a link or a FIFO, is refused and
nothing is followed), or, where the user asked for it, written beside and renamed over
what is there (``os.replace`` replaces a link, it does not write through it).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from referee.data.limits import kind_of
from referee.errors import Problem, RefereeError, Span
from referee.text import shown

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _refused(path: str | Path, message: str, hint: str = "") -> RefereeError:
    return RefereeError([Problem(Span(shown(str(path)), 0, 0), message, hint)])


def _not_regular(path: Path, mode: int) -> RefereeError:
    return _refused(
        path,
        f"{kind_of(mode)}, not a regular file",
        "leave -o out to write to standard output",
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_file(path: Path, text: str) -> None:
    """``text`` (UTF-8) into the regular file at ``path``, made if there is none; anything
    else there refused, and never waited on."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
    except FileNotFoundError:
        pass
    except OSError as err:
        raise _refused(path, f"{err.strerror or err}") from None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | _NONBLOCK | _CLOEXEC, 0o666)
    except OSError as err:
        raise _refused(path, f"{err.strerror or err}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        os.ftruncate(fd, 0)
        _write_all(fd, text.encode("utf-8"))
    except OSError as err:
        raise _refused(path, f"{err.strerror or err}") from None
    finally:
        os.close(fd)


class Folder:
    """A folder the referee writes new files in (made if it is not there): the folder
    opened once, each file made in it by its descriptor."""

    def __init__(self, path: Path, replace: bool = False) -> None:
        self.path = path
        self.replace = replace
        try:
            path.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except OSError as err:
            raise _refused(path, f"cannot write to this folder: {err.strerror or err}") from None

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def taken(self, names: list[str]) -> RefereeError | None:
        """Unless replacing, the names already taken in the folder (checked before any work
        is done: they are refused again, exclusively, when written)."""
        if self.replace:
            return None
        found = [n for n in names if self._exists(n)]
        if not found:
            return None
        more = f" and {len(found) - 1:,} more" if len(found) > 1 else ""
        return _refused(
            self.path / found[0],
            f"already there{more}: files are written new",
            "give --replace to write over them, or another --out folder",
        )

    def _exists(self, name: str) -> bool:
        try:
            os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        except OSError:
            return True
        return True

    def write(self, name: str, text: str) -> Path:
        """A new file ``name`` in the folder, holding ``text``; what is there refused (or,
        replacing, renamed over: a link is replaced, a folder refused)."""
        path = self.path / name
        target = f".{name}.{secrets.token_hex(6)}.tmp" if self.replace else name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _NONBLOCK | _CLOEXEC
        try:
            fd = os.open(target, flags, 0o666, dir_fd=self.fd)
        except FileExistsError:
            raise _refused(
                path, "already there: files are written new", "give --replace to write over it"
            ) from None
        except OSError as err:
            raise _refused(path, f"cannot write it: {err.strerror or err}") from None
        try:
            try:
                _write_all(fd, text.encode("utf-8"))
            finally:
                os.close(fd)
            if self.replace:
                os.replace(target, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError as err:
            if self.replace:
                with contextlib.suppress(OSError):
                    os.unlink(target, dir_fd=self.fd)
            raise _refused(path, f"cannot write it: {err.strerror or err}") from None
        return path
