"""The rules of the BurgerBot world, written once as pure functions, plus lookup tables."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "ACTION_NAMES",
    "FORWARD",
    "GOAL",
    "GRID_SIZE",
    "HEADING_NAMES",
    "NUM_ACTIONS",
    "NUM_HEADINGS",
    "NUM_STATES",
    "OBSERVATION_FIELDS",
    "OBSTACLES",
    "START",
    "START_HEADING",
    "START_OBSERVATION",
    "STOP",
    "TURN_LEFT",
    "TURN_RIGHT",
    "Outcome",
    "Tables",
    "blocked_by",
    "build_tables",
    "is_free",
    "observe",
    "render_ansi",
    "render_rgb",
    "sensor",
    "state_index",
    "state_of_index",
    "transition",
]

GRID_SIZE = 7
OBSTACLES: frozenset[tuple[int, int]] = frozenset(
    {(0, 3), (1, 1), (1, 5), (3, 0), (3, 3), (4, 5), (5, 1)}
)
START = (0, 0)
GOAL = (6, 6)

# Headings: 0 north, 1 east, 2 south, 3 west. Each is a (row, col) step.
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
NUM_HEADINGS = 4
HEADING_NAMES = ("north", "east", "south", "west")
HEADING_DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
START_HEADING = EAST

FORWARD, TURN_LEFT, TURN_RIGHT, STOP = 0, 1, 2, 3
NUM_ACTIONS = 4
ACTION_NAMES = ("forward", "turn_left", "turn_right", "stop")

HIT_REWARD = -10.0
GOAL_REWARD = 50.0
MOVE_REWARD = 1.0
TURN_OR_STOP_REWARD = -0.1

SENSOR_CAP = 5
NUM_STATES = GRID_SIZE * GRID_SIZE * NUM_HEADINGS  # 196 (row, col, heading) states


def is_free(row: int, col: int) -> bool:
    """True when (row, col) is inside the grid and not an obstacle."""
    inside = 0 <= row < GRID_SIZE and 0 <= col < GRID_SIZE
    return inside and (row, col) not in OBSTACLES


def blocked_by(row: int, col: int, heading: int) -> str | None:
    """What stops a robot at (row, col) facing ``heading`` from moving forward: ``"edge"``
    (the cell ahead is outside the grid), ``"obstacle"``, or None (it is free).

    After a hit the robot has not moved, so its final observation tells which it hit.

    Example:
        >>> blocked_by(0, 0, NORTH), blocked_by(0, 2, EAST), blocked_by(0, 0, EAST)
        ('edge', 'obstacle', None)
    """
    d_row, d_col = HEADING_DELTAS[heading]
    ahead_row, ahead_col = row + d_row, col + d_col
    if not (0 <= ahead_row < GRID_SIZE and 0 <= ahead_col < GRID_SIZE):
        return "edge"
    return "obstacle" if (ahead_row, ahead_col) in OBSTACLES else None


def sensor(row: int, col: int, heading: int) -> int:
    """The sensor level: 0 near (0-1 clear cells ahead), 1 medium (2-3), 2 far (4+).

    Clear cells are counted from the adjacent cell along the heading, stopping at the
    grid edge or the first obstacle, and capped at 5.
    """
    d_row, d_col = HEADING_DELTAS[heading]
    clear = 0
    while clear < SENSOR_CAP and is_free(row + d_row * (clear + 1), col + d_col * (clear + 1)):
        clear += 1
    if clear <= 1:
        return 0
    if clear <= 3:
        return 1
    return 2


OBSERVATION_FIELDS = ("row", "col", "heading", "sensor")
"""What the four numbers of an observation are, in order (the column names of tables of
observations)."""


def observe(row: int, col: int, heading: int) -> tuple[int, int, int, int]:
    """The observation `[row, col, heading, sensor]` of a robot state."""
    return (row, col, heading, sensor(row, col, heading))


START_OBSERVATION = observe(*START, START_HEADING)
"""Every episode's first observation: `(0, 0, 1, 1)`."""


class Outcome(NamedTuple):
    """What one action does: the new state, the reward, whether the episode ends, and why."""

    row: int
    col: int
    heading: int
    reward: float
    terminated: bool
    event: str  # "hit", "goal", "move" or "turn_or_stop"


def transition(row: int, col: int, heading: int, action: int) -> Outcome:
    """Apply one action. Checks, in order: hit, goal reached, moved forward, turned or stopped."""
    if action == FORWARD:
        d_row, d_col = HEADING_DELTAS[heading]
        ahead = (row + d_row, col + d_col)
        if not is_free(*ahead):
            return Outcome(row, col, heading, HIT_REWARD, True, "hit")
        row, col = ahead
    elif action == TURN_LEFT:
        heading = (heading - 1) % NUM_HEADINGS
    elif action == TURN_RIGHT:
        heading = (heading + 1) % NUM_HEADINGS
    elif action != STOP:
        raise ValueError(f"`action` must be 0, 1, 2 or 3, got {action!r}")
    if (row, col) == GOAL:
        return Outcome(row, col, heading, GOAL_REWARD, True, "goal")
    if action == FORWARD:
        return Outcome(row, col, heading, MOVE_REWARD, False, "move")
    return Outcome(row, col, heading, TURN_OR_STOP_REWARD, False, "turn_or_stop")


