"""The types of the rules language and the built-in functions every game gets."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class T:
    """A type: int, bool, text, an enum or record by name, a list or set of a type, or any."""

    kind: str  # int | bool | text | enum | record | list | set | any
    name: str = ""
    arg: T | None = None

    def __str__(self) -> str:
        if self.kind in ("list", "set"):
            return f"{self.kind} of {self.arg}"
        if self.kind in ("enum", "record"):
            return self.name
        return self.kind

    @property
    def is_collection(self) -> bool:
        return self.kind in ("list", "set")


INT = T("int")
BOOL = T("bool")
TEXT = T("text")
ANY = T("any")


def list_of(t: T) -> T:
    return T("list", arg=t)


def compatible(a: T, b: T) -> bool:
    """Whether a value of type ``b`` may stand where ``a`` is expected."""
    if a.kind == "any" or b.kind == "any":
        return True
    if a.kind != b.kind or a.name != b.name:
        return False
    if a.arg is not None and b.arg is not None:
        return compatible(a.arg, b.arg)
    return True


# name -> (minimum arity, maximum arity or -1, what it does). Their typing is in the checker.
BUILTINS: dict[str, tuple[int, int, str]] = {
    "min": (1, -1, "the smallest of its arguments, or of a list of whole numbers"),
    "max": (1, -1, "the largest of its arguments, or of a list of whole numbers"),
    "abs": (1, 1, "the absolute value of a whole number"),
    "size": (1, 1, "the number of items in a list or set"),
    "includes": (2, 2, "whether a list holds every item of another, counting repeats"),
    "without": (2, 2, "a list less the items of another, one for one"),
    "take": (2, 2, "the first n items of a list"),
    "drop": (2, 2, "a list less its first n items"),
    "last": (1, 1, "the last item of a list"),
    "distinct": (1, 1, "a list without repeats, in first-seen order"),
    "repeat": (2, 2, "a list of n copies of a value"),
    "flatten": (1, 1, "a list of lists joined into one list"),
    "subsets": (
        2,
        2,
        "the sub-lists of a list of 1 to n items, each in the list's order, fewest first, each"
        " choice of items once: subsets(xs, n)",
    ),
    "shuffled": (
        1,
        1,
        "a list in an order drawn at random by the player of a random game (referee play),"
        " from its seed; allowed only in `propose` and `alternatives`, which suggest and never"
        " judge; where no player draws (the referee's own suggestions), the list as it is",
    ),
    "clamp": (3, 3, "a whole number held between a least and a most value: clamp(x, lo, hi)"),
    "hex_distance": (
        4,
        4,
        "the hexes between two hexes of a grid, given by column and row:"
        " hex_distance(c1, r1, c2, r2); columns run up and down, and each even column sits"
        " half a hex lower than the odd ones beside it",
    ),
}


def hex_axial(column: int, row: int) -> tuple[int, int]:
    """A hex's axial coordinates (q, r) from its column and row, even columns half a hex
    lower (column 1 is odd): neighbours differ by one of six fixed steps."""
    q = column - 1
    return q, row - (q - (q & 1)) // 2


def hex_distance(c1: int, r1: int, c2: int, r2: int) -> int:
    """The number of hex steps from one hex to another: 1 for neighbours, 0 for the same."""
    q1, a1 = hex_axial(c1, r1)
    q2, a2 = hex_axial(c2, r2)
    dq, dr = q2 - q1, a2 - a1
    return (abs(dq) + abs(dq + dr) + abs(dr)) // 2
