"""What the package carries besides its code: the rules language's grammar and the bundled
games, each game's rules and data with the JSON Schemas beside them.

Everything is reached through ``importlib.resources``, so the package works however it is
installed (from a checkout, a wheel, pipx): ``referee/grammar/rules.lark``,
``referee/games/<game>/`` and ``referee/games/schema/``.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from contextlib import ExitStack
from functools import lru_cache
from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path

_KEPT = ExitStack()  # folders copied out of an archive, removed when the process ends
atexit.register(_KEPT.close)


def grammar(name: str = "rules") -> Traversable:
    """A Lark grammar of the package: the rules language's (``rules``), or the table
    notation's (``notation``)."""
    return files("referee").joinpath("grammar", f"{name}.lark")


@lru_cache(maxsize=1)
def games_root() -> Path:
    """The folder of the bundled games (one folder each) and their schemas (``schema/``), as
    a folder on disk: the package's own, or a copy if it was imported from an archive."""
    games = files("referee").joinpath("games")
    if isinstance(games, Path):
        return games
    try:
        return _KEPT.enter_context(as_file(games))  # Python 3.12 and later copy a folder
    except (OSError, TypeError, ValueError):
        return _copy(games)


def _copy(folder: Traversable) -> Path:
    """A folder of an archive, copied to a temporary folder on disk."""
    root = Path(tempfile.mkdtemp(prefix="referee-games-"))
    _KEPT.callback(shutil.rmtree, root, True)

    def copy(src: Traversable, dest: Path) -> None:
        for item in src.iterdir():
            if item.is_dir():
                (dest / item.name).mkdir()
                copy(item, dest / item.name)
            else:
                (dest / item.name).write_bytes(item.read_bytes())

    copy(folder, root)
    return root


def bundled_games() -> list[str]:
    """The names of the bundled games, in order."""
    root = games_root()
    return sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "schema")


def default_game() -> str:
    """The bundled game the commands use when none is named: games.yaml's ``default``, else
    the first bundled game."""
    import yaml

    games = bundled_games()
    try:
        named = yaml.safe_load((games_root() / "games.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        named = None
    chosen = named.get("default") if isinstance(named, dict) else None
    return chosen if isinstance(chosen, str) and chosen in games else (games[0] if games else "")
