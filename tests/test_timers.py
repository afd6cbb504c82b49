"""The interval timers that bound the referee's work (budget.time_limit, the moves listing's
share of its time): what stops the work when the first stop is lost, and which stop is whose.

CI's run once lost a stop: the processor-time timer fired inside hypothesis's garbage
collector callback, where Python only prints an exception, and the listing of a
half-million-candidate move ran on until the command's 50 s limit, which the listing then
took for its own share's end and listed nothing, end_movement included."""

from __future__ import annotations

import time

import pytest

from referee.budget import TimeUp, time_limit
from referee.run.moves import _within


def _spin_swallowing_once(cpu_seconds: float) -> str:
    """Busy work that loses the first stop it is given, as a callback Python cannot pass
    an exception out of loses it; 'ran to the end' if nothing stopped it a second time."""
    swallowed = 0
    start = time.process_time()
    while time.process_time() - start < cpu_seconds:
        try:
            for _ in range(10_000):
                pass
        except TimeUp:
            swallowed += 1
            if swallowed > 1:
                raise
    return "ran to the end"


def test_a_share_whose_first_stop_is_lost_is_stopped_again() -> None:
    assert _within(lambda: _spin_swallowing_once(3.0), 0.05) == (None, False)


def test_a_share_that_ends_in_time_keeps_its_value() -> None:
    assert _within(lambda: 6 * 7, 5.0) == (42, True)


def test_the_commands_time_limit_inside_a_share_stops_the_command_not_the_share() -> None:
    """The wall-clock limit (SIGALRM) passing while one action's candidates are listed is
    the whole command's end: it was caught as the share's end, and the listing went on."""

    def spin() -> None:
        start = time.process_time()
        while time.process_time() - start < 5.0:
            pass

    with pytest.raises(TimeUp), time_limit(0.05):
        _within(spin, 10.0)


def test_a_time_limit_whose_first_stop_is_lost_is_stopped_again() -> None:
    with pytest.raises(TimeUp), time_limit(0.05):
        _spin_swallowing_once(3.0)
