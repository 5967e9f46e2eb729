"""A server-wide gate for stepping work: one session computes at a time, the least busy first.

Python threads share one interpreter lock: five sessions computing steps at once make a
sixth one's click about six times slower, however little it asks. So the stepper's work
(the steps a page takes ahead of the learner's clicks and their views) goes through one
gate, in small pieces: between two pieces a session gives the gate up when a less busy
session is waiting. A learner alone never waits (nobody else holds the gate or waits for
it); a visitor clicking at a learner's pace waits at most one piece of a hammering
session's work; hammering sessions share what is left in turns.

How busy a session is: the seconds it has recently held the gate, plus half the seconds
it waited for it (`WAITING_WEIGHT`), halved every `HALF_LIFE_S` seconds. Wall time rather
than CPU time: a tab that asks again as soon as it is answered is always busy, a learner
clicking now and then is not, even when one of its requests costs as much CPU as one of the
hammering tab's.

Example:
    >>> gate = CpuGate()
    >>> with gate.turn("alone") as turn:
    ...     turn.waited, turn.piece_done()  # nobody else: no wait, no yielding
    (False, False)
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["HALF_LIFE_S", "HAMMERING_S", "STEPPING", "WAITING_WEIGHT", "CpuGate", "Turn"]

HALF_LIFE_S = 10.0
"""A session's busy seconds halve every this many seconds."""
WAITING_WEIGHT = 0.5
"""A second spent waiting for the gate counts this much as one spent holding it: waiting
marks a tab that asks all the time, yet one kept waiting must catch up on the ones served
(counted in full, the tabs served most would stay the least busy and be served first)."""
HAMMERING_S = 1.0
"""A session that has held the gate this long (`CpuGate.held`, halved every `HALF_LIFE_S`)
asks all the time (it hammers): a tab that asks again as soon as it is answered climbs to
several seconds; a learner stepping once a second, in a class of 100, stays near 0.05 s."""


@dataclass
class Turn:
    """One session's hold on the gate (`CpuGate.turn`)."""

    gate: CpuGate
    who: Hashable
    waited: bool = False
    """Whether this turn had to wait for another session, at its start or at a piece."""
    yielded: int = 0
    """How many times it gave the gate up to a less busy session between pieces."""
    _started: float = field(default=0.0, repr=False)

    def hammering_waits(self) -> bool:
        """Whether a hammering session (one that held the gate `HAMMERING_S` or more,
        `CpuGate.held`) waits for the gate now."""
        return any(self.gate.held(who) >= HAMMERING_S for who in self.gate.waiting())

    def piece_done(self) -> bool:
        """Between two pieces of work: give the gate up to a less busy waiting session, if
        any, and wait for it back. Returns whether it did."""
        return self.gate._between_pieces(self)


class CpuGate:
    """Lets one session at a time compute, choosing the least busy waiter.

    Args:
        half_life_s: How fast a session's busy seconds are forgotten.
        clock: Wall time (`time.monotonic`; a fake one in tests).
    """

    def __init__(
        self, half_life_s: float = HALF_LIFE_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.half_life_s = half_life_s
        self._clock = clock
        self._changed = threading.Condition()
        self._holder: Hashable | None = None
        self._waiting: dict[int, Hashable] = {}  # ticket (arrival order) -> session
        self._tickets = itertools.count()
        # session -> (busy s, held s, as of): both halve every half_life_s from "as of"
        self._used: dict[Hashable, tuple[float, float, float]] = {}

    # --- How busy -------------------------------------------------------------------------------

    def _decayed(self, who: Hashable) -> tuple[float, float]:
        """``who``'s busy and held seconds now."""
        busy, held, at = self._used.get(who, (0.0, 0.0, 0.0))
        factor = 0.5 ** ((self._clock() - at) / self.half_life_s)
        return busy * factor, held * factor

    def held(self, who: Hashable) -> float:
        """``who``'s seconds holding the gate (waiting not counted), halved every
        ``half_life_s`` since: what tells a hammering tab from a learner kept waiting in a
        crowd, whose waiting makes it busy too."""
        return self._decayed(who)[1]

    def busy(self, who: Hashable) -> float:
        """``who``'s seconds holding the gate plus `WAITING_WEIGHT` times those waiting
        for it, each halved every ``half_life_s`` since."""
        return self._decayed(who)[0]

    def _charge(self, turn: Turn, waiting: bool = False) -> None:
        """Add the time since ``turn``'s last charge to its session's busy seconds (at
        `WAITING_WEIGHT` if it was ``waiting``) and, if it held the gate, to its held ones."""
        now = self._clock()
        spent = max(0.0, now - turn._started)
        turn._started = now
        busy, held = self._decayed(turn.who)
        if waiting:
            self._used[turn.who] = (busy + WAITING_WEIGHT * spent, held, now)
        else:
            self._used[turn.who] = (busy + spent, held + spent, now)
        # Forget sessions whose use has faded (bounded memory with many visitors).
        if len(self._used) > 256:
            for who in [w for w in self._used if self.busy(w) < 1e-3]:
                del self._used[who]

    # --- Holding --------------------------------------------------------------------------------

    def _next(self) -> int | None:
        """The ticket of the waiter to go next: the least busy, then the first come."""
        if not self._waiting:
            return None
        return min(self._waiting, key=lambda t: (self.busy(self._waiting[t]), t))

    def _acquire(self, who: Hashable) -> bool:
        """Hold the gate for ``who``; returns whether it had to wait (call with the lock)."""
        if self._holder is None and not self._waiting:
            self._holder = who
            return False
        ticket = next(self._tickets)
        self._waiting[ticket] = who
        try:
            while not (self._holder is None and self._next() == ticket):
                self._changed.wait()
        finally:
            del self._waiting[ticket]
        self._holder = who
        return True

    def _release(self) -> None:
        self._holder = None
        self._changed.notify_all()

    @contextmanager
    def turn(self, who: Hashable) -> Iterator[Turn]:
        """Hold the gate for ``who`` (a session) while the ``with`` block computes; call
        `Turn.piece_done` between its pieces of work."""
        turn = Turn(self, who, _started=self._clock())
        with self._changed:
            turn.waited = self._acquire(who)
            self._charge(turn, waiting=True)
        try:
            yield turn
        finally:
            with self._changed:
                self._charge(turn)
                self._release()

    def _between_pieces(self, turn: Turn) -> bool:
        with self._changed:
            self._charge(turn)
            ticket = self._next()
            if ticket is None or self.busy(self._waiting[ticket]) >= self.busy(turn.who):
                return False
            self._release()
            self._acquire(turn.who)
            self._charge(turn, waiting=True)
        turn.waited = True
        turn.yielded += 1
        return True

    def holder(self) -> Hashable | None:
        """The session holding the gate now, if any."""
        with self._changed:
            return self._holder

    def waiting(self) -> list[Hashable]:
        """The sessions waiting for the gate now, in arrival order."""
        with self._changed:
            return [self._waiting[t] for t in sorted(self._waiting)]


STEPPING = CpuGate()
"""The server's gate for the stepper's work (steps taken ahead and their views)."""
