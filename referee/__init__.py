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


# The API's names (referee/api.py's __all__; tests/test_architecture.py checks they agree), known
# without importing it: `from referee import resources` asks __getattr__ for a submodule's name
# first, and must not load the API for that.
__all__ = ["__version__"]
__all__ += """Comparison Difference EventVerdict Explanation Fired Game InputError LegalEvents
Outcome OutcomeDifference Position Problem Proof RecordError RecordInput Rules SpecError Step Told
Value Verdict ViewJudgement Violation check check_view compare convert explain load_game play prove
show""".split()  # noqa: SIM905 - a few lines, not api.py's list again


def __getattr__(name: str) -> Any:
    """A name of the API, loaded on first use and kept."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module("referee.api"), name)
    globals()[name] = value
    return value
