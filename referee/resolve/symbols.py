"""The symbols of a checked spec: everything it declares, by name, with where each name is used."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from referee.parse import ast


@dataclass
class Symbols:
    """Everything a spec declares, by name, with where each name is used."""

    clauses: dict[str, ast.Clause] = field(default_factory=dict)
    printings: dict[str, ast.Printing] = field(default_factory=dict)
    types: dict[str, ast.EnumDecl | ast.RecordDecl] = field(default_factory=dict)
    values: dict[str, ast.Decl] = field(default_factory=dict)  # const, define, table, extern fn
    actions: dict[str, ast.Decl] = field(default_factory=dict)  # extern action, procedure
    labels: dict[str, ast.Decl] = field(default_factory=dict)  # "7.3.1/no-pickup"
    overlays: dict[str, ast.Overlay] = field(default_factory=dict)
    data_values: dict[str, set[str]] = field(default_factory=dict)
    # labels an overlay in force has dropped, with the overlay's id
    dropped: dict[str, str] = field(default_factory=dict)
    # exceptions overlays in force add to a labelled requirement: (condition, overlay id)
    exceptions: dict[str, list[tuple[ast.Expr, str]]] = field(default_factory=dict)
    # the base declarations an overlay in force replaced: by name (values) and by label
    # (requirements); a verdict relies on the overlay only where the two readings differ
    replaced: dict[str, ast.Decl] = field(default_factory=dict)
    # clause number -> the clauses whose rules use something it declares
    used_by: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    # the standing rules (`whenever`), in the order the spec declares them
    standing: list[ast.Whenever] = field(default_factory=list)
    players: str = ""  # the type of `by`, the actor of every event (the game's `players`)
    turns: str = ""  # the state that counts the game's turns (the game's `turns`)
    start: str = ""  # the procedure a game starts with (the game's `start`)
    hidden: ast.Hidden | None = None  # what each seat sees (the `hidden` declaration), if said

    def procedures(self) -> dict[str, ast.Procedure]:
        return {k: v for k, v in self.actions.items() if isinstance(v, ast.Procedure)}

    def event_actions(self) -> set[str]:
        """Every action some step allows: the names a record's events may use."""
        return {a.name for p in self.procedures().values() for s in p.steps for a in s.allows}
