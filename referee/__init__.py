"""A game-agnostic rules referee: a rules language, its checker and interpreter.

The game itself (clauses, numbers, components) is data: the bundled game's spec
lives in referee/games/, read through importlib.resources; nothing in the code of
this package knows which game it is refereeing.

From Python (docs/api.md)::

    import referee

    verdict = referee.check("game.yaml")
    for v in verdict.violations:
        print(v.cites, v.message)

What this module exports is the API; every other module of the package is internal.
"""

__version__ = "0.1.0"

from referee import api as _api  # noqa: E402 - the version first: the API reads it
from referee.api import *  # noqa: E402, F403 - the API is what this package exports

__all__ = ["__version__"]
__all__ += _api.__all__
