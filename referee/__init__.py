"""A game-agnostic rules referee: a rules language, its checker and interpreter.

The game itself (clauses, numbers, components) lives in spec/; nothing in this
package knows which game it is refereeing.
"""

__version__ = "0.1.0"
