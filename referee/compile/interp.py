"""Evaluate expressions of the checked tree (statements, state writes and the standing rules are
execute.py's Interpreter, built on this Evaluator).

Values: int, bool, str (text and enum values alike: the checker keeps enums
apart), dict (records), tuple (lists), frozenset (sets). Every call of a
definition or table can be recorded in a trace, so that a verdict can show the
numbers that decided it and the clause each number comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any

from referee.budget import span_range
from referee.compile import closures
from referee.compile.builtins import _builtin, _unique, args_key, forget_keys, key_of
from referee.compile.coverage import Coverage
from referee.compile.shown import SHOWN_VALUE, brief, show
from referee.compile.source import body, expression, worth_it
from referee.errors import Span, fail
from referee.parse import ast
from referee.resolve.purity import _derived_definitions, _pure_definitions
from referee.resolve.symbols import Symbols


@dataclass
class TraceEntry:
    """One evaluated call: ``size_penalty(5) = 1`` from clause 7.3.5."""

    name: str
    clause: str
    args: tuple[Any, ...]
    result: Any
    depth: int
    overlay: str = ""  # the overlay whose amendment was evaluated, if any
    params: tuple[str, ...] = ()  # the parameters' names, as the spec declares them

    def __str__(self) -> str:
        names = self.params if len(self.params) == len(self.args) else ("",) * len(self.args)
        args = ", ".join(
            f"{n}: {brief(a)}" if n else brief(a) for n, a in zip(names, self.args, strict=True)
        )
        source = f"{self.clause} as amended by {self.overlay}" if self.overlay else self.clause
        return f"{self.name}({args}) = {brief(self.result)}  ({source})"


# What evaluating the rules may raise on values they were never meant to meet (a position
# the rules never reach in play, values a failed check was guarding, a record's ``expect:``
# key that indexes past the end of a list): the caller says where, never a traceback.
RULES_FAILURES = (
    ArithmeticError,
    AttributeError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
    RecursionError,
)


def failure(err: BaseException) -> str:
    """What went wrong evaluating the rules, in words rather than Python's."""
    if isinstance(err, RecursionError):
        return "an expression nested too deeply to evaluate"
    if isinstance(err, IndexError):
        return "an index past the end of a list"
    if isinstance(err, ZeroDivisionError):
        return "division by zero"
    if isinstance(err, KeyError):
        return f"no entry for {show(err.args[0]) if err.args else 'it'}"
    return f"{type(err).__name__}: {err}"


class CheckFailed(Exception):
    """A ``check`` whose requirement does not hold: the event is illegal."""

    def __init__(
        self,
        req: ast.Require,
        message: str,
        trace: list[TraceEntry],
        span: Span,
        args: dict[str, Any],
        decisive: list[TraceEntry] | None = None,
    ) -> None:
        super().__init__(message)
        self.req = req
        self.message = message
        self.trace = trace  # every call evaluated on the way
        self.decisive = trace if decisive is None else decisive  # the condition's own calls
        self.span = span
        self.bound = args


