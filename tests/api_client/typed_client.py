"""A small program using the referee's Python API, and nothing else of it: judge records,
say each violation with its numbers, what the rules told of each event, and explain the
clauses broken. tests/test_api_typing.py runs `mypy --strict` on it, and runs it.

    python tests/api_client/typed_client.py RECORD...
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import referee


def describe(verdict: referee.Verdict) -> list[str]:
    lines = [f"{verdict.file}: {'legal' if verdict.legal else 'illegal'}"]
    lines.append(f"  printing {verdict.printing}, {len(verdict.overlays)} overlays in force")
    for v in verdict.violations:
        lines.append(f"  event {v.event} ({v.action}, line {v.line}) breaks {v.cites}: {v.message}")
        lines += [f"    {n}" for n in v.numbers[:3]]
    told: dict[str, int] = {}
    for outcome in verdict.outcomes:
        for t in outcome.told:
            told[t.clause] = told.get(t.clause, 0) + 1
    busiest = sorted(told.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    lines.append("  told most: " + ", ".join(f"{c} x{n}" for c, n in busiest))
    return lines


def explain_broken(verdict: referee.Verdict, game: referee.Rules) -> list[str]:
    out: list[str] = []
    for clause in sorted({v.clause for v in verdict.violations if v.kind == "rule"}):
        x: referee.Explanation = referee.explain(clause, game=game)
        out.append(f"  {clause} {x.title}: {game.clauses[clause]}")
    return out


def replay(path: Path, rules: referee.Rules) -> list[str]:
    """The record pushed one event at a time onto a Game from its start: the first refusal,
    and what the side to act may do at the end."""
    lines: list[str] = []
    start: dict[str, object] = {"game": rules.name, "events": []}
    with referee.Game(path, game=rules) as whole:
        events = whole.events
    with referee.Game(start, game=rules) as game:
        for event in events:
            verdict: referee.EventVerdict = game.push(event)
            if not verdict.legal:
                lines.append(f"  refused: {verdict.cites}")
                break
        step: referee.Step | None = game.step
        found: referee.LegalEvents = game.legal_events(limit=50)
        where = f"{step.procedure}/{step.step}" if step is not None else "over"
        lines.append(f"  pushed {len(game.events)} event(s); at {where}; {len(found)} legal next")
        turn: int | None = game.turn
        lines.append(f"  turn {turn}; over: {game.is_over}")
    return lines


def main(argv: Sequence[str]) -> int:
    game = referee.load_game()
    worst = 0
    for arg in argv:
        try:
            verdict = referee.check(Path(arg), game=game, keep_going=True)
        except referee.RecordError as err:
            first: referee.Problem = err.problems[0]
            print(f"{first.file}:{first.line}: cannot judge: {first.message}")
            worst = 2
            continue
        print("\n".join(describe(verdict) + explain_broken(verdict, game)))
        if verdict.legal:
            print("\n".join(replay(Path(arg), game)))
        if not verdict.legal:
            pos: referee.Position = referee.show(Path(arg), game=game)
            where = pos.illegal["cites"] if pos.illegal is not None else ""
            print(f"  stands after {pos.after} of {pos.events} events, before {where}")
            worst = max(worst, 1)
    return worst


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
