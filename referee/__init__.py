"""A game-agnostic rules referee: a rules language, its checker and interpreter.

The game itself (clauses, numbers, components) is data: the bundled game's spec
lives in referee/games/, read through importlib.resources; nothing in the code of
this package knows which game it is refereeing.

From Python (docs/api.md)::

    import referee

    verdict = referee.check("game.yaml")
    for v in verdict.violations:
        print(v.cites, v.message)

What this module exports is the API (referee/api.py); every other module of the package is
internal. The API is loaded when a name of it is first used (PEP 562), so that a command
that does not need it (`referee --version`, `referee check`) does not pay for it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # what a type checker sees; at run time, __getattr__ below
    from referee.api import *  # noqa: F403 - the API is what this package exports


def __getattr__(name: str) -> Any:
    """A name of the API (or ``__all__``), loaded on first use and kept."""
    api = import_module("referee.api")  # not `from referee import api`: that asks this hook

    if name == "__all__":
        value: Any = ["__version__", *api.__all__]
    elif name in api.__all__:
        value = getattr(api, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *import_module("referee.api").__all__})
