"""`referee prove`: the spec's properties, proved by z3 from the definitions the referee runs."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from referee.cli import build_parser, main
from referee.compile.spec import Spec, load_spec
from referee.resolve.reads import floors
from referee.verify.common import DEFAULT_BUDGET, RLIMIT, Budget
from referee.verify.prover import Outcome, prove
from tests.referee_helpers import output


def edit(path: Path, old: str, new: str = "") -> None:
    """A copy of the spec changed in one place: the text replaced occurs there once."""
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def movement_rules(game: Path) -> Path:
    return game / "clauses" / "07-movement.rules"


SEGMENT_ONCE = "            check 7.3.1/segment-once\n"


# The properties the project promises (issue "Proving the rules"), by clause and label: each
# says something a definition does not say by itself (a bound, a tie-break, a second reading
# of the same rule, a closed form, the rulebook's examples).
PROMISED = {
    "2.1/winner-claimed",
    "2.2/tie-to-ishida",
    "2.2/more-points-win",
    "2.2/two-and-one",
    "3.1/two-sides",
    "6.2/keeps-half",
    "6.2/castle-majority-card",
    "6.2/resource-majority-block",
    "7.3.3/at-most-four",
    "7.3.3/bigger-is-slower",
    "7.3.3/one-a-bonus",
    "7.3.3/four-with-everything",
    "7.3.5/penalty-never-shrinks",
    "7.3.5/seventeen-never-move",
    "7.3.6/chart-agrees",
    "7.4.1/four-to-one",
    "7.4.1/more-never-hurts",
    "8.2.1/tie-to-defender",
    "8.3.1/impact-bounds",
    "8.3.1/one-daimyo-adds-up",
    "8.3.1/combat-example",
    "8.4.1/special-attacks-add-up",
    "8.5/behind-holds-initiative",
    "8.7.1/more-impact-more-losses",
    "8.7.1/losses-follow-the-table",
    "8.7.1/never-more-than-present",
    "8.9.4/siege-like-battle",
    "8.10/redraw-covers-play",
    "8.10/overrun-no-richer",
}


@pytest.fixture(scope="module")
def base(spec: Spec) -> dict[str, Outcome]:
    """Every property of the spec as it is, proved once for the tests that read the outcomes
    (each the same, run after run: z3's budget is its own work, not time)."""
    outcomes = prove(spec.sym, spec.components.names(), collections=spec.components.collections)
    return {o.cites: o for o in outcomes}


def touching(base: dict[str, Outcome], *decls: str) -> list[str]:
    """The properties a change of the declarations named can touch: those whose proof, on the
    spec as it is, read one of them (a proof reads what z3's unsat core needed; a change to
    anything else leaves that proof as it was). A mutated copy is proved on these alone."""
    found = sorted(c for c, o in base.items() if set(decls) & {r.split(" [")[0] for r in o.reads})
    assert found, decls
    return [f"--property={c}" for c in found]


def test_every_property_is_proved(base: dict[str, Outcome]) -> None:
    assert set(base) >= PROMISED
    assert [c for c, o in base.items() if o.status != "proved"] == []


@pytest.mark.usefixtures("shared_proofs")  # the bundled spec's proof, shared (conftest.py)
def test_prove_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--property", "7.3.3"]) == 0
    out = capsys.readouterr().out
    assert "7.3.3/at-most-four" in out and "failed" not in out
    assert main(["prove", "--format", "json"]) == 0  # every property, through the command
    data = output(capsys.readouterr().out)
    assert {p["status"] for p in data["runs"][0]["properties"]} == {"proved"}


def test_a_proof_is_kept_under_another_overlay_set_where_what_it_needed_is_the_same(
    spec: Spec, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under --all-overlays a step invariant proved under one set is kept under another where
    what z3 needed is the same: a standing rule's condition its proof assumed but did not
    need (D-instant-timing amends one) does not make it proved again, with the same line as
    proved afresh; a definition the proof needed (D-cycle-once amends one) does."""
    from referee.errors import Span
    from referee.resolve.overlays import Choice, apply, in_force
    from referee.verify import prover

    done: list[str] = []
    real = prover.prove_invariant

    def counted(*args: object, **kw: object) -> object:
        done.append(f"{args[3].clause}/{args[3].name}")  # type: ignore[attr-defined]
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(prover, "prove_invariant", counted)
    names = {"3.2/own-colour-placed", "7.1/cycle-at-most-once"}
    cache: dict[str, object] = {}

    def run(off: str, kept: dict[str, object] | None) -> dict[str, Outcome]:
        _, overlays = in_force(
            spec.sym, Choice("", [], [off] if off else []), lambda _: Span("", 0, 0)
        )
        outcomes = prove(
            apply(spec.sym, overlays),
            spec.components.names(),
            collections=spec.components.collections,
            cache=kept,  # type: ignore[arg-type]
            only=names,
            least_reads=False,
        )
        return {o.cites: o for o in outcomes}

    assert {o.status for o in run("", cache).values()} == {"proved"}
    assert sorted(done) == sorted(names)
    done.clear()
    kept = run("D-instant-timing", cache)["3.2/own-colour-placed"]
    assert done == [] and kept.status == "proved"
    assert kept.line() == run("D-instant-timing", None)["3.2/own-colour-placed"].line()
    done.clear()
    assert run("D-cycle-once", cache)["7.1/cycle-at-most-once"].status == "proved"
    assert done == ["7.1/cycle-at-most-once"]


def test_every_printing_and_overlay_keeps_the_properties(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["prove", "--all-overlays"]) == 0
    out = capsys.readouterr().out
    assert "printing gmt-2011" in out and "without S-overrun-draw" in out
    assert "without E-pickup" not in out  # a printing's own overlay, off under the base one
    assert "failed" not in out


def test_every_proved_line_says_its_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    """A proof is never shown unconditional: a property over definitions with the ranges of
    its variables, a step invariant with the most items each list held (and the default for
    a type its `within` does not name), in text and JSON; and the slowest proofs."""
    names = ["7.3.6/chart-agrees", "2.1/winner-claimed", "9.3/mori-is-paid"]
    assert main(["prove", *(f"--property={n}" for n in names)]) == 0
    out = capsys.readouterr().out
    lines = {n: next(ln for ln in out.splitlines() if n in ln) for n in names}
    assert lines["7.3.6/chart-agrees"].endswith("; for n in 1..1000)")
    assert lines["2.1/winner-claimed"].endswith("; no bound)")
    assert "; lists of at most " in lines["9.3/mori-is-paid"]
    assert "3 location (the default)" in lines["9.3/mori-is-paid"]
    assert out.splitlines()[-2].startswith("slowest: ") and "s proving, processor time)" in out
    assert main(["prove", "--format", "json", *(f"--property={n}" for n in names)]) == 0
    props = output(capsys.readouterr().out)["runs"][0]["properties"]
    bounds = {f"{p['clause']}/{p['label']}": p["bounds"] for p in props}
    assert bounds["7.3.6/chart-agrees"] == ["for n in 1..1000"]
    assert all(isinstance(p["seconds"], float) for p in props)


def test_a_mutated_size_penalty_is_caught(
    game_copy: Path, base: dict[str, Outcome], capsys: pytest.CaptureFixture[str]
) -> None:
    rules = game_copy / "clauses" / "07-movement.rules"
    text = rules.read_text()
    good = "define size_penalty(blocks: int): int = min((blocks - 1) // size_step, size_steps)"
    assert good in text
    rules.write_text(
        text.replace(good, "define size_penalty(blocks: int): int = (blocks - 5) // size_step")
    )
    assert main(["prove", "--spec", str(game_copy), *touching(base, "size_penalty")]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "7.3.3/at-most-four" in ln)
    assert "failed: counterexample" in line
    assert "h = True, l = True, f = True" in line  # every bonus, and a penalty below zero
    assert "clauses 7.3.3, 7.3.5" in line
    assert "7.3.5/seventeen-never-move" in out


def test_untranslatable_properties_are_skipped_with_a_reason(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        'clause 1.1 "One"\n'
        "  state counter: int = 0\n"
        '  property [uses-state] "state is not a definition": forall n: int in 0..3: counter >= 0\n'
        '  property [plain] "arithmetic": forall n: int in 0..3: n + 1 > n\n'
        "end\n"
    )
    assert main(["prove", "--spec", str(game)]) == 1  # a property not proved is not a pass
    out = capsys.readouterr().out
    assert "1.1/uses-state" in out and "skipped: cannot translate 'counter' is game state" in out
    assert "1.1/plain" in out and "proved" in out
    assert out.rstrip().splitlines()[-1] == "1 of 2 not proved: 1.1/uses-state skipped"


def test_floor_division_and_remainder_are_python_s_for_every_sign(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`//` rounds down and `%` takes the divisor's sign, as the referee (Python) computes
    them: z3's own division is Euclidean (7 div -2 is -3, 7 mod -2 is 1), under which `sign`
    and `down` would fail and `euclid` be proved."""
    game = mini_game(
        'clause 1.1 "One"\n'
        '  property [floor] "a quotient and its remainder give the number back":'
        " forall a: int in -9..9, b: int in [-3, -2, 2, 3]: a // b * b + a % b == a\n"
        '  property [sign] "a remainder takes the divisor\'s sign":'
        " forall a: int in -9..9, b: int in -3..-1: a % b <= 0 and a % b > b\n"
        '  property [down] "a quotient rounds down":'
        " 7 // -2 == -4 and -7 // 2 == -4 and 7 % -2 == -1\n"
        '  property [euclid] "a remainder is never below zero": forall a: int in 1..9: a % -2 >= 0\n'
        "end\n"
    )
    assert main(["prove", "--spec", str(game)]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == "1 of 4 not proved: 1.1/euclid failed"
    assert "1.1/euclid                               failed: counterexample a = 1" in out
    assert all(f"1.1/{name}" in out for name in ("floor", "sign", "down"))


def test_a_spec_proved_again_gives_the_same_answer_and_a_changed_file_is_proved_afresh(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The same loaded spec proved twice in one process gives its answer again (kept: z3's
    budget is in its own units, so the answer cannot differ); a file changed since is loaded
    anew and proved afresh, and its new answer given."""
    text = 'clause 1.1 "One"\n  property [small] "small": forall a: int in 1..9: a < LIMIT\nend\n'
    game = mini_game(text.replace("LIMIT", "10"))
    assert main(["prove", "--spec", str(game)]) == 0
    first = capsys.readouterr().out
    assert main(["prove", "--spec", str(game)]) == 0
    assert capsys.readouterr().out == first and "all 1 proved" in first
    game = mini_game(text.replace("LIMIT", "9"))
    assert main(["prove", "--spec", str(game)]) == 1
    assert "1.1/small                                failed: counterexample a = 9" in (
        capsys.readouterr().out
    )


# One number or comparison changed in a copy of the spec, and the properties that must then
# fail with a counterexample: each key property catches a change to the rule it speaks of.
MUTATIONS = [
    (
        "clauses/02-victory.rules",
        "const castle_points: int = 2",
        "const castle_points: int = 3",
        {"2.2/two-and-one"},
    ),
    (
        "clauses/02-victory.rules",
        "if tokugawa_points > ishida_points",
        "if tokugawa_points >= ishida_points",
        {"2.2/tie-to-ishida"},
    ),
    (
        "clauses/02-victory.rules",
        "if tokugawa_points > ishida_points",
        "if tokugawa_points < ishida_points",
        {"2.2/more-points-win"},
    ),
    (
        "clauses/02-victory.rules",
        "if ishida_claim then side.ishida",
        "if tokugawa_claim then side.ishida",
        {"2.1/winner-claimed"},
    ),
    (
        "clauses/03-pieces.rules",
        "if s == side.tokugawa then side.ishida else side.tokugawa",
        "if s == side.tokugawa then side.ishida else side.ishida",
        {"3.1/two-sides"},
    ),
    (
        "clauses/06-weekly.rules",
        "define weekly_discard(hand: int): int = hand // 2",
        "define weekly_discard(hand: int): int = hand // 3",
        {"6.2/keeps-half"},
    ),
    (
        "clauses/06-weekly.rules",
        "const castle_majority_cards: int = 1",
        "const castle_majority_cards: int = 2",
        {"6.2/castle-majority-card"},
    ),
    (
        "clauses/06-weekly.rules",
        "(if own_resources >= their_resources then",
        "(if own_resources > their_resources then",
        {"6.2/resource-majority-block"},
    ),
    (
        "clauses/07-movement.rules",
        "const size_step: int = 4",
        "const size_step: int = 5",
        {"7.3.6/chart-agrees", "7.3.5/seventeen-never-move"},
    ),
    (
        "clauses/07-movement.rules",
        "min((blocks - 1) // size_step, size_steps)",
        "min((blocks - 1) % size_step, size_steps)",
        {"7.3.5/penalty-never-shrinks", "7.3.3/bigger-is-slower"},
    ),
    (
        "clauses/07-movement.rules",
        "5..8 -> -1,",
        "5..8 -> -2,",
        {"7.3.6/chart-agrees"},
    ),
    (
        "clauses/07-movement.rules",
        "const movement_bonus: int = 1",
        "const movement_bonus: int = 2",
        {
            "7.3.3/at-most-four",
            "7.3.3/one-a-bonus",
            "7.3.3/four-with-everything",
            "7.3.6/chart-agrees",
        },
    ),
    (
        "clauses/07-movement.rules",
        "const overrun_ratio: int = 4",
        "const overrun_ratio: int = 3",
        {"7.4.1/four-to-one"},
    ),
    (
        "clauses/07-movement.rules",
        "enemy_blocks > 0 and own_blocks >= overrun_ratio * enemy_blocks",
        "enemy_blocks >= 0 and own_blocks >= overrun_ratio * enemy_blocks",
        {"7.4.1/more-never-hurts"},
    ),
    (
        "clauses/08-combat.rules",
        "attacker_impact > defender_impact",
        "attacker_impact >= defender_impact",
        {"8.2.1/tie-to-defender", "8.5/behind-holds-initiative"},
    ),
    (
        "clauses/08-combat.rules",
        "const special_attack_base: int = 2",
        "const special_attack_base: int = -1",
        {"8.3.1/impact-bounds"},
    ),
    (
        "clauses/08-combat.rules",
        "const same_daimyo_step: int = 1",
        "const same_daimyo_step: int = 2",
        {"8.3.1/one-daimyo-adds-up", "8.3.1/combat-example"},
    ),
    (
        "clauses/08-combat.rules",
        "const special_attack_step: int = 2",
        "const special_attack_step: int = 3",
        {"8.4.1/special-attacks-add-up", "8.3.1/combat-example"},
    ),
    (
        "clauses/08-combat.rules",
        "const impact_per_loss: int = 7",
        "const impact_per_loss: int = 6",
        {"8.7.1/losses-follow-the-table"},
    ),
    (
        "clauses/08-combat.rules",
        "impact_received // impact_per_loss + (if lost_battle",
        "impact_received % 20 // impact_per_loss + (if lost_battle",
        {"8.7.1/more-impact-more-losses"},
    ),
    (
        "clauses/08-combat.rules",
        "min(battle_losses(impact_received, lost_battle), present)",
        "max(battle_losses(impact_received, lost_battle), present)",
        {"8.7.1/never-more-than-present"},
    ),
    (
        "clauses/08-combat.rules",
        "define siege_losses(impact: int): int = impact // impact_per_loss",
        "define siege_losses(impact: int): int = (impact + 1) // impact_per_loss",
        {"8.9.4/siege-like-battle"},
    ),
    (
        "clauses/08-combat.rules",
        "cards_played + blocks_lost // blocks_per_extra_card",
        "cards_played + blocks_lost // 3",
        {"8.10/redraw-covers-play"},
    ),
    (
        "overlays/decisions.rules",
        "siege_defender_redraw(blocks_lost: int): int = blocks_lost",
        "siege_defender_redraw(blocks_lost: int): int = blocks_lost - 1",
        {"8.10/overrun-no-richer"},
    ),
]


def test_every_property_is_caught_by_a_mutation() -> None:
    assert set().union(*(m[3] for m in MUTATIONS)) == PROMISED


@pytest.mark.parametrize(
    ("file", "good", "bad", "caught"), MUTATIONS, ids=[m[2] for m in MUTATIONS]
)
def test_a_mutated_rule_is_caught(
    game_copy: Path,
    capsys: pytest.CaptureFixture[str],
    file: str,
    good: str,
    bad: str,
    caught: set[str],
) -> None:
    edit(game_copy / file, good, bad)
    only = [f"--property={c}" for c in sorted(caught)]
    assert main(["prove", "--spec", str(game_copy), "--format", "json", *only]) == 1
    props = {
        f"{p['clause']}/{p['label']}": p
        for p in output(capsys.readouterr().out)["runs"][0]["properties"]
    }
    failed = {c for c, p in props.items() if p["status"] == "failed"}
    assert caught <= failed
    assert {c for c, p in props.items() if p["status"] not in ("proved", "failed")} == set()
    for c in caught:
        if c != "8.3.1/combat-example":  # the only property without variables
            assert props[c]["counterexample"], c


def test_a_counterexample_names_the_values_that_break_the_rule(
    game_copy: Path, base: dict[str, Outcome], capsys: pytest.CaptureFixture[str]
) -> None:
    rules = game_copy / "clauses" / "08-combat.rules"
    text = rules.read_text()
    rules.write_text(
        text.replace("attacker_impact > defender_impact", "attacker_impact >= defender_impact")
    )
    only = touching(base, "attacker_wins")
    assert main(["prove", "--spec", str(game_copy), "--format", "json", *only]) == 1
    props = output(capsys.readouterr().out)["runs"][0]["properties"]
    tie = next(p for p in props if p["label"] == "tie-to-defender")
    assert tie["counterexample"]["a"] == tie["counterexample"]["d"]  # a tie, won by the attacker
    assert tie["clauses"] == ["8.2.1"]


# a property z3 cannot answer within a small budget
CUBES = (
    '  property [cubes] "no cube is the sum of two":\n'
    "    forall x: int in 1..1000000000, y: int in 1..1000000000, z: int in 1..1000000000:\n"
    "      x * x * x + y * y * y != z * z * z\n"
)


def test_every_failure_skip_and_unknown_is_named_and_exits_1(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        'clause 1.1 "One"\n'
        "  define half(n: int): int = n // 2\n"
        '  property [holds] "half of an even number, twice, is the number":\n'
        "    forall n: int in 0..50: 2 * half(2 * n) == 2 * n\n"
        '  property [wrong] "half rounds up": forall n: int in 0..50: 2 * half(n) >= n\n'
        + CUBES
        + "end\n"
    )
    assert main(["prove", "--spec", str(game), "--timeout", "0.3"]) == 1
    out = capsys.readouterr().out
    assert "1.1/holds" in out
    assert "1.1/wrong                                failed: counterexample n = " in out
    assert "1.1/cubes                                unknown: z3 gave no answer (" in out
    assert f"limit {RLIMIT} rlimit units or 300 ms)" in out
    assert "hint: z3 had 0.3 s for each proof; a longer --timeout may let it answer" in out
    assert out.rstrip().splitlines()[-1] == (
        "2 of 3 not proved: 1.1/wrong failed; 1.1/cubes unknown"
    )


def test_the_default_budget_is_z3_s_work_not_time() -> None:
    """A proof's solvers carry a limit of work (rlimit, the same on a loaded machine) and no
    limit of time unless the user gives one (--timeout)."""
    assert DEFAULT_BUDGET.settings() == {"rlimit": RLIMIT}
    assert Budget(RLIMIT, 300).settings() == {"rlimit": RLIMIT, "timeout": 300}
    assert build_parser().parse_args(["prove"]).timeout is None
    assert build_parser().parse_args(["prove"]).rlimit == RLIMIT


def test_a_proof_out_of_work_is_unknown_and_says_its_rlimit(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game('clause 1.1 "One"\n' + CUBES + "end\n")
    assert main(["prove", "--spec", str(game), "--rlimit", "20_000"]) == 1
    out = capsys.readouterr().out
    assert "1.1/cubes                                unknown: z3 gave no answer (" in out
    assert "limit 20000 rlimit units)" in out
    hint = "hint: z3 had 20000 units of work for each solver call; a larger --rlimit may let"
    assert hint in out
    with pytest.raises(SystemExit) as stop:
        main(["prove", "--spec", str(game), "--rlimit", "0"])
    assert stop.value.code == 2
    assert "expected a whole number of units, 1 or more, got '0'" in capsys.readouterr().err


def test_a_bounded_sum_over_a_range_is_unrolled_and_its_bound_proved(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        'clause 1.1 "One"\n'
        '  property [gauss] "0 + 1 + ... + (k - 1)": forall k: int in 0..64:\n'
        "    2 * sum(i for i in 0..k - 1) == k * (k - 1)\n"
        '  property [evens] "the even numbers below k": forall k: int in 1..40:\n'
        "    count(i in 0..k - 1 where i % 2 == 0) == (k + 1) // 2\n"
        '  property [fixed] "a fixed range": sum(i for i in 1..10) == 55\n'
        '  property [too-long] "a range that may be longer than the prover unrolls":\n'
        "    forall k: int in 0..65: sum(1 for i in 1..k) == k\n"
        '  property [fixed-too-long] "a fixed range too long": sum(i for i in 1..100) == 5050\n'
        "end\n"
    )
    assert main(["prove", "--spec", str(game)]) == 1
    out = capsys.readouterr().out
    status = {ln.split()[0]: ln.split()[1] for ln in out.splitlines() if ln.startswith("  1.1/")}
    assert status == {
        "1.1/gauss": "proved",
        "1.1/evens": "proved",
        "1.1/fixed": "proved",
        "1.1/too-long": "skipped:",
        "1.1/fixed-too-long": "skipped:",
    }
    assert (
        "1.1/too-long                             skipped: cannot translate a sum or count that may hold more than 64 items"
        in out
    )
    assert (
        "1.1/fixed-too-long                       skipped: cannot translate a sum or count over 100 items (at most 64)"
        in out
    )


# The step invariants the issue asks for (issue 15), by clause and label.
STEP_INVARIANTS = {
    "7.3.1/segment-used-once",
    "7.4.2/no-overrun-left",
    "7.4.3/castle-holders-stand",
    "2.1/nothing-after-instant-win",
    "4.3/alone-holds-castle",
    "7.1/cycle-at-most-once",
    "7.2/one-muster-a-turn",
    "8.9.6/siege-needs-both",
    "9.3/mori-box-joins",
    "3.3/cards-conserved",
    "8.7.1/losses-as-due",
}


def test_step_invariants_are_proved(base: dict[str, Outcome]) -> None:
    invariants = {c: o for c, o in base.items() if o.how}
    assert set(invariants) >= STEP_INVARIANTS
    assert {c: o.status for c, o in invariants.items()} == dict.fromkeys(invariants, "proved")
    assert "by induction" in invariants["7.3.1/segment-used-once"].how
    assert "standing rules" in invariants["7.4.2/no-overrun-left"].how


def test_a_changed_overrun_ratio_gives_a_counterexample_check_replays(
    game_copy: Path, base: dict[str, Outcome], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(movement_rules(game_copy), "const overrun_ratio: int = 4", "const overrun_ratio: int = 5")
    folder = tmp_path / "cx"
    argv = ["prove", "--spec", str(game_copy), *touching(base, "overrun_ratio")]
    assert main([*argv, "--counterexample-dir", str(folder)]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "7.4.2/no-overrun-left" in ln)
    assert "failed: counterexample" in line and "written to" in line
    record = folder / "7.4.2-no-overrun-left-printing-gmt-later.yaml"
    assert record.is_file()
    # four blocks against one stand side by side, and nothing overruns them
    assert main(["check", "--spec", str(game_copy), str(record)]) == 1
    replay = capsys.readouterr().out + capsys.readouterr().err
    assert "misses an expectation" in replay and "the rules give false" in replay
    # the same record under the real spec: the overrun happens, the invariant holds
    assert main(["check", str(record)]) == 0


def test_dropped_checks_and_a_lost_discard_are_caught_and_the_move_replays(
    game_copy: Path, base: dict[str, Outcome], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One copy of the spec, three mutations, one run of prove: the move's counterexample
    replays to the same violation; the cards' invariant sees a discard go missing, and the
    losses' one a side lose other than what is due."""
    edit(movement_rules(game_copy), SEGMENT_ONCE)
    edit(game_copy / "clauses" / "03-pieces.rules", "    set discards(s) = discards(s) + cards\n")
    count = "    check 8.7.1/loss-count(size(chosen), loss_due(s))\n"
    edit(game_copy / "clauses" / "08-combat.rules", count)
    folder = tmp_path / "cx"
    # what the three changes are in: the march's checks, the discard, the losses' action
    only = touching(base, "march", "discard", "battle/losses/losses")
    argv = ["prove", "--spec", str(game_copy), *only]
    assert main([*argv, "--counterexample-dir", str(folder)]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "7.3.1/segment-used-once" in ln)
    assert "failed: counterexample after movement_phase.moving.move" in line
    line = next(ln for ln in out.splitlines() if "3.3/cards-conserved" in ln)
    assert "failed: counterexample after" in line
    line = next(ln for ln in out.splitlines() if "8.7.1/losses-as-due" in ln)
    assert "failed: counterexample after battle.losses.losses" in line
    # a bid's card goes nowhere either: the property after a bid sees it
    line = next(ln for ln in out.splitlines() if "3.3/a-bid-is-paid" in ln)
    assert "failed: counterexample after week_cycle.turn_order.bid" in line
    # and a reinforcement draws from the discards it never made: fewer cards than due
    line = next(ln for ln in out.splitlines() if "6.2/reinforcement-counts" in ln)
    assert "failed: counterexample after week_cycle.reinforcement.reinforce" in line
    # and nothing else the changes touch
    assert f"5 of {len(only)} not proved: " in out
    record = folder / "7.3.1-segment-used-once-printing-gmt-later.yaml"
    # the stack goes out and back along one road: under the mutated spec it may, and the
    # road is used twice
    assert main(["check", "--spec", str(game_copy), str(record)]) == 1
    replay = capsys.readouterr().out
    assert "misses an expectation" in replay and "road_uses(r) <= 1" in replay
    assert "the rules give false" in replay
    # under the real spec the move itself is refused, citing the check dropped
    assert main(["check", str(record)]) == 1
    assert "is illegal: 7.3.1/segment-once" in capsys.readouterr().out


def test_a_counterexample_found_under_a_printing_and_overlays_names_them(
    game_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run under another printing, with an overlay switched off, writes a record that says
    so: `referee check` replays it under the same, to the first printing's own property."""
    edit(movement_rules(game_copy), SEGMENT_ONCE)
    folder = tmp_path / "cx"
    argv = ["prove", "--spec", str(game_copy), "--printing", "gmt-2011"]
    argv += ["--no-overlay", "D-lc-uses", "--property", "7.3.1/segment-used-once"]
    assert main([*argv, "--counterexample-dir", str(folder)]) == 1
    assert "1 of 1 not proved: 7.3.1/segment-used-once failed" in capsys.readouterr().out
    path = folder / "7.3.1-segment-used-once-printing-gmt-2011-without-D-lc-uses.yaml"
    record = yaml.safe_load(path.read_text())
    assert list(record)[:3] == ["game", "printing", "no_overlays"]
    assert (record["printing"], record["no_overlays"]) == ("gmt-2011", ["D-lc-uses"])
    assert main(["check", "--spec", str(game_copy), str(path)]) == 1
    replay = capsys.readouterr().out
    # the first printing's property: no segment used by two stacks
    assert "misses an expectation" in replay and "road_stacks(r) <= 1" in replay
    assert "printing gmt-2011" in replay


def test_a_position_names_an_item_without_a_name_by_its_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A road has no name: a position gives its cells by the road's fields, as the referee
    shows them; a road the map lacks is bad input, said where the record names it."""
    record = tmp_path / "road.yaml"
    text = (
        "game: sekigahara\n"
        "position:\n"
        "  procedure: movement_phase\n"
        "  args: {active: tokugawa}\n"
        "  step: moving\n"
        "  vars: {level: total}\n"
        "  state:\n"
        "    units_at: {Sunpu: {tokugawa: [maeda-gun]}}\n"
        "    road_uses: {'{a: Sunpu, b: Numazu}': 1}\n"
        "events:\n"
        "- move: {by: tokugawa, from: Sunpu, groups: [{blocks: [maeda-gun], path: [Sunpu, Numazu]}]}\n"
    )
    record.write_text(text)
    assert main(["check", str(record)]) == 1
    out = capsys.readouterr().out
    assert "is illegal: 7.3.1/segment-once" in out and "earlier_uses = 1" in out
    record.write_text(text.replace("b: Numazu}'", "b: Kyoto}'"))
    assert main(["check", str(record)]) == 2
    err = capsys.readouterr().err
    assert ":9:" in err and "no road has a: Sunpu, b: Kyoto" in err


STEPS_GAME = (
    'game g "G"\nprinting p "P" base\n'
    'clause 1.1 "One"\n'
    "  enum side = red | blue\n"
    "  state tokens(s: side): list of int = []\n"
    "  require [room] (n: int): n < 3\n"
    '    because "{n} tokens already"\n'
    '  property [at-most-three] "no side ever holds more than three tokens"\n'
    "    invariant within 4 int:\n"
    "    forall s in [side.red, side.blue]: size(tokens(s)) <= 3\n"
    '  procedure play "Play"\n'
    "    step taking\n"
    "      allow take(who: side, n: int)\n"
    "        effect\n"
    "          check 1.1/room(size(tokens(who)))\n"
    "          set tokens(who) = tokens(who) + [n]\n"
    "    end\n"
    "  end\n"
    "end\n"
)


def test_a_step_invariant_of_a_small_game(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The move's check keeps the invariant; without it, a fourth token is taken."""
    game = mini_game(STEPS_GAME)
    assert main(["prove", "--spec", str(game)]) == 0
    out = capsys.readouterr().out
    assert (
        "1.1/at-most-three" in out and "by induction over 2 transition(s)" in out
    )  # take, any other event
    game = mini_game(STEPS_GAME.replace("          check 1.1/room(size(tokens(who)))\n", ""))
    assert main(["prove", "--spec", str(game)]) == 1
    out = capsys.readouterr().out
    assert "1.1/at-most-three" in out and "failed: counterexample after play.taking.take" in out
    # the position before holds three tokens of the side that takes a fourth
    assert "tokens:" in out and "- take:" in out


def test_an_invariant_false_at_the_set_up_fails_there(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every transition keeps `week >= 2` (the week only grows), but the game starts in
    week 1: the base case fails, with the set-up's values; `week >= 1` holds at every position
        at rest (the week's floor, a named constant the week only gains from), so it is proved
        by the standing rules alone."""
    weekly = game_copy / "clauses" / "06-weekly.rules"
    edit(
        weekly,
        "  state current_turn: turn = turn.A\n",
        "  state current_turn: turn = turn.A\n"
        '  property [late-start] "past the first week" invariant within 2 face: week >= 2\n'
        '  property [first-week-on] "never before the first week" invariant within 2 face:'
        " week >= 1\n",
    )
    assert main(["prove", "--spec", str(game_copy), "--property", "6.4"]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "6.4/late-start" in ln)
    assert "failed: counterexample at the set-up: week = 1 (clauses " in line
    line = next(ln for ln in out.splitlines() if "6.4/first-week-on" in ln)
    assert "proved (never before the first week; by the standing rules; lists" in line
    assert out.rstrip().splitlines()[-1] == "1 of 2 not proved: 6.4/late-start failed"


def test_a_deck_short_of_a_card_at_the_set_up_fails_cards_conserved_there(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each draw pile starts as the whole deck, in as many slots as it has cards (beyond
    the property's `within 2 card`): one card short, cards-conserved fails at the set-up."""
    copy = load_spec(game_copy)
    found = prove(
        copy.sym,
        copy.components.names(),
        collections=copy.components.collections,
        only={"3.3/cards-conserved"},
    )
    assert found[0].status == "proved" and "from the set-up" in found[0].how
    edit(
        game_copy / "clauses" / "03-pieces.rules",
        "state draw_pile(s: side): list of card = full_deck(s)",
        "state draw_pile(s: side): list of card = drop(full_deck(s), 1)",
    )
    assert main(["prove", "--spec", str(game_copy), "--property", "3.3/cards-conserved"]) == 1
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "cards-conserved" in ln)
    assert "failed: counterexample at the set-up: s = " in line and "draw_pile(" in line


def test_standing_rules_are_proved_and_an_overrun_that_destroys_nothing_fails(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each standing rule is a property of its own: its body leaves it no longer due, and
    the rules settle within a stated number of firings. An overrun that leaves the enemy's
    blocks where they stand is still due after it runs: it fails, and the invariant proved
    by the standing rules (no-overrun-left) is no longer proved, for it rests on it."""
    assert main(["prove", "--spec", str(game_copy), "--property", "7.4.2"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "  7.4.2/overrun " in ln)
    assert "proved (" in line and "after its body runs, it is no longer due at its values" in line
    assert re.search(r"the standing rules settle within \d+ firings", line)
    # prove reports a set of rules that suffices (least_reads off), not the least: the
    # overrun always, and 4.3/ownership may join it (it sets castle_owner, which the
    # invariant reads), though the proof holds without it (the least set is the overrun)
    rests = re.search(r"by the standing rules, resting on ([^;]+);", out)
    assert rests is not None
    assert "7.4.2/overrun" in rests[1].split(", ")
    assert set(rests[1].split(", ")) <= {"4.3/ownership", "7.4.2/overrun"}
    edit(
        movement_rules(game_copy),
        "    set units_at(l, enemy) = []\n",
        "    set units_at(l, enemy) = units_at(l, enemy)\n",
    )
    assert main(["prove", "--spec", str(game_copy), "--property", "7.4.2"]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "  7.4.2/overrun " in ln)
    assert "failed: after its body runs, it is still due: counterexample l = " in line
    assert "units_at(" in line
    assert (
        "7.4.2/no-overrun-left                    unknown: rests on the standing rules"
        " 7.4.2/overrun (failed)" in out
    )
    assert "hint:" not in out  # not a matter of z3's budget


def test_lists_joined_into_a_cell_are_proved_over_as_they_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A list cell set to two lists joined (the Mori box's blocks added to Osaka's and to
    the arrivals held there) takes them in as many slots, not packed into the cell's bound:
    9.3/arrivals-stand proves, and join-the-defence is proved never to make it due (packed,
    both were unknown at the default rlimit)."""
    assert main(["prove", "--property", "9.3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    stand = next(ln for ln in lines if "  9.3/arrivals-stand " in ln)
    assert "proved (" in stand and "after its body runs, it is no longer due" in stand
    assert "it makes no rule due" in stand
    joins = next(ln for ln in lines if "  9.3/join-the-defence " in ln)
    assert "proved (" in joins and "; it may make due 7.4.2/overrun;" in joins


def test_standing_rules_that_trigger_each_other_forever_do_not_settle(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each rule's body makes its own condition false, but makes the other's true: the
    referee would run them forever; neither is proved to settle."""
    game = mini_game(
        'game g "G"\nprinting p "P" base\n'
        'clause 1.1 "One"\n'
        "  state x: int = 1\n"
        "  state y: int = 1\n"
        '  whenever [up] "x rises" when x == 0 do\n'
        "    set x = 1\n"
        "    set y = 0\n"
        "  end\n"
        '  whenever [down] "y rises" when y == 0 do\n'
        "    set y = 1\n"
        "    set x = 0\n"
        "  end\n"
        "end\n"
    )
    assert main(["prove", "--spec", str(game)]) == 1
    out = capsys.readouterr().out
    for rule in ("1.1/up", "1.1/down"):
        line = next(ln for ln in out.splitlines() if rule in ln)
        assert "failed: it lies on a cycle of rules that may trigger" in line
    assert out.rstrip().splitlines()[-1] == "2 of 2 not proved: 1.1/up failed; 1.1/down failed"


@pytest.mark.parametrize(("first", "code"), [(1, 0), (0, 1)])
def test_a_count_that_starts_at_a_named_constant_is_never_below_it(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str], first: int, code: int
) -> None:
    """A turn counter that starts at a constant and only rises is never below it: a rule
    that notes the turn (due while nothing is noted) is no longer due once it has, unless
    the counter may start at 0."""
    game = mini_game(
        'game g "G"\nprinting p "P" base\n'
        'clause 1.1 "One"\n'
        f"  const first: int = {first}\n"
        "  state turn: int = first\n"
        "  state noted: int = 0\n"
        '  whenever [note] "the turn is noted" when noted == 0 do\n'
        "    set noted = turn\n"
        "  end\n"
        "end\n"
    )
    assert main(["prove", "--spec", str(game)]) == code
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "1.1/note" in ln)
    if code == 0:
        assert "proved (the turn is noted; after its body runs, it is no longer due" in line
    else:
        assert "failed: after its body runs, it is still due" in line


def test_a_proof_reads_only_what_it_needs(base: dict[str, Outcome]) -> None:
    """A step invariant's reads are what the proof needed: the checks and standing rules in
    z3's unsat core, the lets a kept statement uses; a name bound inside a definition or a
    quantifier is no read. No road is used twice (7.3.1) rests on the segment-once check, not
    on the allowance a move's lets compute nor on the checks of its allowance."""
    by = base
    segment = by["7.3.1/segment-used-once"]
    assert segment.status == "proved"
    assert {"7.3.1/segment-once", "traversals", "road_of"} <= set(segment.reads)
    assert not {"allowance", "7.3.3/within-allowance", "size_penalty"} & set(segment.reads)
    # a property of the cards reads no check of the movement's allowance
    cards = by["3.3/cards-conserved"]
    assert cards.status == "proved"
    assert "3.3/in-hand" in cards.reads
    assert "7.3.3/within-allowance" not in cards.reads


AFTER_ACTIONS = {
    "3.3/a-bid-is-paid",
    "3.3/a-replenishment-draws",
    "5.1/a-deal-draws",
    "6.2/reinforcement-as-told",
    "7.1/movement-is-paid",
    "7.1/a-cycle-counts",
    "7.1/a-move-counts",
    "7.2/a-muster-counts",
    "7.2/muster-as-told",
    "7.3.1/every-segment-counted",
    "7.3.1/moved-where-they-end",
    "4.2/moves-claim",
    "9.3/mori-is-paid",
    # issue 34: the rulebook's claims, written apart from the definitions they check
    "2.2/points-as-counted",
    "6.2/reinforcement-counts",
    "6.2/reinforcement-blocks",
    "6.3/higher-bid-chooses",
    "7.3.1/moves-keep-the-rules",
    "8.2.2/deploys-its-mon",
    "8.3.3/impact-as-scored",
    "8.5/defender-waits-while-leading",
    "8.8.1/the-loser-retreats",
    "8.8.4/two-stay-inside",
    "8.9.6/besieged-never-leave",
    "9.1/hideyori-falls-last",
}


def proved(base: dict[str, Outcome], names: set[str]) -> dict[str, Outcome]:
    """The outcomes of the properties named, each of which must be proved."""
    got = {c: o for c, o in base.items() if c in names}
    assert {c: o.status for c, o in got.items()} == dict.fromkeys(names, "proved")
    return got


def test_properties_after_an_action_are_proved(base: dict[str, Outcome]) -> None:
    after = proved(base, AFTER_ACTIONS)
    assert "after each of 1 'muster' event(s)" in after["7.2/a-muster-counts"].how
    # the battle's replenishment and the overrun's: two steps allow it
    assert "after each of 2 'replenish' event(s)" in after["3.3/a-replenishment-draws"].how


@pytest.mark.parametrize(
    ("old", "new", "failing", "changed"),
    [
        # a muster no longer counted: the one-muster limit would hold of a count never raised
        (
            "          do arrive(active, to, blocks)\n          set musters += 1\n",
            "          do arrive(active, to, blocks)\n",
            "7.2/a-muster-counts",
            "movement_phase/moving/muster",
        ),
        # the first segment of a path left out of the count (take(g.path, i + 2) from i = 1)
        (
            "[[take(g.path, i + 2) for i in 0..size(g.path) - 2]",
            "[[take(g.path, i + 2) for i in 1..size(g.path) - 2]",
            "7.3.1/every-segment-counted",
            "traversals",
        ),
    ],
    ids=["muster-not-counted", "first-segment-not-counted"],
)
def test_what_an_event_leaves_undone_fails_a_property_after_its_action(
    game_copy: Path,
    base: dict[str, Outcome],
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    failing: str,
    changed: str,
) -> None:
    """The step invariants (one muster a turn, each segment used once) still hold of a
    count the rules stop raising; a property after the action notices, with the position and
    the event that show it."""
    edit(movement_rules(game_copy), old, new)
    only = touching(base, changed)  # the invariants among them: 7.2/one-muster-a-turn, ...
    assert {"--property=7.2/one-muster-a-turn", "--property=7.3.1/segment-used-once"} & set(only)
    assert main(["prove", "--spec", str(game_copy), *only]) == 1
    out = capsys.readouterr().out
    failed = [ln.split()[0] for ln in out.splitlines() if "failed: counterexample" in ln]
    assert failed == [failing]
    assert "events:" in out and "position:" in out


# The properties that an action is allowed: a case the rules must let through.
ALLOWED = {
    "6.3/a-bid-is-allowed",
    "7.1/a-degree-is-bought",
    "7.1/a-cycle-is-allowed",
    "7.2/a-muster-is-allowed",
    "7.3.1/a-step-is-allowed",
    "7.3.1/a-bonus-is-counted",
}


def test_properties_that_an_action_is_allowed_are_proved(base: dict[str, Outcome]) -> None:
    allowed = proved(base, ALLOWED)
    assert "each of 1 'move' event(s) allowed" in allowed["7.3.1/a-step-is-allowed"].how


# Rules made stricter, each failing one property that an action is allowed: (the file, the
# text, its stricter form, the property, the check that refuses its event).
STRICTER = [
    # every move refused: a path's steps compared with themselves, never adjacent
    (
        "clauses/07-movement.rules",
        "(forall i in 0..size(path) - 2: adjacent(path[i], path[i + 1]))",
        "(forall i in 0..size(path) - 2: adjacent(path[i], path[i]))",
        "7.3.1/a-step-is-allowed",
        "7.3.1/along-roads",
    ),
    # a muster only where the mon's colour is the other side's
    (
        "clauses/07-movement.rules",
        "exists m in recruitment_marks(at): side_of(m.colour) == s\n",
        "exists m in recruitment_marks(at): side_of(m.colour) != s\n",
        "7.2/a-muster-is-allowed",
        "7.2/friendly-recruitment",
    ),
    # the second bid must be the lower
    (
        "clauses/06-weekly.rules",
        "(a: card, b: card): a.bid != b.bid",
        "(a: card, b: card): a.bid > b.bid",
        "6.3/a-bid-is-allowed",
        "6.3/no-tie",
    ),
]


def test_a_stricter_rule_fails_a_property_that_an_action_is_allowed(
    game_copy: Path, base: dict[str, Outcome], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every invariant and property after an action still holds of a rule made stricter (it
    allows less); a property that an action is allowed fails, and `referee check` refuses its
    event, citing the check. One copy of the spec, three changes, one run of prove."""
    for file, old, new, _, _ in STRICTER:
        edit(game_copy / file, old, new)
    folder = tmp_path / "cx"
    only = touching(base, *(m[4] for m in STRICTER))  # each change is in its check
    argv = ["prove", "--spec", str(game_copy), *only]
    assert main([*argv, "--counterexample-dir", str(folder)]) == 1
    out = capsys.readouterr().out
    failed = [ln.split()[0] for ln in out.splitlines() if "failed: counterexample" in ln]
    # besides, five blocks with a bonus no longer move (7.3.1/a-bonus-is-counted), and a
    # muster allowed goes where the mon is the other side's (7.2/muster-as-told)
    also = ["7.2/muster-as-told", "7.3.1/a-bonus-is-counted"]
    assert sorted(failed) == sorted([m[3] for m in STRICTER] + also)
    for _, _, _, failing, cited in STRICTER:
        record = folder / f"{failing.replace('/', '-')}-printing-gmt-later.yaml"
        assert main(["check", "--spec", str(game_copy), str(record)]) == 1
        replay = capsys.readouterr().out
        assert f"is illegal: {cited} " in replay, replay


# A small game for the soundness of properties that an action is allowed: red takes a number;
# the property says a number below 10 may be taken, and each case below adds a way for the
# referee to refuse one (a check it reaches where the prover cannot follow, or after the
# event's own statements), or asks for the event from a side whose turn it is not.
SMALL_TAKE = """game g "G" players side start play
printing p "P" base
clause 1.1 "One"
  enum side = red | blue
  require [tiny] (n: int): n < 5
  state last: int = 0
WATCH
  property [p] "a number below 10 may be taken"
    allows take within 4 int:
    CONDITION
  procedure play "Play"
    step taking
      actor side.red
      allow take(n: int)
        effect
EFFECT
        then other
    end
    step other
      enter
ENTER
      actor side.red
      allow pass()
        then taking
    end
  end
end
"""


@pytest.mark.parametrize(
    ("condition", "effect", "enter", "watch", "status", "why"),
    [
        # a check under a condition the prover cannot translate (text built from values)
        (
            "n < 10",
            '          if "{n}" != "zzz" then\n            check 1.1/tiny\n          end',
            "        set last = 0",
            "",
            "skipped",
            "cannot translate the check 1.1/tiny: text built from values",
        ),
        # a check in the next step's entry, run as part of the event
        (
            "n < 10",
            "          set last = n",
            "        check 1.1/tiny(last)",
            "",
            "skipped",
            "the check 1.1/tiny, which may follow the event",
        ),
        # a check in a standing rule
        (
            "n < 10",
            "          set last = n",
            "        set last = last",
            '  whenever [watch] "w" when last >= 5 do\n    check 1.1/tiny(last)\n  end',
            "skipped",
            "the check 1.1/tiny, which may follow the event",
        ),
        # blue cannot take at all: it is red's turn
        (
            "by == side.blue and n < 3",
            "          set last = n",
            "        set last = 0",
            "",
            "failed",
            "",
        ),
        # the check the event makes itself: refused from 5
        (
            "by == side.red and n < 10",
            "          check 1.1/tiny",
            "        set last = 0",
            "",
            "failed",
            "",
        ),
        (
            "by == side.red and n < 5",
            "          check 1.1/tiny",
            "        set last = 0",
            "",
            "proved",
            "",
        ),
    ],
    ids=[
        "untranslatable-guard",
        "check-on-entry",
        "check-standing",
        "not-their-turn",
        "false",
        "true",
    ],
)
def test_a_property_that_an_action_is_allowed_is_never_proved_falsely(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    condition: str,
    effect: str,
    enter: str,
    watch: str,
    status: str,
    why: str,
) -> None:
    game = tmp_path / "g"
    game.mkdir()
    text = SMALL_TAKE.replace("CONDITION", condition).replace("EFFECT", effect)
    (game / "game.rules").write_text(text.replace("ENTER", enter).replace("WATCH\n", watch + "\n"))
    code = main(["prove", "--spec", str(game), "--format", "json"])
    props = output(capsys.readouterr().out)["runs"][0]["properties"]
    (p,) = [x for x in props if x["kind"] == "property"]  # beside a standing rule's own proof
    assert (code, p["status"]) == (0 if status == "proved" else 1, status)
    assert why in p.get("reason", "") + p.get("how", ""), p


def test_prove_proves_the_properties_named(capsys: pytest.CaptureFixture[str]) -> None:
    """--property names a property (clause/label) or a clause; one the spec lacks is bad input."""
    assert main(["prove", "--property", "7.3.1/a-step-is-allowed", "--property", "6.3"]) == 0
    out = capsys.readouterr().out
    shown = [ln.split()[0] for ln in out.splitlines() if ln.startswith("  ")]
    assert shown == [
        "6.3/one-bid-each",
        "6.3/higher-bid-chooses",
        "6.3/a-bid-is-allowed",
        "7.3.1/a-step-is-allowed",
    ]
    assert out.splitlines()[-1] == "all 4 proved"
    assert main(["prove", "--property", "9.9/nothing"]) == 2
    err = capsys.readouterr().err
    assert "no property '9.9/nothing' (name one as clause/label" in err
    assert "`referee prove` with no --property lists them all" in err
    # a wrong label: the clause's own properties; a bare label: the one it belongs to
    assert main(["prove", "--property", "7.3.1/segment-once"]) == 2
    err = capsys.readouterr().err
    assert (
        "no property '7.3.1/segment-once'; clause 7.3.1 declares 7.3.1/a-bonus-is-counted," in err
    )
    assert err.rstrip().endswith("7.3.1/segment-used-once")
    assert main(["prove", "--property", "segment-used-once"]) == 2
    assert "did you mean '7.3.1/segment-used-once'?" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("folder", "why"),
    [
        ("", "give a folder"),
        ("a-file", "it is a file, not a folder"),
        ("a-file/below", "cannot make the folder (Not a directory)"),
    ],
)
def test_a_counterexample_folder_that_cannot_be_written_is_refused_at_once(
    folder: str,
    why: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bad --counterexample-dir is usage, said before any proof runs (exit 2, no proof line)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("x")
    assert main(["prove", "--property", "7.1", "--counterexample-dir", folder]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"referee prove: --counterexample-dir {folder!r}: {why}\n"


def test_all_overlays_is_given_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--all-overlays", "--printing", "gmt-2011"]) == 2
    assert "--all-overlays proves under every printing" in capsys.readouterr().err


def test_an_overlay_switched_on_and_off_at_once_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["prove", "--property", "7.1", "--overlay", "D-lc-uses", "--no-overlay", "D-lc-uses"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "overlay 'D-lc-uses' is switched both on and off" in err
    assert "hint: name it once: to switch it on, or off" in err


def test_a_count_is_never_below_its_start(game_copy: Path) -> None:
    """The procedure variables that only count up are found from the rules' `set`s; one the
    rules may lower is not one."""
    counts = {("movement_phase", n): 0 for n in ("moves", "musters", "cycled")}
    counts |= {("", n): 0 for n in ("road_uses", "road_stacks")}
    counts |= {("", n): 0 for n in ("card_deployments", "deployments_made")}
    counts[("", "week")] = 1  # it starts at a named constant (first_week)
    assert floors(load_spec(game_copy).sym) == counts
    edit(movement_rules(game_copy), "set cycled += 1", "set cycled -= 1")
    del counts[("movement_phase", "cycled")]
    assert floors(load_spec(game_copy).sym) == counts


def test_a_position_with_a_count_below_its_start_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the prover assumes of a position, the referee holds a record's position to."""
    record = tmp_path / "r.yaml"
    record.write_text(
        "game: sekigahara\nposition:\n  procedure: movement_phase\n  args: {active: ishida}\n"
        "  step: moving\n  vars: {level: minimal, moves: -1}\nevents: []\n"
    )
    assert main(["check", str(record)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{record}:6:33: moves = -1: the rules only ever raise it from 0,")


NEW_VAR = "    var done: bool = false\n"


def test_a_starting_value_read_before_the_opening_step_is_not_assumed(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A variable whose starting value reads state the opening step's entry changes is not
    at that value when the step's event comes (second reading: it was assumed, and a false
    property proved)."""
    rules = movement_rules(game_copy)
    edit(
        rules,
        NEW_VAR,
        NEW_VAR + "    var arrived_earlier: int = size(mori_arrived(mori_arrival))\n",
    )
    edit(
        rules,
        "  property [within-the-degree]",
        '  property [carried] "the Mori arrivals noted at the start are still noted"\n'
        "    after movement within 2 face, 3 card:\n"
        "    arrived_earlier == size(mori_arrived(mori_arrival))\n\n"
        "  property [within-the-degree]",
    )
    assert main(["prove", "--spec", str(game_copy), "--property", "7.1/carried"]) == 1
    assert "1 of 1 not proved: 7.1/carried failed" in capsys.readouterr().out


def test_a_procedure_the_standing_rules_start_runs_beneath_the_invariant_s(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An overrun's card draw (a procedure a standing rule starts) comes in the middle of a
    movement phase: an invariant of the phase's variables is proved over its steps too
    (second reading: they were left out, and a false property proved)."""
    rules = movement_rules(game_copy)
    edit(rules, NEW_VAR, NEW_VAR + "    var their_cards: int = size(hand(opponent(active)))\n")
    edit(
        rules,
        "  property [within-the-degree]",
        '  property [their-hand-holds] "a movement phase never adds to the other side\'s hand"\n'
        "    invariant within 2 face, 3 card:\n"
        "    size(hand(opponent(active))) <= their_cards\n\n"
        "  property [within-the-degree]",
    )
    argv = ["prove", "--spec", str(game_copy), "--property", "7.1/their-hand-holds"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert (
        "7.1/their-hand-holds                     failed: counterexample after overrun_replenishment"
        in out
    )


def test_a_phase_that_starts_with_a_move_counted_fails_starts_afresh_and_replays(
    game_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A property after an action that reads neither the event nor the position before it
    is expected in its record: the replay shows the miss."""
    edit(movement_rules(game_copy), "    var moves: int = 0\n", "    var moves: int = -1\n")
    folder = tmp_path / "cx"
    argv = ["prove", "--spec", str(game_copy), "--property", "7.1/starts-afresh"]
    assert main([*argv, "--counterexample-dir", str(folder)]) == 1
    capsys.readouterr()
    (path,) = folder.glob("*.yaml")
    assert main(["check", "--spec", str(game_copy), str(path)]) == 1
    out = capsys.readouterr().out
    assert "event 1 (movement) misses an expectation: 7.1 (Movement in general)" in out
    assert "    moves = -1\n" in out


def test_a_loosened_stack_limit_fails_within_the_degree_and_replays(
    game_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """7.1's stack limit made to count the moves alone: the property that moves and musters
    stay within the degree fails, at a position whose counts no game makes negative, and the
    record replays to the miss with the counts that decide it (second reading of prove)."""
    edit(
        movement_rules(game_copy),
        "unlimited_moves(m) or moves + musters <= stack_moves(m)\n",
        "unlimited_moves(m) or moves <= stack_moves(m)\n",
    )
    folder = tmp_path / "cx"
    argv = ["prove", "--spec", str(game_copy), "--property", "7.1/within-the-degree"]
    assert main([*argv, "--counterexample-dir", str(folder)]) == 1
    assert "1 of 1 not proved: 7.1/within-the-degree failed" in capsys.readouterr().out
    (path,) = folder.glob("*.yaml")
    record = yaml.safe_load(path.read_text())
    counts = record["position"]["vars"]
    assert counts["moves"] >= 0 and counts["musters"] >= 0 and counts["level"] != "total"
    assert main(["check", "--spec", str(game_copy), str(path)]) == 1
    replay = capsys.readouterr().out
    assert "misses an expectation: 7.1 (Movement in general)" in replay
    assert f"musters = {counts['musters']}" in replay and "level = " in replay


@pytest.mark.parametrize("seconds", ["0", "0.0009", "1e-300", "3601", "abc", "nan"])
def test_a_timeout_out_of_range_is_refused(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Below a millisecond z3 would have no limit at all (its unit is the millisecond)."""
    with pytest.raises(SystemExit) as stop:
        main(["prove", "--property", "7.1", "--timeout", seconds])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"expected seconds from 0.001 (a millisecond) to 3600 (an hour), got '{seconds}'" in err


def test_a_number_of_a_part_an_item_lacks_is_read_behind_its_question(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The map prints a +N spot at some locations only: a property reads the N of the spot at
    the location an event names once it has asked whether one is printed there (a location
    without one has any number), so 5.2.2/spot-filled-as-printed is proved, and fails once a
    spot may receive fewer blocks than it prints."""
    assert main(["prove", "--spec", str(game_copy), "--property", "5.2.2"]) == 0
    capsys.readouterr()
    edit(
        game_copy / "clauses" / "05-setup.rules",
        "and n == random_count(at)",
        "and n <= random_count(at)",
    )
    assert main(["prove", "--spec", str(game_copy), "--property", "5.2.2"]) == 1
    out = capsys.readouterr().out
    assert "5.2.2/spot-filled-as-printed" in out and "failed: counterexample" in out
    assert "place_random:" in out


CACHED = "answered from the proof cache"


def test_a_spec_proved_again_unchanged_is_answered_from_the_disk_cache(
    cache: Path, game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee prove` keeps its outcomes in the signed disk cache, under the spec's content,
    the runs, the properties and the work budget: asked the same again it answers from there,
    every line as before; a changed spec, other properties or another budget prove again."""

    def prove_(*argv: str) -> tuple[int, list[str]]:
        code = main(["prove", "--spec", str(game_copy), "--property", "7.3.3", *argv])
        return code, capsys.readouterr().out.splitlines()

    code, first = prove_()
    assert code == 0 and not any(CACHED in ln for ln in first)
    assert [p.name for p in cache.glob("proof-*")] != []
    code, again = prove_()
    assert code == 0 and [ln for ln in again if not ln.startswith(CACHED)] == first
    assert again[-3].startswith(CACHED)  # before the slowest proofs and the summary
    code, other = prove_("--rlimit", "1")  # another budget: proved again (unknown)
    assert code == 1 and not any(CACHED in ln for ln in other)
    assert "unknown" in other[-1]
    # a --timeout takes a kept answer only where nothing in it is unknown
    code, timed = prove_("--rlimit", "1", "--timeout", "60")
    assert code == 1 and not any(CACHED in ln for ln in timed)
    code, timed = prove_("--timeout", "60")
    assert code == 0 and any(CACHED in ln for ln in timed)
    rules = game_copy / "clauses" / "07-movement.rules"
    rules.write_text(rules.read_text() + "\n")  # a changed file: the spec is proved again
    code, changed = prove_()
    assert code == 0 and not any(CACHED in ln for ln in changed)
