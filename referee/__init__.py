"""A game-agnostic rules referee: a rules language, its checker and interpreter.

The game itself (clauses, numbers, components) is data: the bundled game's spec
lives in referee/games/, read through importlib.resources; nothing in the code of
this package knows which game it is refereeing.
"""

__version__ = "0.1.0"
