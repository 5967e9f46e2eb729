"""The server-wide stepping gate (`burgerbot.app.pacing`): a session alone never waits, a
busy one yields to a less busy one. A fake clock: nothing here is timed."""

from __future__ import annotations

import threading
import time

import pytest

from burgerbot.app.pacing import HAMMERING_S, WAITING_WEIGHT, CpuGate


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_busy(gate: CpuGate, clock: FakeClock, who: str, seconds: float) -> None:
    """``who`` holds the gate for ``seconds`` of the fake clock."""
    with gate.turn(who):
        clock.now += seconds


def until(check, what: str) -> None:
    """Wait (a thread's progress, not a timing) until ``check()`` holds."""
    for _ in range(2000):
        if check():
            return
        time.sleep(0.005)
    raise AssertionError(f"never happened: {what}")


def in_thread(gate: CpuGate, who: str, order: list[str]) -> threading.Thread:
    def go() -> None:
        with gate.turn(who):
            order.append(who)

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread


def test_a_session_alone_never_waits_nor_yields_however_busy(clock):
    gate = CpuGate(clock=clock)
    for _ in range(50):
        with gate.turn("learner") as turn:
            clock.now += 2.0  # a heavy piece, then another
            assert not turn.piece_done()
            clock.now += 2.0
        assert not turn.waited and turn.yielded == 0
    assert gate.busy("learner") > 10  # it was busy: being alone is what spared it
    assert gate.holder() is None and gate.waiting() == []


def test_a_busy_session_yields_to_a_less_busy_one_between_pieces(clock):
    gate = CpuGate(clock=clock)
    order: list[str] = []
    with gate.turn("hammer") as turn:
        clock.now += 5.0
        visitor = in_thread(gate, "visitor", order)
        until(lambda: gate.waiting() == ["visitor"], "the visitor waits")
        assert order == []  # the piece under way is not cut short
        assert turn.piece_done()  # gives the gate to the visitor, then gets it back
        order.append("hammer")
        visitor.join(5)
    assert order == ["visitor", "hammer"]
    assert turn.waited and turn.yielded == 1


def test_a_less_busy_holder_keeps_the_gate_from_a_busier_waiter(clock):
    gate = CpuGate(clock=clock)
    make_busy(gate, clock, "hammer", 30.0)
    order: list[str] = []
    with gate.turn("visitor") as turn:
        hammer = in_thread(gate, "hammer", order)
        until(lambda: gate.waiting() == ["hammer"], "the hammer waits")
        assert not turn.piece_done()
        order.append("visitor")
    hammer.join(5)
    assert order == ["visitor", "hammer"]
    assert not turn.waited


def test_the_least_busy_waiter_goes_next_whoever_came_first(clock):
    gate = CpuGate(clock=clock)
    make_busy(gate, clock, "busier", 3.0)
    make_busy(gate, clock, "less busy", 1.0)
    order: list[str] = []
    with gate.turn("holder"):
        first = in_thread(gate, "busier", order)
        until(lambda: gate.waiting() == ["busier"], "the busier one waits")
        second = in_thread(gate, "less busy", order)
        until(lambda: gate.waiting() == ["busier", "less busy"], "both wait")
    first.join(5)
    second.join(5)
    assert order == ["less busy", "busier"]


def test_busy_seconds_halve_every_half_life(clock):
    gate = CpuGate(half_life_s=10.0, clock=clock)
    make_busy(gate, clock, "tab", 4.0)
    assert gate.busy("tab") == pytest.approx(4.0)
    clock.now += 10.0
    assert gate.busy("tab") == pytest.approx(2.0)
    clock.now += 20.0
    assert gate.busy("tab") == pytest.approx(0.5)
    assert gate.busy("never seen") == 0.0


def test_waiting_counts_half_as_much_as_holding(clock):
    """So a tab kept waiting catches up on the tabs served, rather than falling behind."""
    gate = CpuGate(clock=clock)
    order: list[str] = []
    with gate.turn("holder"):
        waiter = in_thread(gate, "waiter", order)
        until(lambda: gate.waiting() == ["waiter"], "the waiter waits")
        clock.now += 4.0
    waiter.join(5)
    assert order == ["waiter"]
    assert gate.busy("holder") == pytest.approx(4.0)
    assert gate.busy("waiter") == pytest.approx(WAITING_WEIGHT * 4.0)


def test_a_turn_sees_whether_a_hammering_session_waits(clock):
    gate = CpuGate(clock=clock)
    order: list[str] = []
    with gate.turn("hammer"):
        clock.now += 2 * HAMMERING_S  # it held the gate for a while: it is hammering
    with gate.turn("visitor") as turn:
        assert not turn.hammering_waits()  # nobody waits
        learner = in_thread(gate, "learner", order)
        until(lambda: gate.waiting() == ["learner"], "the learner waits")
        clock.now += 4 * HAMMERING_S  # kept waiting long, as in a crowd
        assert not turn.hammering_waits()  # waiting is not hammering
        hammer = in_thread(gate, "hammer", order)
        until(lambda: gate.waiting() == ["learner", "hammer"], "the hammer waits")
        assert turn.hammering_waits()
    learner.join(5), hammer.join(5)
    assert sorted(order) == ["hammer", "learner"]
    assert gate.busy("learner") > 0 and gate.held("learner") == 0  # its wait made it busy
