"""A private, signed, on-disk cache: it reads back only what it wrote itself.

The entries live in one folder, ``$XDG_CACHE_HOME/rules-referee`` (``~/.cache/...`` by
default), which must be a real folder (not a link) owned by the user; the referee makes it
readable and writable by that user alone (0700) and uses nothing in it otherwise. Beside the
entries sits ``key``: 32 random bytes, made once, 0600, owned by the user. Each entry is
its name's and its payload's HMAC-SHA256 under that key, then the payload. An entry is
read only through a file descriptor opened without following links, and its signature is
checked before anything is done with its payload: an entry planted, edited, truncated or
copied under another name is not believed (it is ignored and written again). Entries are
written to a fresh temporary file in the same folder (``mkstemp``: a unique name, created
exclusively, 0600) and renamed into place, so that a reader never sees half of one and no
planted link is written through.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path

from referee.data.limits import read_fd

KEY_BYTES = 32
MAX_ENTRY_BYTES = 512 * 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rules-referee"


def _ours(st: os.stat_result) -> bool:
    return not hasattr(os, "geteuid") or st.st_uid == os.geteuid()


def private_dir() -> Path | None:
    """The cache folder, made private to this user; None where that cannot be had."""
    path = cache_dir()
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
            os.write(fd, key)
        finally:
            os.close(fd)
        return key
    opened = _open_ours(path)
    kept = _read_fd(opened, KEY_BYTES) if opened is not None else None
    return kept if kept is not None and len(kept) == KEY_BYTES else None


def _sign(key: bytes, name: str, payload: bytes) -> bytes:
    return hmac.new(key, name.encode() + b"\0" + payload, hashlib.sha256).digest()


def load(name: str) -> bytes | None:
    """The payload stored under ``name``, if this user's referee wrote it; else None."""
    folder = private_dir()
    key = _key(folder) if folder is not None else None
    if folder is None or key is None:
        return None
    fd = _open_ours(folder / name)
    data = _read_fd(fd, MAX_ENTRY_BYTES) if fd is not None else None
    if data is None or len(data) < 32:
        return None
    mac, payload = data[:32], data[32:]
    if not hmac.compare_digest(mac, _sign(key, name, payload)):
        return None
    return payload


def store(name: str, payload: bytes) -> None:
    """Keep ``payload`` under ``name``, signed; silently nothing where that cannot be done."""
    folder = private_dir()
    key = _key(folder) if folder is not None else None
    if folder is None or key is None or len(payload) > MAX_ENTRY_BYTES:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_sign(key, name, payload))
            f.write(payload)
        os.replace(tmp, folder / name)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
