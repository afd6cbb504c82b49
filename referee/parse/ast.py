"""The typed syntax tree of the rules language.

Every node carries its source span, so that the checker, the explainer and the
prover can all point back at the text a rule was written in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import NOWHERE, Span

# ---------------------------------------------------------------- types


@dataclass(frozen=True)
class TypeRef:
    """A type as written: a name (int, bool, text, an enum or a record) or a collection."""

    name: str
    arg: TypeRef | None = None  # element type for list / set
    span: Span = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.name} of {self.arg}" if self.arg else self.name


# ---------------------------------------------------------------- expressions


@dataclass
class Expr:
    span: Span = field(default=NOWHERE, kw_only=True)


@dataclass
class IntLit(Expr):
    value: int


@dataclass
class StrLit(Expr):
    value: str


@dataclass
class Text(Expr):
    """``"week {week}"``: text with values filled in."""

    parts: list[str | Expr]


@dataclass
class BoolLit(Expr):
    value: bool


@dataclass
class Nothing(Expr):
    """The absent value: a location with no castle has castle = nothing."""


@dataclass
class Data(Expr):
    """``data locations``: the items of a component collection."""

    collection: str


@dataclass
class Name(Expr):
    id: str


@dataclass
class Field(Expr):
    obj: Expr
    name: str


@dataclass
class Call(Expr):
    func: Expr
    args: list[Expr]


@dataclass
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass
class ListLit(Expr):
    items: list[Expr]


@dataclass
class RecordLit(Expr):
    """``{from: l, groups: [...]}``: arguments of an action, proposed for a random game."""

    fields: list[tuple[str, Expr]]


@dataclass
class BinOp(Expr):
    """Arithmetic (+ - * // %), comparison (== != < <= > >=), and, or, in."""

    op: str
    left: Expr
    right: Expr


@dataclass
class Not(Expr):
    operand: Expr


@dataclass
class Neg(Expr):
    operand: Expr


@dataclass
class Range(Expr):
    """``lo..hi``, both ends included."""

    lo: Expr
    hi: Expr


@dataclass
class If(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass
class Let(Expr):
    name: str
    value: Expr
    body: Expr


@dataclass
class Binder:
    name: str
    type: TypeRef | None
    domain: Expr
    span: Span = NOWHERE


@dataclass
class Quant(Expr):
    kind: str  # "forall" | "exists"
    binders: list[Binder]
    body: Expr


@dataclass
class Count(Expr):
    var: str
    domain: Expr
    where: Expr | None


@dataclass
class Comp(Expr):
    """``[b.mon for b in earlier where b.leader]``: a list built from another."""

    value: Expr
    var: str
    domain: Expr
    where: Expr | None


@dataclass
class Sum(Expr):
    value: Expr
    var: str
    domain: Expr
    where: Expr | None


# ---------------------------------------------------------------- statements


@dataclass
class Stmt:
    span: Span = field(default=NOWHERE, kw_only=True)


@dataclass
class SetStmt(Stmt):
    target: Expr
    op: str  # "=" | "+=" | "-="
    value: Expr
    clause: str = ""  # the clause that sets the value here (filled in by the checker)


@dataclass
class DoStmt(Stmt):
    name: str
    args: list[Expr]


@dataclass
class IfStmt(Stmt):
    cond: Expr
    then: list[Stmt]
    orelse: list[Stmt]


@dataclass
class ForStmt(Stmt):
    var: str
    domain: Expr
    body: list[Stmt]


@dataclass
class LetStmt(Stmt):
    name: str
    value: Expr


@dataclass
class CheckStmt(Stmt):
    """``check 7.3.1/no-pickup(n)``: the requirement must hold here, or the event is illegal."""

    ref: Ref
    args: list[Expr] | None

    def bind(
        self,
        req: Require,
        env: Mapping[str, Any],
        frame: Mapping[str, Any],
        evaluate: Callable[[Expr], Any],
    ) -> dict[str, Any]:
        """The requirement's parameters, as this check gives them: its arguments, each
        evaluated, or (a bare ``check``) the names in scope, else the procedure's vars. The
        interpreter and the prover read a check through this one binding."""
        if self.args is None:
            return {p.name: env[p.name] if p.name in env else frame[p.name] for p in req.params}
        values = [evaluate(a) for a in self.args]
        return {p.name: v for p, v in zip(req.params, values, strict=True)}


@dataclass
class GameOverStmt(Stmt):
    """``game over``: the game ends here; every procedure stops and no event may follow."""

    clause: str = ""  # the clause whose rule ends the game (filled in by the checker)


@dataclass
class TellStmt(Stmt):
    """``tell [label] "text {x}"``: an outcome of the event being judged, with its numbers
    (each interpolated expression, by its name or its source text)."""

    label: str
    text: str
    parts: list[str | Expr]
    names: list[tuple[str, Expr]]  # the numbers it shows, by name, in order
    clause: str = ""  # the clause it tells of: given, or the enclosing one (the checker)


# ---------------------------------------------------------------- declarations


@dataclass
class Param:
    name: str
    type: TypeRef
    span: Span = NOWHERE
    default: Expr | None = None  # a record field a record may leave out


@dataclass
class Decl:
    """Something a clause declares. ``clause`` is filled in when the clause is built."""

    name: str
    span: Span = field(default=NOWHERE, kw_only=True)
    clause: str = field(default="", kw_only=True)
    overlay: str = field(default="", kw_only=True)  # the overlay that put it in force, if any
    decisions: list[str] = field(default_factory=list, kw_only=True)  # decision ids it embodies

    kind = "declaration"


@dataclass
class EnumDecl(Decl):
    values: list[str]
    from_data: str = ""  # collection whose names are the values

    kind = "enum"


@dataclass
class RecordDecl(Decl):
    fields: list[Param]
    from_data: str = ""  # the collection whose items have this shape

    kind = "record"


@dataclass
class StateDecl(Decl):
    """Game state: one value, or (with params) one value per key, each starting at ``value``."""

    params: list[Param]
    type: TypeRef
    value: Expr

    kind = "state"


@dataclass
class ConstDecl(Decl):
    type: TypeRef
    value: Expr

    kind = "const"


@dataclass
class TableRow:
    """A key (an int, a range lo..hi, lo+ meaning lo and above, an enum literal, a bool)."""

    key_kind: str  # "int" | "range" | "from" | "upto" | "enum" | "bool"
    key: tuple[object, ...]
    value: Expr
    span: Span = NOWHERE


@dataclass
class TableDecl(Decl):
    param: Param
    type: TypeRef
    rows: list[TableRow]

    kind = "table"


@dataclass
class Define(Decl):
    params: list[Param]
    type: TypeRef
    body: Expr

    kind = "define"


@dataclass
class Require(Decl):
    """A labelled condition; ``name`` is its label, unique within its clause."""

    params: list[Param]
    cond: Expr
    message: str
    message_span: Span = NOWHERE
    parts: list[str | Expr] = field(default_factory=list)  # message, split and parsed

    kind = "require"


@dataclass
class Property(Decl):
    text: str
    body: Expr
    # a step invariant: it holds after every event the rules allow, if it held before
    invariant: bool = False
    # the bounded model: at most this many items in a list of each type (by its name)
    within: dict[str, int] = field(default_factory=dict)
    # a property after an action (with invariant set): it holds after every event of the
    # action named that the rules allow, whatever the position before; it reads the event's
    # arguments, and before(...) reads the position before the event
    after: str = ""
    # a property that an action is allowed (with invariant set): from every position at
    # rest, every event of the action named whose arguments and position satisfy the body
    # passes every check it makes
    allows: str = ""

    kind = "property"


@dataclass
class Extern(Decl):
    action: bool
    params: list[Param]
    type: TypeRef | None

    kind = "extern"


@dataclass
class Ref:
    """A reference to a clause (``7.3.1``) or one of its labels (``7.3.1/no-pickup``)."""

    clause: str
    label: str = ""
    span: Span = NOWHERE

    def __str__(self) -> str:
        return f"{self.clause}/{self.label}" if self.label else self.clause


# Fields an alternative may give besides the action's arguments: how a verdict shows it,
# and what makes two alike (of the legal ones with one key, only the first is offered).
ALTERNATIVE_FIELDS = ("shown", "key")


@dataclass
class Allow:
    name: str
    params: list[Param]
    requires: list[Ref]
    effects: list[Stmt]
    then: str
    span: Span = NOWHERE
    propose: Expr | None = None
    alternatives: Expr | None = None  # what else the actor could do when an event is refused
    clause: str = ""  # the clause it belongs to, cited when it is done out of turn
    choices: Expr | None = None  # every candidate, for listing the legal events (referee moves)


@dataclass
class Trigger(Decl):
    cond: Expr
    body: list[Stmt]

    kind = "trigger"


@dataclass
class Whenever(Decl):
    """A standing rule: a condition on the position that holds at any moment. Whenever its
    condition holds, for any values of its parameters, its statements run at once."""

    text: str
    params: list[Param]
    cond: Expr
    body: list[Stmt]

    kind = "whenever"


@dataclass
class Step:
    name: str
    actor: Expr | None
    allows: list[Allow]
    # (condition, next step or "" to finish), first match wins; a check (`ends unless`)
    # ends the step where its requirement does not hold
    ends: list[tuple[Expr | CheckStmt, str]]
    triggers: list[Trigger]
    enter: list[Stmt] = field(default_factory=list)
    span: Span = NOWHERE
    clause: str = ""  # the clause that makes this step due, if it names one


@dataclass
class VarDecl:
    name: str
    type: TypeRef
    value: Expr
    span: Span = NOWHERE


@dataclass
class Routine(Decl):
    params: list[Param]
    body: list[Stmt]

    kind = "routine"


@dataclass
class Procedure(Decl):
    title: str
    params: list[Param]
    vars: list[VarDecl]
    steps: list[Step]
    triggers: list[Trigger]

    kind = "procedure"


# ---------------------------------------------------------------- clauses, printings, overlays


@dataclass
class Clause:
    number: str
    title: str
    summary: str = ""
    printings: list[str] = field(default_factory=list)
    printing_spans: dict[str, Span] = field(default_factory=dict)
    informative: bool = False
    see: list[Ref] = field(default_factory=list)
    decls: list[Decl] = field(default_factory=list)
    span: Span = NOWHERE

    def label(self, name: str) -> Decl | None:
        for d in self.decls:
            if isinstance(d, (Require, Property, Trigger, Whenever)) and d.name == name:
                return d
        for d in self.decls:
            if isinstance(d, Procedure):
                for t in d.triggers + [t for s in d.steps for t in s.triggers]:
                    if t.name == name:
                        return t
        return None


@dataclass
class Printing:
    id: str
    title: str
    base: bool
    span: Span = NOWHERE


@dataclass
class Game:
    name: str
    title: str
    players: str = ""  # the type of the `by` of every event
    start: str = ""  # the procedure a game from its set-up runs
    turns: str = ""  # the state that counts the game's turns (play's --turns)
    span: Span = NOWHERE


@dataclass
class Change:
    """One amendment: replace or add a declaration, drop a condition, add an exception."""

    action: str  # "replace" | "add" | "drop" | "except"
    decl: Decl | None = None
    ref: Ref | None = None
    cond: Expr | None = None
    span: Span = NOWHERE


@dataclass
class Amend:
    clause: str
    changes: list[Change]
    span: Span = NOWHERE


@dataclass
class Overlay:
    id: str
    title: str
    kind: str = ""
    source: str = ""
    date: str = ""
    default: bool | None = None
    printings: list[str] = field(default_factory=list)
    amends: list[Amend] = field(default_factory=list)
    span: Span = NOWHERE


@dataclass
class Seen:
    """Who sees a piece of state (``kind`` "state": ``path`` its keys' names) or an argument of
    an event (``kind`` "event": ``path`` the argument, then fields inside it)."""

    kind: str
    name: str
    path: list[str]
    viewer: str  # "everybody", "nobody", "actor", or "side": the side ``side`` names
    side: Expr | None = None
    when: Expr | None = None
    clauses: list[str] = field(default_factory=list)
    span: Span = NOWHERE

    def target(self) -> str:
        """As the spec writes it: ``units_at(l, s)``, ``move.groups.blocks``."""
        if self.kind == "state":
            return f"{self.name}({', '.join(self.path)})" if self.path else self.name
        return ".".join([self.name, *self.path])


@dataclass
class Hidden:
    """What each seat sees: the secret types (by name; true: a hidden list of them is written
    as its size) and who sees each piece of state and each argument holding one."""

    title: str
    secret: dict[str, bool]
    seen: list[Seen] = field(default_factory=list)
    span: Span = NOWHERE


@dataclass
class Module:
    """One parsed .rules file."""

    file: str
    text: str
    games: list[Game] = field(default_factory=list)
    printings: list[Printing] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)
    overlays: list[Overlay] = field(default_factory=list)
    externs: list[Extern] = field(default_factory=list)
    hidden: list[Hidden] = field(default_factory=list)
