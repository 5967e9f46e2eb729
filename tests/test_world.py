"""The BurgerBot rules as a hand-checked specification, and the tables derived from them."""

from __future__ import annotations

import numpy as np
import pytest

from burgerbot import world
from burgerbot.env import BurgerBotEnv

N, E, S, W = 0, 1, 2, 3
FWD, LEFT, RIGHT, STOP = 0, 1, 2, 3


def test_grid_layout_matches_the_rules_file():
    picture = [
        ". . . O . . .",
        ". O . . . O .",
        ". . . . . . .",
        "O . . O . . .",
        ". . . . . O .",
        ". O . . . . .",
        ". . . . . . G",
    ]
    for row, line in enumerate(picture):
        for col, cell in enumerate(line.split()):
            assert ((row, col) in world.OBSTACLES) == (cell == "O")
            assert ((row, col) == world.GOAL) == (cell == "G")
    assert world.START == (0, 0) and world.START_HEADING == E
    assert world.NUM_STATES == 196


# (row, col, heading) -> sensor level, counted by hand on the grid above.
SENSOR_CASES = [
    ((0, 0, E), 1),  # (0,1) (0,2) clear, then obstacle (0,3): 2 cells -> medium
    ((0, 0, N), 0),  # grid edge straight away
    ((0, 0, W), 0),
    ((0, 0, S), 1),  # (1,0) (2,0), then obstacle (3,0)
    ((0, 2, E), 0),  # obstacle adjacent: 0 cells
    ((2, 3, N), 0),  # (1,3) then obstacle (0,3): 1 cell -> near
    ((3, 1, E), 0),  # (3,2) then obstacle (3,3): 1 cell
    ((4, 3, W), 1),  # (4,2) (4,1) (4,0): 3 cells -> medium
    ((5, 2, E), 2),  # (5,3)..(5,6): 4 cells -> far
    ((2, 0, E), 2),  # 6 clear cells, capped at 5 -> far
    ((6, 0, E), 2),  # the goal cell counts as clear
    ((6, 0, N), 1),  # (5,0) (4,0), then obstacle (3,0)
    ((6, 6, N), 2),
    ((0, 6, S), 2),
    ((4, 4, E), 0),  # obstacle (4,5) adjacent
    ((2, 2, S), 2),  # (3,2) (4,2) (5,2) (6,2): 4 cells
]


def test_start_observation_is_what_reset_returns():
    # The rules file: at (0, 0) facing east, two clear cells, then the obstacle at (0, 3).
    assert world.START_OBSERVATION == (0, 0, E, 1)
    obs, _ = BurgerBotEnv().reset(seed=0)
    assert tuple(int(v) for v in obs) == world.START_OBSERVATION
    assert all(type(v) is int for v in world.START_OBSERVATION)
    assert world.OBSERVATION_FIELDS == ("row", "col", "heading", "sensor")
    assert len(world.OBSERVATION_FIELDS) == BurgerBotEnv().observation_space.shape[0]


@pytest.mark.parametrize(("state", "level"), SENSOR_CASES)
def test_sensor_levels(state, level):
    assert world.sensor(*state) == level


