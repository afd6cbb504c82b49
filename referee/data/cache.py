"""A private, signed, bounded on-disk cache: it reads back only what it wrote itself.

The entries live in one folder, ``rules-referee`` in the platform's cache folder
(``$XDG_CACHE_HOME`` where it is set to an absolute path, else ``~/.cache`` on Linux and other
Unixes, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows), which must be a real
folder (not a link) owned by the user; the referee makes it readable and writable by that
user alone (0700) and uses nothing in it otherwise. Beside the entries sits ``key``: 32
random bytes, made once, 0600, owned by the user. Each entry is its name's and its payload's
HMAC-SHA256 under that key, then the payload. An entry is read only through a file
descriptor opened without following links, and its signature is checked before anything is
done with its payload: an entry planted, edited, truncated or copied under another name is
not believed (it is ignored and written again). Entries are written to a fresh temporary file
in the same folder (``mkstemp``: a unique name, created exclusively, 0600) and renamed into
place, so that a reader never sees half of one and no planted link is written through.

The folder holds at most ``REFEREE_CACHE_ENTRIES`` entries (16 by default; 0 turns the disk
cache off): an entry read is marked as used (its modification time), and after each write
the entries used least recently are removed until that many are left, with temporary files
a crash left behind more than an hour ago.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import secrets
import stat
import sys
import tempfile
import time
from pathlib import Path

from referee.data.limits import read_fd
from referee.errors import Span, fail
from referee.text import shown

KEY_BYTES = 32
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # a spec's entry is about 1.5 MB
DEFAULT_ENTRIES = 16
MOST_ENTRIES = 100_000
ENTRY_SUFFIX = ".signed"
TEMPORARY = ".tmp-"
STALE_SECONDS = 3600  # a temporary file this old was left by a process that died
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


_WARNED: list[str] = []  # the warning given, once a process


def _warn(folder: Path, err: OSError) -> None:
    """Say once (a process) that the cache cannot be written: the spec is then parsed every
    time, and every verdict is given as it would be."""
    if _WARNED:
        return
    why = err.strerror or type(err).__name__
    _WARNED.append(why)
    with contextlib.suppress(OSError, ValueError):
        print(
            f"referee: warning: the spec cache in {shown(str(folder))} cannot be written"
            f" ({shown(why)}); it is skipped",
            file=sys.stderr,
        )


def cache_dir() -> Path | None:
    """The referee's folder in the platform's cache folder; None where there is no home."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    try:
        if os.path.isabs(xdg):  # the XDG spec: a relative path is to be ignored
            base = Path(xdg)
        elif sys.platform == "win32":
            local = os.environ.get("LOCALAPPDATA", "")
            base = Path(local) if os.path.isabs(local) else Path.home() / "AppData" / "Local"
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            base = Path.home() / ".cache"
    except (RuntimeError, KeyError, OSError):  # no home folder to be found
        return None
    return base / "rules-referee"


def max_entries() -> int:
    """How many entries the folder keeps: REFEREE_CACHE_ENTRIES, else 16; 0 is no disk cache.
    Anything but a whole number from 0 to 100,000 is bad input."""
    raw = os.environ.get("REFEREE_CACHE_ENTRIES", "").strip()
    if not raw:
        return DEFAULT_ENTRIES
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6) or int(raw) > MOST_ENTRIES:
        raise fail(
            Span("<environment>", 0, 0),
            f"REFEREE_CACHE_ENTRIES={shown(raw, 40)}: the number of spec cache entries to keep"
            f" must be a whole number from 0 (no disk cache) to {MOST_ENTRIES:,}",
        )
    return int(raw)


def enabled() -> bool:
    """Whether the disk cache is used: not with REFEREE_NO_CACHE set, nor with 0 entries."""
    return not os.environ.get("REFEREE_NO_CACHE") and max_entries() > 0


def _ours(st: os.stat_result) -> bool:
    return not hasattr(os, "geteuid") or st.st_uid == os.geteuid()


def private_dir() -> Path | None:
    """The cache folder, made private to this user; None where that cannot be had."""
    path = cache_dir()
    if path is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode) or not _ours(st):
            return None  # a link, a file, or someone else's folder: not ours to trust
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(path, 0o700)  # ours, but open to others: close it
    except OSError:
        return None
    return path


