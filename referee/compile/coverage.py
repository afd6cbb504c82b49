"""How often the rules were reached: each requirement evaluated (and whether it held), each
action judged (and whether it was legal), each step entered.

The interpreter and the procedure machine count into a ``Coverage`` only when one is given
them (``Interpreter.coverage``); otherwise they count nothing, at the cost of one test of
``None`` a requirement. Nothing here knows the game: the names are the spec's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Coverage:
    # "7.3.1/no-pickup" -> times it held, and times it refused
    passed: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    # a requirement an overlay in force dropped, met where it would have been checked
    dropped: Counter[str] = field(default_factory=Counter)
    # an action judged: legal, or refused (by a requirement or out of turn)
    legal: Counter[str] = field(default_factory=Counter)
    refused_actions: Counter[str] = field(default_factory=Counter)
    # "procedure.step" -> times entered
    entered: Counter[str] = field(default_factory=Counter)
    # how new what was counted is: 1 / (1 + times before) for each count (an exploring
    # player prefers the proposal that adds most)
    novelty: float = 0.0

    def requirement(self, label: str, held: bool) -> None:
        self.novelty += 1 / (1 + self.reached(label))
        (self.passed if held else self.refused)[label] += 1

    def step(self, name: str) -> None:
        self.novelty += 1 / (1 + self.entered[name])
        self.entered[name] += 1

    def reached(self, label: str) -> int:
        return self.passed[label] + self.refused[label]

    def action(self, name: str, legal: bool) -> None:
        if legal:
            self.novelty += 1 / (1 + self.legal[name])
        (self.legal if legal else self.refused_actions)[name] += 1

    def tried(self, name: str) -> int:
        return self.legal[name] + self.refused_actions[name]

    def add(self, other: Coverage) -> None:
        """Count another run's counts in with these."""
        for mine, theirs in zip(self._counters(), other._counters(), strict=True):
            mine.update(theirs)

    def _counters(self) -> tuple[Counter[str], ...]:
        return (
            self.passed,
            self.refused,
            self.dropped,
            self.legal,
            self.refused_actions,
            self.entered,
        )
