"""Budgets for evaluating rules: time, sizes and the growth of integers.

A spec or a data directory may come from the user (``--spec``, ``--data``), so evaluating
the rules must not be able to hang or exhaust the referee. The sizes are checked where a
value is made (a range, a repeated list, a product of integers); the time is checked by an
interval timer, so that no evaluation step pays for it. Each budget broken is a located
error: the expression that made the value, or the record that took too long.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from referee.errors import RefereeError, Span, fail

MAX_ITEMS = 1_000_000  # items of a range or of a repeated list
MAX_INT_BITS = 4_096  # about 1,233 decimal digits: well within what Python prints
DEFAULT_TIME_LIMIT = 50.0  # seconds to judge one record: under a minute, whatever it holds


MAX_TIME_LIMIT = 86_400.0  # a day: longer is taken as a day (timers overflow past it)


def time_limit_seconds() -> float:
    """Seconds one record may take: REFEREE_TIME_LIMIT (at most a day), else 50."""
    try:
        value = float(os.environ.get("REFEREE_TIME_LIMIT", DEFAULT_TIME_LIMIT))
    except ValueError:
        return DEFAULT_TIME_LIMIT
    if value != value or value <= 0:  # not a number, or no time at all
        return DEFAULT_TIME_LIMIT
    return min(value, MAX_TIME_LIMIT)


# the deadlines (time.monotonic()) of the time limits running, the innermost last
_DEADLINES: list[float] = []


class TimeUp(BaseException):
    """The time limit passed. A BaseException, so that no ``except Exception`` in the rules'
    evaluation swallows it."""


def _time_up(signum: int, frame: Any) -> None:
    if _DEADLINES:  # a signal still pending once every limit is over raises nothing
        raise TimeUp


# Once a timer has fired it fires again every RETRY seconds until it is disarmed: an
# exception raised where Python cannot pass it on (a garbage collector's callback, a
# __del__) is only printed, and the work would otherwise run on unbounded.
RETRY = 0.1


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeUp in this (main) thread once ``seconds`` have passed; nothing where
    interval timers do not exist or off the main thread. Inside another time limit, it
    is the shorter of the two: a command's budget holds however its work is divided, and
    the outer limit's timer runs on once the inner one is over."""
    try:
        old = signal.signal(signal.SIGALRM, _time_up)
    except (AttributeError, ValueError):  # no SIGALRM here, or not the main thread
        yield
        return
    now = time.monotonic()
    deadline = min([now + seconds, *_DEADLINES[-1:]])
    _DEADLINES.append(deadline)
    signal.setitimer(signal.ITIMER_REAL, max(deadline - now, 1e-3), RETRY)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _DEADLINES.pop()
        signal.signal(signal.SIGALRM, old)
        if _DEADLINES:  # the outer limit's time left (none left: it is up at once)
            left = max(_DEADLINES[-1] - time.monotonic(), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, RETRY)


def span_range(lo: Any, hi: Any, where: Span) -> tuple[int, ...]:
    """``lo..hi``, refused (at ``where``) when it would hold more than MAX_ITEMS items."""
    if isinstance(lo, int) and isinstance(hi, int) and hi - lo + 1 > MAX_ITEMS:
        raise fail(where, f"range {lo}..{hi} has more than {MAX_ITEMS:,} items")
    return tuple(range(lo, hi + 1))


def repeated(value: Any, times: Any, where: Span | None = None) -> tuple[Any, ...]:
    """``repeat(value, times)``, refused when it would hold more than MAX_ITEMS items."""
    if isinstance(times, int) and times > MAX_ITEMS:
        raise fail(
            where or Span("<rules>", 0, 0), f"repeat of {times:,} items: the limit is {MAX_ITEMS:,}"
        )
    out: tuple[Any, ...] = (value,) * max(times, 0)
    return out


def times(a: Any, b: Any) -> Any:
    """``a * b``, refused when integers would grow past MAX_INT_BITS bits."""
    if (
        isinstance(a, int)
        and isinstance(b, int)
        and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1
    ):
        raise too_big()
    return a * b


def plus(a: Any, b: Any) -> Any:
    """``a + b``, refused when integers grow past MAX_INT_BITS bits, or lists past MAX_ITEMS."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) + len(b) > MAX_ITEMS:
        raise too_many(len(a) + len(b))
    return _bounded(a + b)


def too_many(n: int) -> RefereeError:
    return fail(Span("<rules>", 0, 0), f"a list of {n:,} items: the limit is {MAX_ITEMS:,}")


def flattened(lists: Any) -> tuple[Any, ...]:
    """``flatten(xs)``, refused when it would hold more than MAX_ITEMS items."""
    n = sum(len(xs) for xs in lists)
    if n > MAX_ITEMS:
        raise too_many(n)
    return tuple(x for xs in lists for x in xs)


def minus(a: Any, b: Any) -> Any:
    """``a - b``, refused when integers grow past MAX_INT_BITS bits."""
    return _bounded(a - b)


_BOUND = 1 << MAX_INT_BITS


def _bounded(out: Any) -> Any:
    if type(out) is int and not -_BOUND < out < _BOUND:
        raise too_big()
    return out


def too_big() -> RefereeError:
    return fail(
        Span("<rules>", 0, 0), f"an integer grew past {MAX_INT_BITS:,} bits: the rules' limit"
    )


_T = TypeVar("_T")


def within_limit(work: Callable[[], _T], where: str, doing: str, hint: str = "") -> _T:
    """``work()`` under the time limit for one record (REFEREE_TIME_LIMIT); past it, a
    located error at ``where`` saying that ``doing`` (judging the record, say) took too long."""
    limit = time_limit_seconds()
    try:
        with time_limit(limit):
            return work()
    except TimeUp:
        raise fail(
            Span(where, 0, 0), f"stopped: {doing} took longer than the limit of {limit:g} s", hint
        ) from None
