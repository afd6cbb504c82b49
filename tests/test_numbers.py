"""Every numeric rule against the rulebook's own numbers and examples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from referee.compile.execute import Interpreter
from referee.compile.spec import Spec
from referee.errors import RefereeError
from referee.parse import ast
from referee.resolve.overlays import apply

Lookup = Callable[[str], dict[str, Any]]

# 7.3.6, the movement chart: size penalty by number of blocks.
CHART = [(1, 4, 0), (5, 8, 1), (9, 12, 2), (13, 16, 3), (17, 40, 4)]


@pytest.mark.parametrize("lo,hi,penalty", CHART)
def test_movement_chart_size_rows(rules: Interpreter, lo: int, hi: int, penalty: int) -> None:
    for n in range(lo, hi + 1):
        assert rules.call("size_penalty", n) == penalty


def test_movement_chart_bonuses(rules: Interpreter) -> None:
    assert rules.call("base_movement") == 1
    assert rules.call("allowance", False, False, False, 1) == 1
    assert rules.call("allowance", True, False, False, 4) == 2
    assert rules.call("allowance", False, True, False, 4) == 2
    assert rules.call("allowance", False, False, True, 4) == 2
    assert rules.call("allowance", True, True, True, 4) == 4  # the most any stack can move


def test_seventeen_blocks_cannot_move(rules: Interpreter) -> None:
    assert rules.call("can_ever_move", 16) is True
    assert rules.call("can_ever_move", 17) is False
    assert rules.call("allowance", True, True, True, 17) == 0


def test_movement_example(rules: Interpreter) -> None:
    # A: five blocks, friendly castle (leadership), all highway: two locations;
    # one block fewer and it could move three.
    assert rules.call("allowance", True, True, False, 5) == 2
    assert rules.call("allowance", True, True, False, 4) == 3
    assert rules.call("allowance", False, False, False, 1) == 1  # C: a lone leaderless block
    assert rules.call("allowance", False, True, False, 3) == 2  # D and E: leadership only


def test_within_allowance_message_shows_the_numbers(spec: Spec, rules: Interpreter) -> None:
    req = spec.sym.labels["7.3.3/within-allowance"]
    assert isinstance(req, ast.Require)
    env = dict(distance=3, all_highway=True, leadership=True, force_march=False, largest_group=5)
    ok, message = rules.holds(req, env)
    assert not ok
    assert message == (
        "moved 3 locations; allowance 2 = base 1 + highway 1 + leadership 1"
        " + force march 0 - size 1"
    )


def test_leadership_counts_once(rules: Interpreter) -> None:
    assert rules.call("leadership", True, True, True) is True
    assert rules.call("bonus", rules.call("leadership", True, True, True)) == 1


def test_overrun_ratio(rules: Interpreter) -> None:
    assert rules.call("overrun_ratio") == 4
    assert rules.call("overruns", 4, 1) and rules.call("overruns", 8, 2)
    assert not rules.call("overruns", 3, 1) and not rules.call("overruns", 7, 2)
    assert not rules.call("overruns", 9, 0)  # nobody to overrun
    # 7.4.2's example: two stacks of two blocks against one block.
    assert not rules.call("overruns", 2, 1) and rules.call("overruns", 2 + 2, 1)


def test_losses_example(rules: Interpreter) -> None:
    # 8.7.1: the winner received 5 Impact and loses none; the loser received 9 and loses two.
    assert rules.call("battle_losses", 5, False) == 0
    assert rules.call("battle_losses", 9, True) == 2
    assert rules.call("impact_per_loss") == 7 and rules.call("loser_extra_loss") == 1
    assert rules.call("battle_losses", 14, False) == 2
    assert rules.call("siege_losses", 13) == 1 and rules.call("siege_losses", 6) == 0


def test_impact_bonus_example(rules: Interpreter, face: Lookup) -> None:
    # 8.3.3: a 2-mon Tokugawa block after two other Tokugawa blocks scores four.
    earlier = (face("tokugawa-3"), face("tokugawa-gun"))
    assert rules.call("deployment_impact", face("tokugawa-2"), earlier, False) == 4


def test_combat_example_13_13(rules: Interpreter, face: Lookup, card: Lookup) -> None:
    """The later printing's combat example, deployment by deployment."""
    ishida: list[dict[str, Any]] = []
    tokugawa: list[dict[str, Any]] = []
    score = {"ishida": 0, "tokugawa": 0}

    def deploy(side: str, c: str | None, fid: str, expected: int) -> None:
        own = ishida if side == "ishida" else tokugawa
        f = face(fid)
        if c is None:
            assert rules.call("cardless_allowed", f, 0)
            impact = rules.call("cardless_impact", f, tuple(own))
        else:
            assert rules.call("deploys", card(c), f)
            special = rules.call("special_attack", card(c), f)
            impact = rules.call("deployment_impact", f, tuple(own), special)
        assert impact == expected, (side, fid)
        own.append(f)
        score[side] += impact

    def initiative() -> str:
        attacker_moves = rules.call("attacker_has_initiative", score["ishida"], score["tokugawa"])
        return "ishida" if attacker_moves else "tokugawa"

    assert initiative() == "ishida"  # the attacker deploys first
    deploy("ishida", None, "mori-leader-triangle", 1)  # no card needed (8.2.4)
    assert initiative() == "tokugawa"
    deploy("tokugawa", "maeda-swords", "maeda-cavalry", 3)  # 1 mon + 2 cavalry
    assert initiative() == "ishida"
    assert rules.call("blocks_per_card", card("ukita-double"), (face("ukita-2"),) * 2) == 2
    deploy("ishida", "ukita-double", "ukita-2", 2)
    deploy("ishida", "ukita-double", "ukita-2-square", 3)  # +1 for the first Ukita
    assert score == {"ishida": 6, "tokugawa": 3}
    deploy("tokugawa", "tokugawa", "tokugawa-3", 3)
    assert initiative() == "ishida"  # 6-6: the defender leads
    deploy("ishida", "uesugi", "uesugi-gun", 1)  # no swords, no gun
    deploy("tokugawa", "tokugawa", "tokugawa-gun", 2)  # 1 mon, +1 earlier Tokugawa
    assert score == {"ishida": 7, "tokugawa": 8}
    deploy("ishida", "mori-swords", "mori-gun", 6)  # 1 + 2 gun + 2 earlier gun + 1 earlier Mori
    deploy("tokugawa", "tokugawa", "tokugawa-3-square", 5)  # 3 + 2 earlier Tokugawa
    assert score == {"ishida": 13, "tokugawa": 13}
    assert not rules.call("attacker_wins", 13, 13)  # Tokugawa, the defender, wins
    assert rules.call("battle_losses", score["tokugawa"], True) == 2  # Ishida loses two
    assert rules.call("battle_losses", score["ishida"], False) == 1  # Tokugawa loses one