@dataclass
class Evaluator:
    sym: Symbols
    externs: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    trace: list[TraceEntry] | None = None
    components: Mapping[str, list[Any]] = field(default_factory=dict)
    # game state: a value per state name; for a keyed state, a dict by key
    state: dict[str, Any] = field(default_factory=dict)
    # the running procedure's variables
    frame: dict[str, Any] = field(default_factory=dict)
    # called for `do procedure(...)`: the engine runs it
    on_procedure: Callable[[ast.Procedure, tuple[Any, ...]], None] | None = None
    # overlays whose amended declarations were evaluated
    relied: set[str] = field(default_factory=set)
    # when a list, failed checks are collected here and the statements go on
    lenient: list[CheckFailed] | None = None
    # the overlays in force: a decision is relied on only while it is in force
    in_force: set[str] = field(default_factory=set)
    # calls deeper than this are not traced (a `let` keeps only its own call)
    trace_depth: int = 1_000_000
    # for each `let`, the calls that computed its value
    facts: dict[str, list[TraceEntry]] = field(default_factory=dict)
    # the random source of a player (referee play), for shuffled(...) in proposals; the
    # referee's own evaluations have none, and shuffled leaves a list as it is
    chance: Random | None = None
    _depth: int = 0
    _consts: dict[str, Any] = field(default_factory=dict)
    _pure: set[str] | None = None  # definitions that read no game state: their results are kept
    _memo: dict[tuple[Any, ...], tuple[Any, frozenset[Any], frozenset[str]]] = field(
        default_factory=dict
    )
    # Definitions that read game state, kept until a state cell they read is
    # written: (value, the cells read, the overlays relied on); for each cell,
    # the kept values that read it; and, while one is computed, what it reads.
    _derived_names: set[str] | None = None
    _kept_in: dict[str, bool] | None = None  # by name: True, kept until a read cell changes
    _derived: dict[tuple[Any, ...], tuple[Any, frozenset[Any], frozenset[str]]] = field(
        default_factory=dict
    )
    _readers: dict[tuple[str, Any], set[tuple[Any, ...]]] = field(default_factory=dict)
    _reading: list[tuple[set[Any], set[str]]] = field(default_factory=list)
    # when a list, every state write is noted in it with the value it replaced, so that
    # ``undo`` can put the state back as it was when the list was started
    journal: list[tuple[str, Any, bool, Any, frozenset[str] | None]] | None = None
    # state cells still holding a default whose computation relied on overlays
    _defaulted: dict[tuple[str, Any], frozenset[str]] = field(default_factory=dict)
    # keyed by the node's or list's address, kept with it so the address is never reused
    # (expressions and statements alike)
    _code: dict[int, tuple[Any, Callable[[dict[str, Any]], Any]]] = field(default_factory=dict)
    _index: dict[int, tuple[Any, dict[Any, Any]]] = field(default_factory=dict)
    # a definition's body as a function of its arguments, by its address (kept with it)
    _bodies: dict[int, tuple[Any, Callable[[tuple[Any, ...]], Any]]] = field(default_factory=dict)
    # the nodes compiled that are not the spec's (a record's expect: keys): forgotten by reset
    _transient: list[int] = field(default_factory=list)
    # Standing rules (`whenever`): enforced after every state write once ``standing_on`` is
    # set. Each rule, with each combination of its parameters' values, is an instance; an
    # instance is evaluated again only when a cell its condition read is written.
    standing_on: bool = False
    # when false, a failed check is not explained (no numbers, no message): trying proposals
    explain: bool = True
    # when true, what the rules tell is told even while ``explain`` is false: the legal
    # events `referee moves` lists say what each would do (a deployment's Impact)
    telling: bool = False
    # called by `game over` with the clause whose rule ended the game
    on_game_over: Callable[[str], None] | None = None
    # the standing rules that fired, in order: (rule, its parameters' values)
    fired: list[tuple[ast.Whenever, tuple[Any, ...]]] = field(default_factory=list)
    # what the rules told of, in order: (the tell, its text, its numbers by name)
    told: list[tuple[ast.TellStmt, str, list[tuple[str, Any]]]] = field(default_factory=list)
    _instances: list[tuple[ast.Whenever, tuple[Any, ...]]] | None = None
    _watch: dict[tuple[str, Any], set[int]] = field(default_factory=dict)
    _dirty: set[int] = field(default_factory=set)
    _enforcing: bool = False
    # the clause of the statement setting a state cell, while it sets it; and, for each cell,
    # the clause whose statement last set it (what computed its value)
    setter: str = ""
    set_by: dict[tuple[str, Any], str] = field(default_factory=dict)
    # when given, every requirement checked is counted in it (`referee play --coverage`)
    coverage: Coverage | None = None
    # The reference interpreter: every node walked as a tree each time it is evaluated, and
    # no value that read game state kept (only those of definitions of their arguments
    # alone); what the compiled closures and kept values must agree with
    # (tests/test_differential.py).
    reference: bool = False

    def __post_init__(self) -> None:
        if self.reference:
            self.eval = self._eval_node  # type: ignore[method-assign]
            self._kept_in = {n: False for n in self.pure()}

    # ------------------------------------------------------------ entry points
    def call(self, name: str, *args: Any) -> Any:
        """Call a definition, a table or an extern function by name."""
        d = self.sym.values.get(name)
        if d is None:
            raise KeyError(f"no definition named {name!r}")
        if isinstance(d, ast.ConstDecl):
            return self.const(d)
        return self._invoke(d, tuple(args))

    def const(self, d: ast.ConstDecl) -> Any:
        if d.decisions or (d.overlay and not self.weighed(d.name)):
            self._rely(d)
        if d.name not in self._consts:
            self._consts[d.name] = self.eval(d.value, {})
        value = self._consts[d.name]
        base = self.sym.replaced.get(d.name) if d.overlay else None
        if (
            isinstance(base, ast.ConstDecl)
            and self.aside(lambda: self.eval(base.value, {})) != value
        ):
            self._rely(d)
        return value

    def holds(self, req: ast.Require, env: dict[str, Any]) -> tuple[bool, str]:
        """Whether a requirement holds, and its message with the values filled in."""
        ok = bool(self.eval(req.cond, env))
        if ok:
            return True, ""
        text = "".join(
            p if isinstance(p, str) else brief(self.eval(p, env), SHOWN_VALUE) for p in req.parts
        )
        return ok, text

    # ------------------------------------------------------------ calls
    # An overlay that replaced a declaration is relied on only where it decided something:
    # where the base declaration, evaluated at that point with the same arguments, gives
    # another value (docs/rules-language.md). An added declaration, a `decided` one, is
    # relied on wherever it is evaluated.
    def weighed(self, name: str) -> bool:
        """Whether the declaration in force under this name replaced a base one."""
        return name in self.sym.replaced

    def aside(self, compute: Callable[[], Any]) -> Any:
        """A value computed as another reading would: nothing it relies on is relied on, and
        it is not traced; the state cells it reads still count as read (what is kept of the
        value it is compared with must be computed again when they change)."""
        relied, trace = self.relied, self.trace
        reading: tuple[set[Any], set[str]] = (set(), set())
        self.relied, self.trace = set(), None
        self._reading.append(reading)
        try:
            return compute()
        finally:
            self._reading.pop()
            self.relied, self.trace = relied, trace
            if self._reading:
                self._reading[-1][0].update(reading[0])

    def _rely_where_decided(self, d: ast.Decl, args: tuple[Any, ...], result: Any) -> None:
        base = self.sym.replaced[d.name]
        if key_of(self.aside(lambda: self._invoke_uncached(base, args))) != key_of(result):
            self._rely(d)

    def _rely(self, d: ast.Decl) -> None:
        if d.overlay:
            self.relied.add(d.overlay)
            if self._reading:
                self._reading[-1][1].add(d.overlay)
        for oid in d.decisions:
            if oid in self.in_force:
                self.relied.add(oid)
                if self._reading:
                    self._reading[-1][1].add(oid)

    def pure(self) -> set[str]:
        """The definitions and tables whose value depends on their arguments alone."""
        if self._pure is None:
            self._pure = _pure_definitions(self.sym)
        return self._pure

    def derived(self) -> set[str]:
        """The definitions read from game state (and nothing else) whose values are kept."""
        if self._derived_names is None:
            self._derived_names = _derived_definitions(self.sym, self.pure())
        return self._derived_names

    def _kept_kinds(self) -> dict[str, bool]:
        """The definitions whose values are kept, by name: True, until a cell they read is
        written; False, for good."""
        if self._kept_in is None:
            self._kept_in = {n: True for n in self.derived()} | {n: False for n in self.pure()}
        return self._kept_in

    def shuffled(self, xs: Any) -> tuple[Any, ...]:
        """``shuffled(xs)``: in an order drawn from the player's random source, if any."""
        out = list(xs)
        if self.chance is not None:
            self.chance.shuffle(out)
        return tuple(out)

    def _invoke(self, d: ast.Decl, args: tuple[Any, ...]) -> Any:
        if d.decisions or (d.overlay and not self.weighed(d.name)):
            self._rely(d)
        if self.trace is None or self._depth > self.trace_depth:  # not traced here
            derived = self._kept_kinds().get(d.name)
            if derived is not None:
                return self._invoke_kept(d, args, self._derived if derived else self._memo)
        return self._invoke_uncached(d, args)

    def _invoke_kept(
        self,
        d: ast.Decl,
        args: tuple[Any, ...],
        store: dict[tuple[Any, ...], tuple[Any, frozenset[Any], frozenset[str]]],
        key: tuple[Any, ...] | None = None,
    ) -> Any:
        """A kept value (pure definitions: for good; others: until a cell they read is
        written), with the overlays its computation relied on, which a reuse relies on too.
        ``key``: the definition's name and its arguments' key, if worked out already."""
        try:
            if key is None:
                key = (d.name, args_key(args))
            kept = store.get(key)
        except TypeError:  # an argument that cannot be a key
            return self._invoke_uncached(d, args)
        if kept is None:
            reading: tuple[set[Any], set[str]] = (set(), set())
            self._reading.append(reading)
            try:
                value = self._invoke_uncached(d, args)
            finally:
                self._reading.pop()
            kept = (value, frozenset(reading[0]), frozenset(reading[1]))
            # its readers first: stopped in between (a time limit), nothing stale is kept
            for cell in kept[1]:
                self._readers.setdefault(cell, set()).add(key)
            # a value kept for good read no state; one that did (a base reading compared
            # with it, to tell what an overlay decided) is not kept
            if store is not self._memo or not kept[1]:
                store[key] = kept
        else:
            self.relied |= kept[2]
        if self._reading:
            outer = self._reading[-1]
            outer[0].update(kept[1])
            outer[1].update(kept[2])
        return kept[0]

    def reset(self) -> None:
        """Ready for another game: no state, nothing kept that read it. What depends on the
        rules alone (compiled expressions, pure definitions' values) stays."""
        self.state, self.frame, self.facts = {}, {}, {}
        self.on_procedure, self.lenient, self.trace, self.journal = None, None, None, None
        self.relied = set()
        self.trace_depth, self._depth = 1_000_000, 0
        self._derived, self._readers, self._reading, self._defaulted = {}, {}, [], {}
        self.standing_on, self.on_game_over, self.fired, self.told = False, None, [], []
        self.explain, self.telling = True, False
        self._watch, self._enforcing = {}, False
        self.setter, self.set_by, self.coverage = "", {}, None
        self._dirty = set(range(len(self._instances))) if self._instances is not None else set()
        for node in self._transient:
            self._code.pop(node, None)
        self._transient = []
        forget_keys()  # the records' values it kept keys of

    def _written(self, cell: tuple[str, Any]) -> None:
        """A state cell changed: forget every kept value that read it."""
        for key in self._readers.pop(cell, ()):
            self._derived.pop(key, None)

    def enum_values(self, name: str) -> list[Any]:
        d = self.sym.types[name]
        assert isinstance(d, ast.EnumDecl)
        if d.values:
            return list(d.values)
        return [key_of(item) for item in self.components.get(d.from_data, ())]

    def _invoke_uncached(self, d: ast.Decl, args: tuple[Any, ...]) -> Any:
        self._depth += 1
        try:
            if isinstance(d, ast.Define):
                if self.reference:
                    env = {p.name: a for p, a in zip(d.params, args, strict=True)}
                    result = self.eval(d.body, env)
                else:
                    entry = self._bodies.get(id(d))
                    if entry is None:
                        entry = self._bodies[id(d)] = (d, body(self, d))
                    result = entry[1](args)
            elif isinstance(d, ast.TableDecl):
                result = self._lookup(d, args[0])
            elif isinstance(d, ast.Extern):
                fn = self.externs.get(d.name)
                if fn is None:
                    raise fail(d.span, f"the engine provides no function '{d.name}'")
                result = fn(*args)
            else:
                raise fail(d.span, f"'{d.name}' cannot be called")
            if d.overlay and self.weighed(d.name):
                self._rely_where_decided(d, args, result)
        finally:
            self._depth -= 1
        if (
            self.trace is not None
            and self._depth <= self.trace_depth
            and not isinstance(d, ast.Extern)
        ):
            self.trace.append(
                TraceEntry(d.name, d.clause, args, result, self._depth, d.overlay, _param_names(d))
            )
        return result

    def _lookup(self, d: ast.TableDecl, key: Any) -> Any:
        for row in d.rows:
            k = row.key
            if (
                (row.key_kind == "int" and key == k[0])
                or (row.key_kind == "range" and k[0] <= key <= k[1])
                or (row.key_kind == "from" and key >= k[0])
                or (row.key_kind == "upto" and key <= k[0])
                or (row.key_kind == "enum" and key == k[1])
                or (row.key_kind == "bool" and key is k[0])
            ):
                return self.eval(row.value, {})
        raise fail(
            d.span, f"table {d.name} has no row for {brief(key, SHOWN_VALUE)}", clause=d.clause
        )

    # ------------------------------------------------------------ expressions
    def eval(self, e: ast.Expr, env: dict[str, Any]) -> Any:
        """The value of an expression: each node is turned once into a Python closure."""
        try:
            code = self._code[id(e)][1]
        except KeyError:
            code = self.compiled(e)
        return code(env)

    def compiled(self, e: ast.Expr) -> Callable[[dict[str, Any]], Any]:
        """The closure that evaluates a node (made once; the node kept with it)."""
        entry = self._code.get(id(e))
        if entry is None:
            file = e.span.file
            # a record's (an expect: key) or the command line's: closures, and not kept
            theirs = bool(file) and not file.endswith(".rules")
            # the spec's own: Python source generated from the checked tree (source.py)
            ours = not (theirs or self.reference) and worth_it(e)
            entry = self._code[id(e)] = (
                e,
                expression(self, e) if ours else closures.compile_node(self, e),
            )
            if theirs:
                self._transient.append(id(e))
        return entry[1]

    def _item(self, o: Any, i: Any) -> Any:
        """``o[i]``: an item of a list by its place, or of a collection by its name."""
        return self._by_name(o, i) if isinstance(i, str) else o[i]

    def _eval_node(self, e: ast.Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a node
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            if e.id in self.frame:
                return self.frame[e.id]
            d = self.sym.values[e.id]
            if isinstance(d, ast.StateDecl):
                return self.read_state(d, ())
            assert isinstance(d, ast.ConstDecl)
            return self.const(d)
        if isinstance(e, ast.Call):
            assert isinstance(e.func, ast.Name)
            args = tuple(self.eval(a, env) for a in e.args)
            callee = self.sym.values.get(e.func.id)
            if callee is None:
                if e.func.id == "shuffled":
                    return self.shuffled(args[0])
                return _builtin(e.func.id, args)
            if isinstance(callee, ast.StateDecl):
                return self.read_state(callee, args)
            return self._invoke(callee, args)
        if isinstance(e, ast.BinOp):
            return self._binop(e, env)
        if isinstance(e, ast.Field):
            if isinstance(e.obj, ast.Name) and e.obj.id not in env and e.obj.id in self.sym.types:
                return e.name  # an enum literal: its value's name
            obj = self.eval(e.obj, env)
            return obj[e.name]
        if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit)):
            return e.value
        if isinstance(e, ast.If):
            return self.eval(e.then if self.eval(e.cond, env) else e.orelse, env)
        if isinstance(e, ast.Index):
            obj = self.eval(e.obj, env)
            index = self.eval(e.index, env)
            if isinstance(index, str):
                return self._by_name(obj, index)
            return obj[index]
        if isinstance(e, ast.ListLit):
            return tuple(self.eval(i, env) for i in e.items)
        if isinstance(e, ast.Not):
            return not self.eval(e.operand, env)
        if isinstance(e, ast.Text):
            return "".join(p if isinstance(p, str) else show(self.eval(p, env)) for p in e.parts)
        if isinstance(e, ast.Nothing):
            return None
        if isinstance(e, ast.RecordLit):
            return {name: self.eval(value, env) for name, value in e.fields}
        if isinstance(e, ast.Data):
            return self.components.get(e.collection, ())
        if isinstance(e, ast.Neg):
            return -self.eval(e.operand, env)
        if isinstance(e, ast.Range):
            return span_range(self.eval(e.lo, env), self.eval(e.hi, env), e.span)
        if isinstance(e, ast.Let):
            return self.eval(e.body, {**env, e.name: self.eval(e.value, env)})
        if isinstance(e, ast.Quant):
            return self._quant(e, e.binders, env)
        if isinstance(e, ast.Count):
            return sum(
                1
                for x in self.eval(e.domain, env)
                if e.where is None or self.eval(e.where, {**env, e.var: x})
            )
        if isinstance(e, ast.Comp):
            out = []
            for x in self.eval(e.domain, env):
                scope = {**env, e.var: x}
                if e.where is None or self.eval(e.where, scope):
                    out.append(self.eval(e.value, scope))
            return tuple(out)
        if isinstance(e, ast.Sum):
            total = 0
            for x in self.eval(e.domain, env):
                scope = {**env, e.var: x}
                if e.where is None or self.eval(e.where, scope):
                    total += self.eval(e.value, scope)
            return total
        raise AssertionError(f"cannot evaluate {type(e).__name__}")

    def _by_name(self, items: Any, name: str) -> Any:
        """``data places["A"]``: the item of a collection with that name or id."""
        entry = self._index.get(id(items))
        if entry is None:
            if not any(items is c for c in self.components.values()):
                # a list made on the way: looked through, not indexed (nor kept)
                return next((i for i in items if key_of(i) == name), None)
            entry = self._index[id(items)] = (items, {key_of(i): i for i in items})
        return entry[1].get(name)

    # ------------------------------------------------------------ state
    def read_state(self, d: ast.StateDecl, args: tuple[Any, ...]) -> Any:
        return self._read_cell(d, args, args_key(args) if d.params else None)

    def plain_key(self, params: list[ast.Param]) -> bool:
        """Whether arguments of these types are their own key: numbers, truth values, texts
        and enum values are (``args_key`` need not look at them)."""
        for p in params:
            if p.type.arg is not None:
                return False
            if p.type.name not in ("int", "bool", "text") and not isinstance(
                self.sym.types.get(p.type.name), ast.EnumDecl
            ):
                return False
        return True

    def _read_cell(self, d: ast.StateDecl, args: tuple[Any, ...], k: Any) -> Any:
        """``read_state``, the arguments' key ``k`` given."""
        if d.decisions:
            self._rely(d)
        table: dict[Any, Any] = self.state.setdefault(d.name, {}) if d.params else self.state
        key = k if d.params else d.name
        if self._reading:
            self._reading[-1][0].add((d.name, k))
        if key not in table:
            table[key] = self._default(d, args, (d.name, k))
        elif self._defaulted:
            relied = self._defaulted.get((d.name, k))
            if relied:  # a default still in place: what computed it is relied on again
                self.relied |= relied
                if self._reading:
                    self._reading[-1][1].update(relied)
        return table[key]

    def _default(self, d: ast.StateDecl, args: tuple[Any, ...], cell: tuple[str, Any]) -> Any:
        """A state cell's value before anything is written to it. The overlays its rule
        relied on are remembered: every later read relies on them too, whenever the default
        happened to be computed."""
        env = {p.name: a for p, a in zip(d.params, args, strict=True)}
        reading: tuple[set[Any], set[str]] = (set(), set())
        self._reading.append(reading)
        try:
            value = self.eval(d.value, env)
        finally:
            self._reading.pop()
        if reading[1]:
            self._defaulted[cell] = frozenset(reading[1])
            if self._reading:
                self._reading[-1][1].update(reading[1])
        return value

    def _quant(self, e: ast.Quant, binders: list[ast.Binder], env: dict[str, Any]) -> bool:
        if not binders:
            return bool(self.eval(e.body, env))
        b, rest = binders[0], binders[1:]
        results = (self._quant(e, rest, {**env, b.name: x}) for x in self.eval(b.domain, env))
        return all(results) if e.kind == "forall" else any(results)

    def _binop(self, e: ast.BinOp, env: dict[str, Any]) -> Any:
        if e.op == "and":
            return bool(self.eval(e.left, env)) and bool(self.eval(e.right, env))
        if e.op == "or":
            return bool(self.eval(e.left, env)) or bool(self.eval(e.right, env))
        if e.op == "implies":
            return not self.eval(e.left, env) or bool(self.eval(e.right, env))
        a = self.eval(e.left, env)
        b = self.eval(e.right, env)
        if e.op == "in":
            return a in b
        if e.op in ("//", "%") and b == 0:
            raise fail(e.span, "division by zero")
        return closures.OPS[e.op](a, b)


def _param_names(d: ast.Decl) -> tuple[str, ...]:
    if isinstance(d, ast.Define):
        return tuple(p.name for p in d.params)
    if isinstance(d, ast.TableDecl):
        return (d.param.name,)
    return ()


def _dedupe(trace: list[TraceEntry]) -> list[TraceEntry]:
    return list(_unique(trace, str))