def state_index(row: int, col: int, heading: int) -> int:
    """Number the 196 (row, col, heading) states 0..195."""
    return (row * GRID_SIZE + col) * NUM_HEADINGS + heading


def state_of_index(index: int) -> tuple[int, int, int]:
    """Inverse of :func:`state_index`."""
    cell, heading = divmod(index, NUM_HEADINGS)
    row, col = divmod(cell, GRID_SIZE)
    return row, col, heading


START_STATE = state_index(*START, START_HEADING)


class Tables(NamedTuple):
    """The world as arrays indexed by ``state * 4 + action`` (and observations by state)."""

    next_state: np.ndarray  # int64, (196 * 4,)
    reward: np.ndarray  # float64, (196 * 4,)
    terminated: np.ndarray  # bool, (196 * 4,)
    observation: np.ndarray  # int64, (196, 4)


def build_tables() -> Tables:
    """Tabulate :func:`transition` and :func:`observe` for every state and action."""
    size = NUM_STATES * NUM_ACTIONS
    next_state = np.empty(size, dtype=np.int64)
    reward = np.empty(size, dtype=np.float64)
    terminated = np.empty(size, dtype=np.bool_)
    observation = np.empty((NUM_STATES, 4), dtype=np.int64)
    for s in range(NUM_STATES):
        row, col, heading = state_of_index(s)
        observation[s] = observe(row, col, heading)
        for action in range(NUM_ACTIONS):
            out = transition(row, col, heading, action)
            key = s * NUM_ACTIONS + action
            next_state[key] = state_index(out.row, out.col, out.heading)
            reward[key] = out.reward
            terminated[key] = out.terminated
    for array in (next_state, reward, terminated, observation):
        array.flags.writeable = False
    return Tables(next_state, reward, terminated, observation)


TABLES = build_tables()

# Colours for the rgb_array picture (one 32x32 block per cell).
CELL_PIXELS = 32
COLOURS = {
    "empty": (236, 239, 241),
    "obstacle": (69, 90, 100),
    "goal": (102, 187, 106),
    "robot": (255, 160, 0),
    "nose": (120, 60, 0),
}
ROBOT_GLYPHS = "^>v<"


def render_ansi(row: int, col: int, heading: int) -> str:
    """The grid as text: one line per row, `^ > v <` for the robot, `O` obstacles, `G` goal."""
    lines = []
    for r in range(GRID_SIZE):
        cells = []
        for c in range(GRID_SIZE):
            if (r, c) == (row, col):
                cells.append(ROBOT_GLYPHS[heading])
            elif (r, c) in OBSTACLES:
                cells.append("O")
            elif (r, c) == GOAL:
                cells.append("G")
            else:
                cells.append(".")
        lines.append(" ".join(cells))
    return "\n".join(lines)


def _background() -> np.ndarray:
    size = GRID_SIZE * CELL_PIXELS
    image = np.empty((size, size, 3), dtype=np.uint8)
    image[:] = COLOURS["empty"]
    for r, c in OBSTACLES:
        _fill_cell(image, r, c, COLOURS["obstacle"])
    _fill_cell(image, *GOAL, COLOURS["goal"])
    # Thin grid lines so cells can be counted.
    image[::CELL_PIXELS, :] = (200, 205, 210)
    image[:, ::CELL_PIXELS] = (200, 205, 210)
    image.flags.writeable = False
    return image


def _fill_cell(image: np.ndarray, row: int, col: int, colour: tuple[int, int, int]) -> None:
    p = CELL_PIXELS
    image[row * p + 1 : (row + 1) * p, col * p + 1 : (col + 1) * p] = colour


BACKGROUND = _background()


def render_rgb(row: int, col: int, heading: int) -> np.ndarray:
    """A (224, 224, 3) uint8 picture; the robot's darker 'nose' shows its heading."""
    image = BACKGROUND.copy()
    _fill_cell(image, row, col, COLOURS["robot"])
    p = CELL_PIXELS
    top, left = row * p, col * p
    quarter, half = p // 4, p // 2
    nose = COLOURS["nose"]
    if heading == NORTH:
        image[top + 3 : top + 3 + quarter, left + half - 4 : left + half + 4] = nose
    elif heading == SOUTH:
        image[top + p - 3 - quarter : top + p - 3, left + half - 4 : left + half + 4] = nose
    elif heading == EAST:
        image[top + half - 4 : top + half + 4, left + p - 3 - quarter : left + p - 3] = nose
    else:
        image[top + half - 4 : top + half + 4, left + 3 : left + 3 + quarter] = nose
    return image