def test_double_card_limits(rules: Interpreter, face: Lookup, card: Lookup) -> None:
    ishida, ukita = face("ishida-leader-square"), face("ukita-2")
    # the Ishida block takes a double alone, whichever of the two a record lists first
    assert rules.call("blocks_per_card", card("ukita-double"), (ishida, ukita)) == 1
    assert rules.call("blocks_per_card", card("ukita-double"), (ukita, ishida)) == 1
    assert rules.call("blocks_per_card", card("ukita"), (ukita,)) == 1
    assert not rules.call("special_attack", card("mori-double"), face("mori-gun"))


def test_any_card_blocks(rules: Interpreter, face: Lookup, card: Lookup) -> None:
    ii, ishida = face("ii-4-star"), face("ishida-leader-square")
    assert rules.call("deploys", card("date"), ii) and rules.call(
        "deploys", card("maeda-swords"), ii
    )
    assert rules.call("deploys", card("mori-double"), ishida)
    assert not rules.call("deploys", card("tokugawa-loyalty"), ii)
    assert not rules.call("deploys", card("ishida-loyalty"), ishida)
    assert not rules.call("deploys", card("date"), face("maeda-2"))


def test_special_attacks_stack_per_type(rules: Interpreter, face: Lookup) -> None:
    guns = (face("mori-gun"), face("ukita-gun"))
    assert rules.call("special_attack_bonus", face("uesugi-gun"), guns) == 6
    assert rules.call("special_attack_bonus", face("uesugi-cavalry"), guns) == 2
    assert rules.call("special_attack_bonus", face("uesugi-3"), guns) == 0


