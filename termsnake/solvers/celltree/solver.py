"""``TreeSolver``: the cell tree, a Hamiltonian cycle around a spanning tree of 2x2 blocks,
re-planned toward the food at every move.

The board is cut into 2x2 blocks (``blocks``), or where they do not fit, into 2x2, 2x3 and 3x2
blocks (``tiling``). Inside a block the snake always goes round its rim the same way, so each
cell has two moves, and any spanning tree of the blocks makes one Hamiltonian cycle (the walk
around the tree). Each body cell fixes one tree edge (``mirror``);
the solver keeps "some spanning tree agrees with the body" (``spanning``), so the body is an arc
of a Hamiltonian cycle and following that cycle is always safe.

One move, from the top: on boards with dead ends, while the snake is short, the opening
(``opening``) may take the move, off the blocks' ways; else ``next_direction`` brings the
mirror up to date; in the late game (``late``) it follows its cycle; otherwise
``lookahead.choose`` takes the steps of the policy (``policy``): it keeps to a route kept from
earlier, or asks the planner (``planner``) for the cheapest path to the food and checks its
first step keeps the tree; where both moves do, it plays each out on a fork of the policy (a
copy of the mirror) and keeps the better route.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.celltree.blocks import BlockGrid, cuts, direction, leaf_blocks
from termsnake.solvers.celltree.config import TreeConfig
from termsnake.solvers.celltree.distances import FoodMaps
from termsnake.solvers.celltree.late import LateGame
from termsnake.solvers.celltree.lookahead import choose, food_index
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.opening import OVER, TREE, Opening
from termsnake.solvers.celltree.policy import Policy
from termsnake.solvers.celltree.spanning import body_fits, witness_cycle
from termsnake.solvers.grid import ARROWS
from termsnake.solvers.hampath import Limit


class TreeSolver:
    """The cell tree; it refuses boards that cannot be cut into blocks two cells wide."""

    name = "tree"

    def __init__(self, config: TreeConfig | None = None) -> None:
        self.config = config if config is not None else TreeConfig()
        self.policy: Policy | None = None  # the live line of play, once set up
        self.late: LateGame | None = None  # the late game, once it has begun
        self.opening: Opening | None = None  # the opening, until it hands over to the tree
        self.off_ways = False  # whether the opening moved since the tree last did

    @property
    def grid(self) -> BlockGrid:
        """The cut of the board the tree plays (once set up)."""
        assert self.policy is not None, "setup first"
        return self.policy.mirror.grid

    @property
    def late_game(self) -> bool:
        """Whether the late game has begun: the snake follows a fixed cycle, shortened at each
        food, off the blocks' ways."""
        return self.late is not None

    @property
    def walking_way(self) -> bool:
        """Whether the late game walks a shorter way to the food that it planned: then the
        cycle (``cycle``) is the one after that way, not yet the body's."""
        return self.late is not None and bool(self.late.lane)

    def follow(self, game: Game) -> Direction:
        """The late game's next move, along its way or its cycle, with no search for a new way
        (the move of ``next_direction`` without a plan of its own)."""
        assert self.late is not None, "the late game has not begun"
        return self.late.follow(game)

    def cycle(self, game: Game) -> list[int]:
        """The cycle the tree follows now, the body on it in order: cell index -> next cell
        (-1 off it)."""
        if self.late is not None:
            return self.late.ring
        assert self.policy is not None, "setup first"
        mirror = self.policy.mirror
        mirror.sync(game)
        return witness_cycle(mirror)

    @property
    def tiled(self) -> bool:
        """Whether the board is cut into blocks of other shapes than 2x2 (once set up)."""
        return self.policy is not None and self.policy.mirror.grid.tiled

    def setup(self, game: Game, grids: Iterable[BlockGrid | str] | None = None) -> None:
        """Cut the board into blocks that the start body fits (the first of ``grids``, if
        given, instead of the board's cuts); SolverUnavailable if none does."""
        self.policy = None
        self.late = None
        self.opening = None
        self.off_ways = False
        config = self.config
        reasons: list[str] = []  # why each cut does not fit the board, the last one's last
        body = ""  # why the body fits no cut of the board, if one does
        for grid in cuts(game.board) if grids is None else grids:
            if isinstance(grid, str):
                reasons.append(grid)
                continue
            mirror = BodyMirror.of(grid, game)
            why = body_fits(mirror)
            if why is None:
                maps = FoodMaps(grid, astar=config.astar)
                hug = config.hug_on(len(grid.blocks))
                self.policy = Policy(config, mirror, maps, shut=config.shut, hug=hug)
                blocks, free = len(grid.blocks), len(grid.open_cells)
                longest = config.opening_length(blocks, leaf_blocks(grid), free)
                if game.length <= longest:
                    margin = config.opening_margin
                    self.opening = Opening(mirror, game, length=longest, margin=margin)
                return
            body = body or why  # the board can be cut: the body is the reason
        raise SolverUnavailable(
            f"{self.name} cannot play {game.board.name}: it needs the board cut into blocks of "
            f"floor two cells wide with the start body along their ways, and no cut fits "
            f"({body or reasons[-1]}); try --ai best"
        )

    def next_direction(self, game: Game) -> Direction:
        """The opening's move while it plays, else ``lookahead.choose``'s, or once the late game
        has begun, its move."""
        policy = self.policy
        assert policy is not None, "setup first"
        if self.late is None:
            m = policy.mirror
            if self.opening is not None:
                nxt = self._opening_move(game)
                if nxt >= 0:
                    return direction(m.grid, m.head, nxt)
            m.sync(game)
            blocks = len(m.grid.blocks)
            if not self.config.late_game(blocks, len(m.grid.open_cells) - game.length):
                nxt = choose(policy, food_index(game), game.since_food, game)
                return direction(m.grid, m.head, nxt)
            config = self.config
            self.opening = None  # the body is on the blocks' ways: the late game takes over
            self.late = LateGame(
                witness_cycle(m), Limit(config.late_nodes), Limit(config.completion_nodes)
            )
        return self.late.move(game)

    def _opening_move(self, game: Game) -> int:
        """The opening's next cell, or TREE if the tree is to move (the body fits a tree)."""
        assert self.opening is not None and self.policy is not None
        nxt = self.opening.move(game, self.policy.mirror)
        if nxt >= 0:
            self.off_ways = True
            return nxt
        if nxt == OVER:
            self.opening = None
        if self.off_ways:
            self.policy.restart()  # the routes it kept were planned for another body
            self.off_ways = False
        return TREE

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The cycle followed, as arrows on the head and on the cells not yet covered."""
        policy = self.policy
        if policy is None or game.over:
            return {}
        m = policy.mirror
        if self.late is not None:
            return self.late.overlay(game, m.grid)
        if self.opening is not None:
            return self.opening.overlay(game, m.grid)
        m.sync(game)
        g = m.grid
        nxt = witness_cycle(m)
        out: dict[Point, str] = {}
        for c, p in enumerate(g.points):
            if g.block[c] >= 0 and (m.occ[c] < 0 or c == m.head):
                out[p] = ARROWS[direction(g, c, nxt[c])]
        return out
