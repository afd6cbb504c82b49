"""Find files below a folder without following it anywhere else.

A folder given by a user may hold anything: FIFOs, devices, links that lead nowhere or out
of it, folders that cannot be read, folders a thousand deep. ``walk`` finds the files asked
for without recursion and says what it passed over and why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from referee.data.limits import kind_of, remember_listed
from referee.text import escape


@dataclass
class Skipped:
    """A path below a folder that was not judged, and why."""

    path: str
    reason: str

    def text(self) -> str:
        return f"{escape(self.path)}: skipped: {self.reason}"


MAX_WALK_DEPTH = 64  # folders within folders below a folder given
MAX_WALK_ENTRIES = 100_000  # entries looked at below a folder given (/, say): then it stops
MAX_SKIPPED = 100  # what a walk says it passed over, at most; then how many more


def walk(top: Path, suffixes: tuple[str, ...], skipped: list[Skipped]) -> list[Path]:
    """The files below a folder whose names end with one of ``suffixes``, in order, found
    without recursion; what was passed over goes to ``skipped``, with why."""
    root = os.path.realpath(top)
    found: list[Path] = []
    stack: list[tuple[Path, int]] = [(top, 0)]
    seen = 0
    passed: list[Skipped] = []
    while stack:
        folder, depth = stack.pop()
        if seen > MAX_WALK_ENTRIES:
            passed.append(
                Skipped(
                    str(top),
                    f"more than {MAX_WALK_ENTRIES:,} files and folders below it: the search"
                    f" stopped ({len(stack) + 1:,} folders not searched)",
                )
            )
            break
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            passed.append(Skipped(str(folder), f"cannot read this folder ({err.strerror})"))
            continue
        seen += len(entries)
        subfolders = []
        for e in entries:
            path = Path(e.path)
            try:
                if e.is_symlink():
                    target = os.path.realpath(e.path)
                    if not os.path.exists(target):
                        if path.suffix in suffixes:
                            passed.append(Skipped(e.path, "a link that leads nowhere"))
                        continue
                    if os.path.commonpath([root, target]) != root:
                        passed.append(Skipped(e.path, "a link out of the folder: not followed"))
                        continue
                    if os.path.isdir(target):
                        continue  # inside the folder: reached by its own path
                if e.is_dir():
                    subfolders.append(path)
                elif path.suffix in suffixes:
                    if e.is_file():
                        found.append(path)
                        remember_listed(e.path, e.stat())  # read only if still this file
                    else:
                        kind = kind_of(e.stat().st_mode)
                        passed.append(Skipped(e.path, f"{kind}, not a regular file"))
            except (OSError, ValueError) as err:
                why = (err.strerror if isinstance(err, OSError) else None) or err
                passed.append(Skipped(e.path, f"cannot look at it ({why})"))
        if subfolders and depth >= MAX_WALK_DEPTH:
            passed.append(
                Skipped(str(folder), f"folders nested deeper than {MAX_WALK_DEPTH}: not searched")
            )
            continue
        stack += [(f, depth + 1) for f in reversed(subfolders)]
    skipped += passed[:MAX_SKIPPED]
    if len(passed) > MAX_SKIPPED:
        more = len(passed) - MAX_SKIPPED
        skipped.append(Skipped(str(top), f"and {more:,} more passed over below it, not listed"))
    return sorted(found, key=lambda f: f.parts)