def _open_ours(path: Path) -> int | None:
    """A descriptor on a regular file of ours, opened without following a link."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or not _ours(st) or stat.S_IMODE(st.st_mode) & 0o077:
        os.close(fd)
        return None
    return fd


def _read_fd(fd: int, limit: int) -> bytes | None:
    """At most ``limit`` bytes of an open file, which is closed; None if it holds more."""
    try:
        data = read_fd(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def _key(folder: Path) -> bytes | None:
    """The folder's secret key, made if there is none yet."""
    path = folder / "key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    except FileExistsError:
        fd = -1
    except OSError:
        return None
    if fd >= 0:
        key = secrets.token_bytes(KEY_BYTES)
        try:
            try:
                written = os.write(fd, key)
            finally:
                os.close(fd)
            if written != KEY_BYTES:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as err:  # a full disk, say: no key left behind, no cache
            with contextlib.suppress(OSError):
                os.unlink(path)
            _warn(folder, err)
            return None
        return key
    opened = _open_ours(path)
    kept = _read_fd(opened, KEY_BYTES) if opened is not None else None
    return kept if kept is not None and len(kept) == KEY_BYTES else None


def _sign(key: bytes, name: str, payload: bytes | memoryview) -> bytes:
    mac = hmac.new(key, name.encode() + b"\0", hashlib.sha256)
    mac.update(payload)  # not copied
    return mac.digest()


def load(name: str) -> bytes | None:
    """The payload stored under ``name``, if this user's referee wrote it; else None."""
    folder = private_dir()
    key = _key(folder) if folder is not None else None
    if folder is None or key is None:
        return None
    fd = _open_ours(folder / name)
    if fd is None:
        return None
    if os.fstat(fd).st_size > MAX_ENTRY_BYTES:  # nothing this large was written here
        os.close(fd)
        return None
    _touch(fd, folder / name)  # used now: the last to be evicted
    data = _read_fd(fd, MAX_ENTRY_BYTES)
    if data is None or len(data) < 32:
        return None
    view = memoryview(data)
    if not hmac.compare_digest(view[:32], _sign(key, name, view[32:])):
        return None
    return data[32:]


def _touch(fd: int, path: Path) -> None:
    """Mark an open entry as used now (its modification time); nothing where that fails."""
    now = time.time_ns()
    with contextlib.suppress(OSError, NotImplementedError):
        if os.utime in os.supports_fd:
            os.utime(fd, ns=(now, now))
        elif os.utime in os.supports_follow_symlinks:
            os.utime(path, ns=(now, now), follow_symlinks=False)


def store(name: str, payload: bytes) -> None:
    """Keep ``payload`` under ``name``, signed; silently nothing where that cannot be done."""
    folder = private_dir()
    key = _key(folder) if folder is not None else None
    if folder is None or key is None or len(payload) > MAX_ENTRY_BYTES:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    except OSError as err:
        _warn(folder, err)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_sign(key, name, payload))
            f.write(payload)
        os.replace(tmp, folder / name)
    except OSError as err:  # a full disk: the entry is not kept, nor half of it
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _warn(folder, err)
        return
    evict(folder, max_entries(), keep=name)


def entries(folder: Path) -> list[tuple[int, str]]:
    """The folder's entries, least recently used first: (modification time in ns, name)."""
    found: list[tuple[int, str]] = []
    with contextlib.suppress(OSError), os.scandir(folder) as listing:
        for e in listing:
            if not e.name.endswith(ENTRY_SUFFIX) or e.name.startswith(TEMPORARY):
                continue
            with contextlib.suppress(OSError):
                found.append((e.stat(follow_symlinks=False).st_mtime_ns, e.name))
    return sorted(found)


def evict(folder: Path, limit: int, keep: str = "") -> None:
    """Remove the entries used least recently until ``limit`` are left (never ``keep``), and
    temporary files left behind by a process that died."""
    stale = time.time() - STALE_SECONDS
    with contextlib.suppress(OSError), os.scandir(folder) as listing:
        for e in listing:
            if e.name.startswith(TEMPORARY):
                with contextlib.suppress(OSError):
                    if e.stat(follow_symlinks=False).st_mtime < stale:
                        os.unlink(e.path)
    found = entries(folder)
    for _, name in found[: max(len(found) - limit, 0)]:
        if name != keep:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)  # a link planted there is removed, not followed
