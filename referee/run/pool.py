"""Work on every core where one bad item loses nothing but its own result.

Items go one at a time to a pool of worker processes. In a worker each item runs under a
time limit (an interval timer that raises in Python code, and a CPU timer whose signal ends
the process should the work be stuck in C); any exception it raises, RecursionError and
MemoryError included, becomes that item's failure. Should a worker die all the same (a
crash in C, a signal, the CPU timer) or the pool fall silent, the items it may have held are
run again one by one, each in a process of its own, and the one that kills its process or
outlives the limit is reported as such; every other item gets its result.

Workers end with the process that started them: on Linux the kernel kills them when it
dies (PR_SET_PDEATHSIG), and elsewhere each checks, between items, that its parent lives.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from referee.budget import TimeUp, time_limit, time_limit_seconds

T = TypeVar("T")
R = TypeVar("R")

# what happened to an item: ("ok", result) or ("failed", why)
Outcome = tuple[str, Any]

# How many items a worker may have waiting for it at once
IN_FLIGHT = 4

_PARENT = 0
_WORK: Callable[[Any], Any] | None = None
_STARTED: Any = None  # a byte per item, shared: 1 once a worker has taken it


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when its parent dies (Linux); in any case, end
    now if the parent is already gone."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _start(
    parent: int,
    started: Any,
    work: Callable[[Any], Any],
    setup: Callable[..., None],
    args: tuple[Any, ...],
) -> None:
    global _PARENT, _WORK, _STARTED
    _die_with_parent(parent)
    # a worker that crashes is reported by the batch; no Python dump of its own
    faulthandler.disable()
    _PARENT, _WORK, _STARTED = parent, work, started
    setup(*args)


def _guarded(index: int, item: Any) -> Outcome:
    """One item in a worker, under the time limit; its exception is its failure."""
    if os.getppid() != _PARENT:
        os._exit(1)  # the batch is gone: nobody waits for this
    assert _WORK is not None
    if _STARTED is not None:
        _STARTED[index] = 1
    limit = time_limit_seconds()
    # the CPU timer ends the process if the interval timer cannot stop the work
    with contextlib.suppress(AttributeError, ValueError):
        signal.setitimer(signal.ITIMER_PROF, limit * 2 + 5)
    try:
        with time_limit(limit):
            return ("ok", _WORK(item))
    except TimeUp:
        return ("failed", f"stopped: took longer than the limit of {limit:g} s")
    except RecursionError:
        return ("failed", "the referee failed on it: the rules nest too deeply (RecursionError)")
    except MemoryError:
        return ("failed", "the referee failed on it: out of memory")
    except Exception as err:  # noqa: BLE001 - the item's failure, not the batch's
        return ("failed", f"the referee failed on it ({type(err).__name__}: {err})")
    finally:
        with contextlib.suppress(AttributeError, ValueError):
            signal.setitimer(signal.ITIMER_PROF, 0)


def run_guarded(
    work: Callable[[T], R],
    items: list[T],
    setup: Callable[..., None],
    args: tuple[Any, ...],
    workers: int,
    tick: Callable[[], None] = lambda: None,
) -> list[Outcome]:
    """``work`` on every item in ``workers`` processes (each ``setup(*args)`` first): for
    each item, in order, ("ok", its result) or ("failed", why). ``tick`` after each item."""
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    started = context.RawArray("b", len(items))
    outcomes: dict[int, Outcome] = {}
    suspects: list[int] = []
    todo = list(range(len(items)))
    while todo:  # a round per pool: a pool that breaks leaves the items it never took
        _round(context, todo, items, started, outcomes, (work, setup, args), workers, tick)
        left = [i for i in todo if i not in outcomes]
        suspects += [i for i in left if started[i]]
        todo = [i for i in left if not started[i]]
    limit = time_limit_seconds()
    for i in sorted(suspects):  # each alone: the one that kills its process is found out
        outcomes[i] = _alone(context, i, items[i], (work, setup, args), limit)
        tick()
    return [outcomes[i] for i in range(len(items))]


def _round(
    context: Any,
    todo: list[int],
    items: list[Any],
    started: Any,
    outcomes: dict[int, Outcome],
    job: tuple[Callable[[Any], Any], Callable[..., None], tuple[Any, ...]],
    workers: int,
    tick: Callable[[], None],
) -> None:
    """The items of ``todo`` in one pool, until they are done or the pool breaks or stalls."""
    limit = time_limit_seconds()
    pool = ProcessPoolExecutor(
        min(workers, len(todo)), context, initializer=_start, initargs=(os.getpid(), started, *job)
    )
    # A few items a worker in flight, no more: waiting on a set of futures costs its size, so
    # a batch of thousands submitted at once would cost the batch's square.
    futures: dict[Any, int] = {}
    pending: set[Any] = set()
    queue = iter(todo)
    try:
        while True:
            for i in queue:
                f = pool.submit(_guarded, i, items[i])
                futures[f] = i
                pending.add(f)
                if len(pending) >= IN_FLIGHT * workers:
                    break
            if not pending:
                return
            done, pending = wait(pending, timeout=limit * 2 + 10, return_when=FIRST_COMPLETED)
            if not done:  # nothing finished for too long: a worker is stuck
                return
            for f in done:
                try:
                    outcomes[futures.pop(f)] = f.result()
                except BrokenProcessPool:
                    return
                tick()
    except BrokenProcessPool:  # on submitting: the items not submitted go to the next round
        return
    finally:
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(OSError, AttributeError):
                p.kill()
        pool.shutdown(wait=True, cancel_futures=True)


def _alone(
    context: Any,
    index: int,
    item: Any,
    job: tuple[Callable[[Any], Any], Callable[..., None], tuple[Any, ...]],
    limit: float,
) -> Outcome:
    """One item in a process of its own: its outcome, or how that process ended."""
    reader, writer = context.Pipe(duplex=False)
    proc = context.Process(target=_alone_child, args=(writer, index, item, job))
    proc.start()
    writer.close()
    outcome: Outcome | None = None
    stuck = not reader.poll(limit * 2 + 10)
    if not stuck:
        with contextlib.suppress(EOFError, OSError):
            outcome = reader.recv()
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    reader.close()
    if outcome is not None:
        return outcome
    if stuck:
        return ("failed", f"stopped: took longer than the limit of {limit:g} s")
    code = proc.exitcode or 0
    if code == -getattr(signal, "SIGPROF", 0):
        return ("failed", f"stopped: used more than {limit * 2 + 5:g} s of CPU")
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return ("failed", f"the referee crashed on it (killed by {name})")
    return ("failed", f"the referee crashed on it (exit code {code})")


def _alone_child(
    writer: Any,
    index: int,
    item: Any,
    job: tuple[Callable[[Any], Any], Callable[..., None], tuple[Any, ...]],
) -> None:
    _start(os.getppid(), None, *job)
    writer.send(_guarded(index, item))
    writer.close()
