"""Write docs/compliance.md: for every clause, the reading the referee takes, the printings,
clarifications and decisions that reading rests on, and the tests that exercise it.

Run: python docs/compliance.py > docs/compliance.md   (tests/test_compliance.py keeps it current)
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.compile.spec import load_spec  # noqa: E402
from referee.parse import ast  # noqa: E402

# The project's reading where the rulebook leaves a point open or the referee had to choose,
# beyond what a clause's summary and its overlays say. Every entry is in our own words.
READINGS: dict[str, str] = {
    "2.1": "A standing rule (`2.1/at-once`): the game ends the moment a protagonist is lost or "
    "Hideyori captured, however it happens (battle, siege, overrun in movement, after a retreat, "
    "by Mori blocks arriving); no event may follow. With D-instant-timing a battle's losses "
    "count once both sides have taken them; read literally (D-instant-timing off) the attacker's "
    "losses come first and the tie rule applies only when one loss step gives both sides a win.",
    "3.3": "Cards drawn past the end of the draw pile: the whole pile is drawn, then the "
    "discards are reshuffled and the rest drawn from them; a record lists the cards as a set.",
    "4.3": "Two standing ideas: ownership (8.9.1, the side that had units there first, disks "
    "counting) is a standing rule (`4.3/ownership`); control (4.3, by blocks, with D-disk-control) "
    "is computed from it. A position's lone holder owns its castle from the start.",
    "5.1": "The starting hands are dealt before any block is placed.",
    "5.2.1": "One block a symbol; a face is set up no more often than the components say it "
    "exists, where a source gives the number ('unknown' faces, and faces known only as a range, "
    "are not checked). A side draws from its bag (a +N spot, the first wave) only after placing "
    "all its blocks with set-up symbols (and, for Ishida, the Mori box); a draw before then is "
    "refused for the placement missing, its locations and blocks named (5.2.1/designated-first).",
    "5.2.2": "A record may say that blocks were drawn before their location was named "
    "(`named_first: false`): refused citing 5.2.2/named-first. D-setup-per-side: each side "
    "draws once its own designated blocks are placed; read as one order for both sides "
    "(D-setup-per-side off), a draw before the other side's are placed is refused "
    "(5.2.2/all-designated-first).",
    "5.2.3": "The first wave is drawn last, after the side's +N spots are filled.",
    "6.2": "In week 1 the step is absent: a `reinforce` is refused citing 6.2, with the "
    "condition that skips it.",
    "7.1": "D-cycle-once: one discard-and-replenish under no movement.",
    "7.3.1": "A move walks its parts one after another in the order the record lists them, "
    "each carrying the later parts that share its road so far and dropping them where their "
    "roads part; every block present counts for an overrun at each location reached. "
    "D-stack-once: a location's stack moves once a phase. First printing (E-pickup): a picked-up "
    "block joins the group, counts in its size from then on, and is not another stack move; "
    "pick-ups at one location are checked together. A picked-up block begins its move where it "
    "is picked up: its allowance is counted from there, with the "
    "leadership found there and no force march (7.3.3/within-allowance), and a block mustered "
    "or out of the Mori box this turn cannot be picked up (7.2, 9.3). E-road-once follows "
    "the first printing's 7.3.1 list, although its movement example paraphrases the later rule.",
    "7.3.3": "D-march-together: a force march serves every group of the move with the same "
    "path (they begin, move and finish together), however the record splits them; a group that "
    "parts from it is not served. Two cards named on such groups give their blocks two force "
    "marches: refused (7.3.3/one-force-march).",
    "7.3.4": "D-leader-declared: a move that goes as far as it does only with a leader block's "
    "bonus (no castle or capital of its own at its origin) declares it (`leadership: leader`), "
    "or the move is refused citing 7.3.4/leader-declared.",
    "7.3.5": "Every printing: a block takes the penalty of the largest group it travelled in; "
    "groups that part at the origin never travelled together.",
    "7.4.1": "Whoever arrived: the rule is about the blocks present. D-walk-into-overrun decides "
    "the one open point, whether a force that walked into four times its number is overrun at "
    "once (yes) or fights in the combat phase.",
    "7.4.2": "A standing rule (`7.4.2/overrun`), everywhere but in the combat being fought "
    "(8.7.1). Each overrun is its own event for 8.10. Under the broad disk reading (S-disks off) "
    "enemy blocks entering in a move take a lone disk, never a battle.",
    "8.1": "Combat begins through one routine, declared or begun by a retreat: the location is "
    "resolved for the phase, and what joins an attack there (9.3) joins first. A declaration "
    "while a combat is being fought is refused citing 8.1.",
    "8.7.1": "A winner that records a loss is refused citing 8.7.1, with `battle_losses`.",
    "8.8.2": "Where the enemy came from belongs to the combat: entries are cleared when a combat "
    "ends; a retreat adds the battle it left to the places its side's blocks still at the "
    "destination came from (a side with no block left there forgets where they came from), "
    "so in a combat a retreat begins a force gathered by two retreats may go back by either.",
    "8.8.1": "A record may part the retreating force (`elsewhere`) or send it into an off-map box "
    "(`into_box`): refused, 8.8.1/one-destination (a part sent where the rest goes parts "
    "nothing: legal); a defender into a box 8.8.1/to-a-location, an attacker "
    "8.8.2/never-to-a-box. A part naming blocks not of the retreating force: 8.8.1/own-blocks.",
    "8.6.3": "A challenge to a double's two blocks is refuted or turned as a whole, and cited "
    "here (8.6.3/refuted-double, 8.6.3/double-refuted-when-able) with 8.6.1's cards.",
    "8.8.4": "Only blocks of the retreating force stay; when every one stays nothing moves and "
    "nothing is claimed; otherwise the rest name their destination.",
    "8.8.5": "A combat a retreat begins is declared like any other: the owner's stance (a "
    "`stance` event when it has one or two blocks there, a siege when only a disk), the Mori box "
    "at Osaka, the location resolved; entering a fight still to come or a siege that goes on "
    "starts nothing now (D-retreat-joins-siege; off, a retreat into a siege already fought this "
    "phase starts a combat at once); the active side holding the castle from inside fights "
    "nobody (8.9.2).",
    "8.9.2": "Counted at the moment combat begins, with the Mori blocks that join then. A "
    "declaration may name the blocks that stay inside (`in_castle`): the owner's whole force or "
    "none (8.9.2/all-or-none), blocks standing there (8.9.2/at-the-castle), and the owner's only "
    "(8.9.1/owner-only).",
    "8.9.4": "The draws-twice reading (D-siege-draws off) gives two cards a block lost.",
    "8.9.6": "A siege ends when the sides no longer share the location (`8.9.6/siege-ends`). "
    "Friends joining besieged blocks relieve them: at the next declaration all fight outside "
    "(the evidence's E5), even within the two-block limit (D-relief-outside; off, 8.9.2 lets "
    "them stay inside when they fit); a lone besieged disk is not relieved.",
    "8.2.4": "A challenge against a leader deployed without a card is refused citing 8.2.4/immune.",
    "8.6.1": "A challenge may name the deployment it targets (`against`): the last one made, by "
    "the other side; naming one block of a double names the double's use, and both blocks answer "
    "it (8.6.3).",
    "8.10": "After each overrun that gives the side that lost blocks a card, that side's "
    "`replenish` comes next, before a battle's own replenishment. An event of a combat a "
    "retreat began, before the draws of the combat it left, is refused citing 8.10.",
    "9.3": "A standing rule (`9.3/join-the-defence`): the Mori box empties into Osaka whenever "
    "the enemy attacks it, declared or begun by a retreat (D-mori-any-attack; off, only a "
    "declared attack); the arrivals may overrun. Mori blocks that came out this turn, bought or "
    "joining the defence, cannot move until the next turn wherever they stand: a retreat takes "
    "the hold along, and a block lost or destroyed is held no more; of two alike blocks, one an "
    "arrival, a loss takes the arrival (D-arrival-lost-first). Cited as 9.3, picked up on the "
    "way too. A sacrifice outside an Ishida movement phase is refused citing 9.3. Under the "
    "first printing, whose copy stops before chapter 9 (E-cut-short), chapter 9 is the later "
    "printing's (D-2011-chapter-9); with the decision off it is absent (9.3/in-force).",
}

# a clause number standing alone: cited ("7.4.2/overrun"), or named in a test's docstring
CITE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)+)(?![\d]|\.\d)")
HEADER = re.compile(r"^# (?:clause|expect: illegal|Illegal \() ?(\d+(?:\.\d+)+)", re.M)


def tests_by_clause(numbers: set[str]) -> dict[str, Counter[str]]:
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for m in CITE.finditer(path.read_text()):
            if m.group(1) in numbers:
                found[m.group(1)][f"tests/{path.name}"] += 1
    for folder, name in (
        (ROOT / "tests" / "readings", "tests/readings"),
        (ROOT / "examples", "examples"),
    ):
        for path in sorted(folder.rglob("*.yaml")):
            for number in set(HEADER.findall(path.read_text())):
                if number in numbers:
                    found[number][
                        f"{name}/{path.parent.name}" if path.parent != folder else name
                    ] += 1
    return found


def main() -> None:
    spec = load_spec()
    sym = spec.sym
    numbers = set(sym.clauses)
    tests = tests_by_clause(numbers)
    out = [
        "# Compliance statement",
        "",
        "For every clause of the rulebook (the later GMT printing's numbers), the reading the",
        "referee takes, what that reading rests on (printings, Savarese's clarifications and the",
        "project's decisions, each an overlay a user can switch off), and the tests that exercise",
        "it. The model is the DATC's compliance statements for Diplomacy adjudicators. Generated",
        "by `python docs/compliance.py > docs/compliance.md` from the spec and the tests; a test",
        "keeps it current.",
        "",
        "Tests named: `tests/test_*.py` (records built in the test, each citing the clause);",
        "`tests/readings/...` (records written by second readers from the rulebook, with the",
        "verdict the rulebook gives); `examples` (the example records, legal and illegal).",
        "",
    ]
    for clause in spec.clauses():
        out.append(f"## {clause.number} {clause.title}")
        out.append("")
        kind = "informative (no rule of its own)" if clause.informative else "normative"
        out.append(f"- **Kind:** {kind}; printings: {', '.join(clause.printings)}.")
        out.append(f"- **Reading:** {clause.summary}")
        if clause.number in READINGS:
            out.append(f"- **The project's reading:** {READINGS[clause.number]}")
        standing = [d for d in clause.decls if isinstance(d, ast.Whenever)]
        if standing:
            rules = ", ".join(f"`{clause.number}/{d.name}` ({d.text})" for d in standing)
            out.append(f"- **Standing rules:** {rules}.")
        rests = []
        for o in spec.overlays_touching(clause.number):
            rests.append(f"`{o.id}` ({o.kind}): {o.title}")
        decided = sorted({oid for d in clause.decls for oid in d.decisions})
        rests += [f"`{oid}` (decision, embodied): {sym.overlays[oid].title}" for oid in decided]
        out.append(
            "- **Rests on:** " + ("; ".join(rests) if rests else "the base text alone") + "."
        )
        t = tests.get(clause.number)
        listed = ", ".join(f"{name} ({n})" for name, n in sorted(t.items())) if t else "none"
        out.append(f"- **Tests:** {listed}.")
        out.append("")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
