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
}
