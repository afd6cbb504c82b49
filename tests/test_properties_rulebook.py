"""The properties state the rulebook's claims, apart from the definitions that implement
them: each change below breaks a rule in a copy of the spec (the referee then plays
differently), and the property that states the rule fails, with a counterexample that
`referee check` replays. Issue 34's missed changes first (a move's roads counted only up to
the second, losses against the wrong Impact, a loser computed backwards, leadership never
counted, a castle that holds three, a draw that loses the sixth card, a muster that leaves a
block in the box, ...), then the rules no property claimed before (7.3.2's castle, 8.2.2,
8.9.6, 9.1, 9.3 and the rest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from tests.referee_helpers import output
from tests.test_prove import edit

MOVE = "clauses/07-movement.rules"
COMBAT = "clauses/08-combat.rules"
PIECES = "clauses/03-pieces.rules"
WEEKLY = "clauses/06-weekly.rules"
VICTORY = "clauses/02-victory.rules"
SPECIAL = "clauses/09-special.rules"
SETUP = "clauses/05-setup.rules"

# (id, file, the text, its broken form, the property that must fail, how the counterexample
# replays under the broken spec: "legal" (a property after an action: the event is allowed,
# and the property reads the position before it), "refused" (a property that an action is
# allowed: the referee refuses the event), "missed" (a step invariant: the expectation fails),
# or None where the prover's record does not yet give the position z3 found (it leaves out
# the blocks or the holdings the event relies on, so that the referee refuses the event on
# them): the property's failure alone is checked there.
BREAKS = [
    (
        "first-two-roads",
        MOVE,
        "          for r in roads do\n",
        "          for r in take(roads, 2) do\n",
        "7.3.1/segment-used-once",
        "missed",
    ),
    (
        "leadership-never-counted",
        MOVE,
        "let leadership = leadership_used(from, active, declared,",
        "let leadership = false and leadership_used(from, active, declared,",
        "7.3.1/a-bonus-is-counted",
        "refused",
    ),
    (
        "highways-never-counted",
        MOVE,
        "let all_highway = on_highway(g.path)",
        "let all_highway = false",
        "7.3.1/a-bonus-is-counted",
        "refused",
    ),
    (
        "distance-halved",
        MOVE,
        "let distance = size(g.path) - 1",
        "let distance = (size(g.path) - 1) // 2",
        "7.3.1/moves-keep-the-rules",
        "legal",
    ),
    (
        "mori-move-on-arrival",
        SPECIAL,
        "    if s == mori_owner() then mori_arrived(l) else []",
        "    []",
        "7.3.1/moves-keep-the-rules",
        "legal",
    ),
    (
        "walk-in-always-spared",
        MOVE,
        "and blocks(l, opponent(s)) <= found_there(l, s) and not overrun_on_arrival()",
        "and blocks(l, opponent(s)) <= found_there(l, s)",
        "7.4.2/no-overrun-left",
        "missed",
    ),
    (
        "loser-backwards",
        COMBAT,
        "if attacker_wins(impact(attacker), impact(defender)) then defender else attacker",
        "if attacker_wins(impact(attacker), impact(defender)) then attacker else defender",
        "8.8.1/the-loser-retreats",
        "legal",
    ),
    (
        "castle-holds-three",
        COMBAT,
        "const castle_capacity: int = 2",
        "const castle_capacity: int = 3",
        "8.8.4/two-stay-inside",
        None,
    ),
    (
        "draw-loses-the-sixth-card",
        PIECES,
        "    set hand(s) = hand(s) + cards\n",
        "    set hand(s) = hand(s) + take(cards, 5)\n",
        "3.3/a-replenishment-draws",
        "legal",
    ),
    (
        "muster-leaves-the-third-in-the-box",
        MOVE,
        "set recruits(active) = without(recruits(active), blocks)",
        "set recruits(active) = without(recruits(active), take(blocks, 2))",
        "7.2/a-muster-counts",
        "legal",
    ),
    (
        "shown-muster-anywhere",
        MOVE,
        "              check 7.2/one-daimyo-shown(b, to)\n",
        "              check 7.2/some-blocks(1)\n",
        "7.2/muster-as-told",
        "legal",
    ),
    (
        "resource-majority-reversed",
        WEEKLY,
        "check 6.2/block-draw(week, resources_held(by), resources_held(opponent(by)), size(blocks))",
        "check 6.2/block-draw(week, resources_held(opponent(by)), resources_held(by), size(blocks))",
        "6.2/reinforcement-blocks",
        None,
    ),
    (
        "lower-bid-wins",
        WEEKLY,
        "define outbids(own_bid: int, their_bid: int): bool = own_bid > their_bid",
        "define outbids(own_bid: int, their_bid: int): bool = own_bid < their_bid",
        "6.3/higher-bid-chooses",
        None,
    ),
    (
        "castle-worth-three",
        VICTORY,
        "const castle_points: int = 2",
        "const castle_points: int = 3",
        "2.2/points-as-counted",
        None,
    ),
    (
        "any-card-deploys",
        COMBAT,
        "        check 8.2.2/matching-mon(card, b)\n",
        "",
        "8.2.2/deploys-its-mon",
        None,
    ),
    (
        "double-deploys-three",
        COMBAT,
        "const double_card_blocks: int = 2",
        "const double_card_blocks: int = 3",
        "8.2.2/deploys-its-mon",
        None,
    ),
    (
        "same-daimyo-by-attack",
        COMBAT,
        "    count(b in earlier where b.clan == f.clan)",
        "    count(b in earlier where b.attack == f.attack)",
        "8.3.3/impact-as-scored",
        None,
    ),
    (
        "initiative-to-the-leader",
        COMBAT,
        "    else if attacker_has_initiative(impact(attacker), impact(defender)) then attacker\n"
        "    else defender",
        "    else if attacker_has_initiative(impact(attacker), impact(defender)) then defender\n"
        "    else attacker",
        "8.5/defender-waits-while-leading",
        None,
    ),
    (
        "besieged-walk-out",
        MOVE,
        "          check 8.9.6/besieged-stay(besieged(from, active))\n",
        "",
        "8.9.6/besieged-never-leave",
        "legal",
    ),
    (
        "hideyori-taken-first",
        COMBAT,
        "            check 9.1/hideyori-last(at, blocks(at, defender) - size(blocks))\n",
        "",
        "9.1/hideyori-falls-last",
        None,
    ),
    (
        "total-movement-costs-three",
        MOVE,
        "    movement.total -> 2,",
        "    movement.total -> 3,",
        "7.1/a-degree-is-bought",
        "refused",
    ),
    (
        "setup-symbol-any-colour",
        SETUP,
        "(b: face, at: location): fits_symbol(b, data locations[at].setup)",
        "(b: face, at: location): data locations[at].setup != nothing"
        " and b.setup == data locations[at].setup.symbol",
        "5.2.1/placed-on-its-symbol",
        "legal",
    ),
]


@pytest.mark.parametrize(
    ("file", "old", "new", "prop", "replay"),
    [b[1:] for b in BREAKS],
    ids=[b[0] for b in BREAKS],
)
def test_a_broken_rule_fails_its_property_and_the_counterexample_replays(
    game_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    file: str,
    old: str,
    new: str,
    prop: str,
    replay: str | None,
) -> None:
    edit(game_copy / file, old, new)
    folder = tmp_path / "cx"
    # a generous time limit: a loaded machine must not turn a failure into "unknown"
    args = ["prove", "--spec", str(game_copy), "--property", prop, "--format", "json"]
    args += ["--timeout", "300"]
    assert main([*args, "--counterexample-dir", str(folder)]) == 1
    props = output(capsys.readouterr().out)["runs"][0]["properties"]
    assert [(f"{p['clause']}/{p['label']}", p["status"]) for p in props] == [(prop, "failed")]
    if replay is None:
        return
    (record,) = folder.glob("*.yaml")
    code = main(["check", "--spec", str(game_copy), str(record)])
    said = capsys.readouterr().out
    # the counterexample's position is at rest: the referee settles nothing before its event
    # (a position with a standing rule due is none a game reaches between events)
    main(["check", "--spec", str(game_copy), "--format", "json", str(record)])
    (verdict,) = output(capsys.readouterr().out)["records"]
    assert [h for h in verdict["happened"] if h["index"] == 0] == [], said
    if replay == "legal":  # the broken rule allows the event the property rules out
        assert code == 0, said
    else:  # refused by the broken rule, or the invariant's expectation missed
        assert code == 1, said
        assert ("is illegal" if replay == "refused" else "misses an expectation") in said
        # the real rules allow the event, and the invariant holds after it
        assert main(["check", str(record)]) == 0, capsys.readouterr().out