def test_weekly_discard_and_draws(rules: Interpreter) -> None:
    assert rules.call("weekly_discard", 7) == 3  # 6.2's example
    assert [rules.call("weekly_discard", n) for n in range(6)] == [0, 0, 1, 1, 2, 2]
    assert rules.call("weekly_card_draw", 5, 4) == 6
    # a tie: the loose reading of the base text gives both the 6th card; decision
    # D-castle-tie gives it to nobody (see test_decisions.py)
    assert rules.call("weekly_card_draw", 4, 4) == 6
    assert rules.call("weekly_card_draw", 3, 4) == 5


def test_recruitment_track_and_resource_bonus(rules: Interpreter) -> None:
    assert [rules.call("recruitment_track", w) for w in range(2, 8)] == [2, 2, 2, 1, 1, 1]
    assert not rules.call("reinforcement_held", 1) and rules.call("reinforcement_held", 2)
    assert rules.call("weekly_block_draw", 3, 5, 4) == 3
    assert rules.call("weekly_block_draw", 3, 4, 4) == 3  # a tie: both draw the extra
    assert rules.call("weekly_block_draw", 6, 3, 4) == 1
    with pytest.raises(RefereeError, match="no row for 1"):
        rules.call("recruitment_track", 1)  # week 1 has no reinforcement step


def test_setup_numbers(rules: Interpreter) -> None:
    assert rules.call("starting_hand") == 5
    assert rules.call("first_wave") == 4


def test_movement_costs(rules: Interpreter) -> None:
    costs = {
        m: rules.call("movement_cost", m) for m in ("no_movement", "minimal", "limited", "total")
    }
    assert costs == {"no_movement": 0, "minimal": 0, "limited": 1, "total": 2}
    assert [rules.call("stack_moves", m) for m in ("no_movement", "minimal", "limited")] == [
        0,
        1,
        3,
    ]
    assert rules.call("unlimited_moves", "total")


def test_castle_capacity_and_replenishment(rules: Interpreter) -> None:
    assert rules.call("castle_capacity") == 2
    assert rules.call("fits_in_castle", 2) and not rules.call("fits_in_castle", 3)
    assert rules.call("castle_retreat_limit") == 2
    assert rules.call("battle_redraw", 3, 3) == 4  # 3 cards back, +1 for two blocks lost
    assert rules.call("battle_redraw", 2, 1) == 2
    # read as two rules (8.9.4 F, 8.10) the siege defender draws twice; D-siege-draws once
    assert rules.call("siege_defender_redraw", 2) == 4
    decided = Interpreter(apply(rules.sym, [rules.sym.overlays["D-siege-draws"]]))
    assert decided.call("siege_defender_redraw", 2) == 2
    assert rules.call("overrun_redraw", 4) == 0  # the base text; S-overrun-draw changes it


def test_victory_points_and_tie_break(rules: Interpreter) -> None:
    assert rules.call("victory_points", 4, 5) == 13
    assert rules.call("points_winner", 14, 13) == "tokugawa"
    assert rules.call("points_winner", 13, 13) == "ishida"  # ties go to Ishida
    assert rules.call("instant_winner", True, True) == "ishida"
    assert rules.call("instant_winner", True, False) == "tokugawa"
    assert rules.call("tokugawa_wins_at_once", False, True)


def test_castle_holder(rules: Interpreter) -> None:
    assert rules.call("castle_holder", "ishida", (), "tokugawa") == "ishida"  # natural
    assert rules.call("castle_holder", "ishida", ("tokugawa",), "ishida") == "tokugawa"
    assert rules.call("castle_holder", "ishida", ("tokugawa", "ishida"), "tokugawa") == "tokugawa"


def test_interpreter_and_prover_agree_on_a_property(spec: Spec, rules: Interpreter) -> None:
    """The z3 proofs are in test_prove.py; here the interpreter runs one property's whole domain."""
    prop = spec.sym.labels["7.3.3/at-most-four"]
    assert isinstance(prop, ast.Property)
    assert rules.eval(prop.body, {}) is True


def test_trace_names_the_clause_of_each_number(spec: Spec) -> None:
    trace: list[Any] = []
    rules = spec.interpreter(trace)
    assert rules.call("allowance", True, True, False, 5) == 2
    lines = [str(t) for t in trace]
    assert "size_penalty(blocks: 5) = 1  (7.3.5)" in lines
    assert lines[-1] == (
        "allowance(all_highway: true, leadership: true, force_march: false, largest_group: 5)"
        " = 2  (7.3.3)"
    )