# (row, col, heading, action) -> (row, col, heading, reward, terminated)
TRANSITION_CASES = [
    # moves
    ((0, 0, E, FWD), (0, 1, E, 1.0, False)),
    ((2, 2, S, FWD), (3, 2, S, 1.0, False)),
    ((2, 2, W, FWD), (2, 1, W, 1.0, False)),
    ((2, 2, N, FWD), (1, 2, N, 1.0, False)),
    # turns wrap around, stop changes nothing
    ((0, 0, E, LEFT), (0, 0, N, -0.1, False)),
    ((0, 0, E, RIGHT), (0, 0, S, -0.1, False)),
    ((0, 0, N, LEFT), (0, 0, W, -0.1, False)),
    ((0, 0, W, RIGHT), (0, 0, N, -0.1, False)),
    ((4, 4, S, STOP), (4, 4, S, -0.1, False)),
    # each wall: the robot stays, -10, episode over
    ((0, 4, N, FWD), (0, 4, N, -10.0, True)),
    ((6, 2, S, FWD), (6, 2, S, -10.0, True)),
    ((2, 0, W, FWD), (2, 0, W, -10.0, True)),
    ((2, 6, E, FWD), (2, 6, E, -10.0, True)),
    # each obstacle, from at least one side
    ((0, 2, E, FWD), (0, 2, E, -10.0, True)),  # (0,3)
    ((1, 3, N, FWD), (1, 3, N, -10.0, True)),  # (0,3) from below
    ((0, 1, S, FWD), (0, 1, S, -10.0, True)),  # (1,1)
    ((1, 4, E, FWD), (1, 4, E, -10.0, True)),  # (1,5)
    ((2, 0, S, FWD), (2, 0, S, -10.0, True)),  # (3,0)
    ((3, 2, E, FWD), (3, 2, E, -10.0, True)),  # (3,3)
    ((4, 4, E, FWD), (4, 4, E, -10.0, True)),  # (4,5)
    ((5, 0, E, FWD), (5, 0, E, -10.0, True)),  # (5,1)
    ((6, 1, N, FWD), (6, 1, N, -10.0, True)),  # (5,1) from below
    # the goal, from the west and from the north
    ((6, 5, E, FWD), (6, 6, E, 50.0, True)),
    ((5, 6, S, FWD), (6, 6, S, 50.0, True)),
]


@pytest.mark.parametrize(("before", "after"), TRANSITION_CASES)
def test_transition_truth_table(before, after):
    out = world.transition(*before)
    assert (out.row, out.col, out.heading, out.reward, out.terminated) == after


def test_transition_names_the_event():
    assert world.transition(0, 2, E, FWD).event == "hit"
    assert world.transition(6, 5, E, FWD).event == "goal"
    assert world.transition(0, 0, E, FWD).event == "move"
    assert world.transition(0, 0, E, STOP).event == "turn_or_stop"


def test_transition_rejects_unknown_actions():
    with pytest.raises(ValueError, match="`action` must be 0, 1, 2 or 3, got 4"):
        world.transition(0, 0, E, 4)


def test_tables_agree_with_the_rules_for_every_state_and_action():
    t = world.TABLES
    for s in range(world.NUM_STATES):
        row, col, heading = world.state_of_index(s)
        assert world.state_index(row, col, heading) == s
        assert t.observation[s].tolist() == list(world.observe(row, col, heading))
        for action in range(world.NUM_ACTIONS):
            out = world.transition(row, col, heading, action)
            key = s * world.NUM_ACTIONS + action
            assert world.state_of_index(int(t.next_state[key])) == (out.row, out.col, out.heading)
            assert t.reward[key] == out.reward
            assert t.terminated[key] == out.terminated
    assert t.observation.dtype == np.int64 and t.reward.dtype == np.float64


def test_tables_are_read_only():
    with pytest.raises(ValueError):
        world.TABLES.reward[0] = 1.0


def test_ansi_picture_of_the_start():
    assert world.render_ansi(0, 0, E).splitlines() == [
        "> . . O . . .",
        ". O . . . O .",
        ". . . . . . .",
        "O . . O . . .",
        ". . . . . O .",
        ". O . . . . .",
        ". . . . . . G",
    ]
    assert world.render_ansi(2, 2, N).splitlines()[2] == ". . ^ . . . ."
    assert world.render_ansi(2, 2, S).splitlines()[2] == ". . v . . . ."
    assert world.render_ansi(2, 2, W).splitlines()[2] == ". . < . . . ."


def test_rgb_picture_blocks_and_heading():
    frame = world.render_rgb(0, 0, E)
    assert frame.shape == (224, 224, 3) and frame.dtype == np.uint8
    centre = 16
    assert tuple(frame[centre, 32 * 3 + centre]) == world.COLOURS["obstacle"]
    assert tuple(frame[32 * 6 + centre, 32 * 6 + centre]) == world.COLOURS["goal"]
    assert tuple(frame[32 * 2 + centre, 32 * 2 + centre]) == world.COLOURS["empty"]
    # Four headings give four different pictures of the robot's cell.
    cells = {h: world.render_rgb(2, 2, h)[64:96, 64:96].tobytes() for h in range(4)}
    assert len(set(cells.values())) == 4
    assert tuple(world.render_rgb(2, 2, N)[64 + 1, 64 + 1]) == world.COLOURS["robot"]
