"""The cell tree round a hole: boards one cell short of a cycle (odd open boards) cut into blocks.

Such a board has no Hamiltonian cycle, but the board less one cell of the spare colour may be
cut into blocks. The hole is a corner cell (two free neighbours, each with one more besides
the cell on the hole's diagonal): where the cut has a notched block round it (a 3x3 box less
that corner, and less walls of the board), the same cut with that box less its middle instead
fits the board less the middle. Failing those, the corner of a wall (two free neighbours at
right angles, whose own neighbours may have more ways): the 3x3 box round it and its diagonal
cell is placed first and the rest cut round it. A board two cells short gets two such holes.
Failing those too, on a board one short, a hole in a *hole box* (``holeboxes``): a box round
walls with a cell more of the spare colour, which the walls may need as one block.
The tree plays through a shadow of the game whose board walls the hole in (as ``deadends``
does).

When food falls in the hole, the tree heads for the cell ``a`` before the switch round the hole
(the cycle runs a, m, b round a 2x2 square with the hole: ``hampath.holes``); there the snake
steps into the hole instead of ``m``, which becomes the hole. In those boxes the cycle always
runs that way, whatever the tree, so the switch is always there, and the cycle after it is one
of the other board's blocks: the tree goes on round ``m``. Where the body fits no cut of that
board, ``replan`` takes over on the switched cycle, which it keeps safe to the end.
"""

from __future__ import annotations

from collections.abc import Mapping

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.celltree import TreeConfig, TreeSolver
from termsnake.solvers.celltree.blocks import (
    TURNINGS,
    BlockGrid,
    build_tiled_grid,
    spread,
    tiled_grids,
)
from termsnake.solvers.celltree.holeboxes import hole_grids
from termsnake.solvers.celltree.lookahead import food_index
from termsnake.solvers.celltree.notched import notched_moves
from termsnake.solvers.celltree.tiling import Rect, cuts_of
from termsnake.solvers.deadends import sync_shadow
from termsnake.solvers.grid import Grid, grid_of
from termsnake.solvers.hampath.holes import apart, hole_candidates, spare, switch_at
from termsnake.solvers.replan import ReplanSolver

# The cuts of a board round its holes the tree may take: grid, blocks and turning.
Cuts = list[tuple[BlockGrid, tuple[Rect, ...], int]]
# Sets of holes the set-up tries (each costs a cut of the board): the corners first.
TRIES = 2
# Then, if none of those takes, sets with walls' corners (``_wall_corner``) too.
WALL_TRIES = 2
# No opening: it leaves the blocks' ways, and a switch needs the body on a cycle of the blocks.
# No chasing play-out either: round a hole it gained nothing beyond noise, for more time
# (docs/tuning.md).
CONFIG = TreeConfig(opening_percent=0, chase=False)
# Nor a late game round a wall's corner: its cycles leave the blocks, and only the blocks' cycles
# are forced round that box (the hole's neighbours have other ways), so food in the hole could
# find no switch, and replan, handed a cycle it cannot switch, stalls.
AT_WALL = TreeConfig(opening_percent=0, chase=False, late_blocks=0)


class HoleTreeSolver:
    """The cell tree on the board less a hole or two, each moved by a switch when food falls
    in it."""

    name = "hole-tree"
    played = "tree round a hole"  # replan, if it takes over, does so late in the game

    def __init__(self) -> None:
        self._tree: TreeSolver | None = None
        self._replan: ReplanSolver | None = None
        self._shadow: Game | None = None
        self._grid: Grid | None = None
        self.holes: tuple[int, ...] = ()  # the cells the tree's board walls in
        self._cells = 0  # on the cycle round the holes
        self._cut: tuple[tuple[Rect, ...], int] = ((), 0)  # the blocks and turning of the cut
        # Each box of the cut a hole goes back and forth in: the block's index, the hole it
        # was cut round and the cell on that hole's diagonal.
        self._boxes: list[tuple[int, int, int]] = []
        self._grids: dict[frozenset[int], BlockGrid] = {}  # holes -> the tree's grid round them
        self._at_wall = False  # whether a box is a wall's corner's (the tree plays AT_WALL)
        self._partners: dict[int, int] = {}  # in a hole box: each of its two holes -> the other
        self.switches = 0  # foods taken in a hole
        # At a switch: the cycle through the hole (from the head on) and the holes after it.
        self._switched: tuple[list[int], tuple[int, ...]] = ([], ())

    @property
    def replanned(self) -> bool:
        """Whether ``replan`` has taken over (the body fitted no cut of the board after a
        switch, as in the late game, which leaves the blocks)."""
        return self._replan is not None

    def setup(self, game: Game) -> None:
        """The tree on the board less one or two corner holes (or one in a hole box);
        SolverUnavailable if the board is not a cell or two short of a cycle or no such holes
        let the tree cut the rest."""
        self._tree = self._replan = None
        self._partners = {}
        self.switches = 0
        grid = grid_of(game.board)
        short = spare(grid)
        if short is None:
            raise SolverUnavailable(_refusal(game, "it is not one or two cells short of a cycle"))
        colour, count = short  # the holes: ``count`` cells of the spare ``colour``
        taken = {grid.index(p) for p in game.body}
        if game.food is not None:
            taken.add(grid.index(game.food))
        candidates = hole_candidates(grid, colour, taken, far_from=grid.index(game.head))
        corners = [h for h in candidates if _diagonal(grid, h) >= 0]
        walled = [h for h in candidates if _diagonal(grid, h) < 0 <= _wall_corner(grid, h)]
        self._grid = grid
        self._cells = len(game.board.free_cells) - count
        tries = _hole_sets(grid, corners, count)[:TRIES]
        more = _hole_sets(grid, corners + walled, count)
        tries += [holes for holes in more if any(h in walled for h in holes)][:WALL_TRIES]
        for holes in tries:
            if self._cut_round(game, holes):
                return
        if count == 1 and self._hole_box(game, colour):
            return
        raise SolverUnavailable(_refusal(game, "no holes at corners let the tree cut the rest"))

    def _hole_box(self, game: Game, colour: int) -> bool:
        """Whether the tree takes the board less a hole in a hole box (``holeboxes``), where no
        corner takes: each hole and its partner in turn, the pair of the most direct cut first,
        with the cuts that switch it both ways."""
        assert self._grid is not None
        taken = {*game.body, *([game.food] if game.food is not None else [])}
        cuts = hole_grids(game.board, colour, taken)
        for hole, m in dict.fromkeys((hole, m) for *_, hole, m in cuts):
            h, across = self._grid.index(hole), self._grid.index(m)
            self._partners = {h: across, across: h}
            found = [(g, rects, t) for g, rects, t, p, q in cuts if (p, q) == (hole, m)]
            if self._cut_round(game, (h,), found):
                return True
        self._partners = {}
        return False

    def _cut_round(
        self, game: Game, holes: tuple[int, ...], found: Cuts | str | None = None
    ) -> bool:
        """Whether the tree takes the board less ``holes`` with a notched box round each that
        also fits with the hole moved to its diagonal cell. The cuts tried are ``found`` if
        given (the cuts round a hole box, whose hole the tree plays as at a wall's corner),
        else the board's own (a wall's corner's 3x3 box placed first); a string is why there
        are none."""
        assert self._grid is not None
        board = game.board.with_walls(self._grid.points[h] for h in holes)
        self._at_wall = found is not None
        if found is None:
            boxes = [_box(self._grid, h) for h in holes if _diagonal(self._grid, h) < 0]
            self._at_wall = bool(boxes)
            found = tiled_grids(board) if not boxes else _boxed_grids(board, boxes)
        if isinstance(found, str) or not self._tree_round(game, holes, [g for g, _, _ in found]):
            return False
        assert self._tree is not None
        in_play = self._tree.grid
        _, rects, turning = next(f for f in found if f[0] is in_play)
        self._cut, self._grids = (rects, turning), {frozenset(holes): in_play}
        return self._switch_boxes(game, holes)

    def _switch_boxes(self, game: Game, holes: tuple[int, ...]) -> bool:
        """Whether each of ``holes`` lies in one box of the cut in play that also holds the
        cell it switches with (kept in ``_boxes``), and the grids after each hole's first switch
        fit (built now, kept in ``_grids``)."""
        assert self._grid is not None
        points = self._grid.points
        rects = self._cut[0]
        self._boxes = []
        for h in holes:
            diagonal = self._across(h)
            hole, across = points[h], points[diagonal]
            # At a wall's corner only a 3x3 box with the diagonal in its middle forces the
            # switch (``_wall_corner``); a hole box's cuts were chosen for their switch.
            middle = (1, 1) if h not in self._partners and _diagonal(self._grid, h) < 0 else None
            box = [
                i
                for i, r in enumerate(rects)
                if (hole.x - r.x, hole.y - r.y) in r.missing
                and 0 <= across.x - r.x < r.width
                and 0 <= across.y - r.y < r.height
                and (
                    middle is None
                    or (r.width, r.height, across.x - r.x, across.y - r.y) == (3, 3, *middle)
                )
            ]
            if len(box) != 1:
                return False
            self._boxes.append((box[0], h, diagonal))
        # Each hole must be able to move to its box's other cell (and back): the grids for the
        # first switches are built now, and kept.
        for _, first, other in self._boxes:
            moved = tuple(other if h == first else h for h in holes)
            grid = self._grid_round(game.board, moved)
            if grid is None:
                return False
            self._grids[frozenset(moved)] = grid
        return True

    def _tree_round(self, game: Game, holes: tuple[int, ...], grids: list[BlockGrid]) -> bool:
        """Whether the tree takes the board less ``holes`` on one of ``grids``, with the body
        as it is."""
        assert self._grid is not None
        shadow = game.copy()
        shadow.board = game.board.with_walls(self._grid.points[h] for h in holes)
        tree = TreeSolver(AT_WALL if self._at_wall else CONFIG)
        try:
            tree.setup(shadow, grids)
        except SolverUnavailable:
            return False
        self._tree, self._shadow, self.holes = tree, shadow, holes
        return True

    def _grid_round(self, board: Board, holes: tuple[int, ...]) -> BlockGrid | None:
        """The cut the tree plays, each box less the one of its two cells that is a hole now,
        on the board less ``holes``; None if that cut does not fit: a box with neither or both
        of its cells a hole, or with no cycle round the rest, or a block that no longer fits."""
        assert self._grid is not None
        points = self._grid.points
        rects, turning = self._cut
        blocks = list(rects)
        for i, first, diagonal in self._boxes:
            now = [h for h in holes if h in (first, diagonal)]
            if len(now) != 1:
                return None
            r, was, p = rects[i], points[first], points[now[0]]
            walls = [c for c in r.missing if c != (was.x - r.x, was.y - r.y)]  # the board's
            missing = tuple(sorted([*walls, (p.x - r.x, p.y - r.y)], key=lambda c: (c[1], c[0])))
            if not notched_moves(r.width, r.height, missing, turning):
                return None  # that box less its other cell has no cycle to go round
            blocks[i] = Rect(r.x, r.y, r.width, r.height, missing)
        walled = board.with_walls(points[h] for h in holes)
        # build_tiled_grid takes only blocks that fit (it asserts so), and a moved hole may
        # leave one that does not: a hole moved onto a cell another box holds (two holes on a
        # small board).
        if any(r.cells(walled) is None for r in blocks):
            return None
        return build_tiled_grid(walled, turning, blocks)

    def next_direction(self, game: Game) -> Direction:
        """The tree's move; toward the switch and into the hole while food is in one."""
        if self._replan is not None:
            return self._replan.next_direction(game)
        grid, tree, shadow = self._grid, self._tree, self._shadow
        assert grid is not None and tree is not None and shadow is not None, "setup first"
        head = grid.index(game.head)
        if head in self.holes:  # it has just eaten in a hole: the tree goes on round m
            return self._after_switch(game)
        sync_shadow(shadow, game)
        food = food_index(game)
        if food not in self.holes:
            return tree.next_direction(shadow)
        if game.length >= self._cells:
            # The body is the cycle: the last food wins; with two holes, eating would leave a
            # snake one cell short of the board, which dies, so it follows its tail (a stall).
            won = len(self.holes) == 1 and food in grid.adj[head]
            return grid.move(head, food if won else grid.index(game.body[-1]))
        if tree.walking_way:
            # The late game's cycle is the one after the way it planned, not yet the body's:
            # no switch (nor a hand-over) is read from it until the way is walked.
            return tree.follow(shadow)
        succ = tree.cycle(shadow)
        switch = switch_at(grid, succ, food, prefer=lambda m: self._across(m) == food)
        if switch is None:  # a cycle of the late game may run otherwise: replan moves the hole
            return self._hand_over(game, _in_order(succ, head), self.holes)
        a, m = switch
        if head == a and not game.occupied(grid.points[m]):
            holes = tuple(m if h == food else h for h in self.holes)
            self._switched = (_in_order(succ, a, skip=m, then=food), holes)
            return grid.move(head, food)
        if head == a or tree.late_game or game.occupied(grid.points[a]):
            # Round the cycle until the head reaches a (the late game's cycle runs through
            # the box as the blocks' does: the switch is forced on every cycle).
            return grid.move(head, succ[head])
        shadow.food = grid.points[a]  # the tree heads for a as if it were food
        return tree.next_direction(shadow)

    def _after_switch(self, game: Game) -> Direction:
        """Set the tree up round the holes after the switch, else hand over to replan."""
        cycle, holes = self._switched
        self.switches += 1
        grid = self._grids.get(frozenset(holes)) or self._grid_round(game.board, holes)
        if grid is None or not self._tree_round(game, holes, [grid]):
            return self._hand_over(game, cycle, holes)
        self._grids[frozenset(holes)] = grid
        return self.next_direction(game)  # the next food may be in a hole already

    def _hand_over(self, game: Game, cycle: list[int], holes: tuple[int, ...]) -> Direction:
        """``replan`` from now on, on ``cycle`` round ``holes``."""
        grid = self._grid
        assert grid is not None
        replan = ReplanSolver()
        points = tuple(grid.points[c] for c in cycle)
        replan.take_over(game, points, tuple(grid.points[h] for h in holes))
        self._replan = replan
        return replan.next_direction(game)

    def _across(self, hole: int) -> int:
        """The cell ``hole`` switches with: in its hole box, else as ``_across`` finds it. The
        switch into a hole takes that cell (of those it could), so that the hole goes back and
        forth in one box."""
        assert self._grid is not None
        return self._partners.get(hole, -1) if self._partners else _across(self._grid, hole)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The plan of the tree (or of replan, once it has taken over); none while the snake
        heads for the switch into a hole, where the tree's plan is not what it follows."""
        if self._replan is not None:
            return self._replan.overlay(game)
        grid = self._grid
        if self._tree is None or self._shadow is None or grid is None:
            return {}
        if grid.index(game.head) in self.holes or food_index(game) in self.holes:
            return {}
        sync_shadow(self._shadow, game)
        return self._tree.overlay(self._shadow)


def _box(grid: Grid, hole: int) -> Rect | None:
    """The 3x3 box with a wall's corner ``hole`` at its corner and its diagonal cell in the
    middle, less the hole, if all its other cells are free; else None."""
    middle = _wall_corner(grid, hole)
    hx, hy, mx, my = (
        hole % grid.width,
        hole // grid.width,
        middle % grid.width,
        middle // grid.width,
    )
    x, y = min(hx, 2 * mx - hx), min(hy, 2 * my - hy)
    if x < 0 or y < 0 or x + 3 > grid.width or y + 3 > grid.height or grid.board.wrap:
        return None
    box = Rect(x, y, 3, 3, ((hx - x, hy - y),))
    return box if box.cells(grid.board.with_walls([grid.points[hole]])) is not None else None


def _boxed_grids(
    board: Board, boxes: list[Rect | None]
) -> list[tuple[BlockGrid, tuple[Rect, ...], int]] | str:
    """The grids of ``board`` cut with ``boxes`` placed first (the tiler would not choose them
    where rectangles fit) and the rest as ``tiling`` cuts it, as ``tiled_grids`` gives them."""
    placed = [b for b in boxes if b is not None]
    if len(placed) != len(boxes):
        return "a wall's corner has no free 3x3 box round it"
    rest = board.with_walls(p for b in placed for p in b.cells(board) or ())
    cuts = cuts_of(rest)
    if isinstance(cuts, str):
        return cuts
    found = []
    for cut in cuts:
        if any(r.cells(board) is None for r in cut):
            continue  # a notched block round a box's cells, which are free on the board
        rects = tuple(sorted((*cut, *placed), key=lambda r: (r.y, r.x)))
        found += [(build_tiled_grid(board, t, list(rects)), rects, t) for t in TURNINGS]
    return sorted(found, key=lambda f: spread(f[0])) or "no cut of the rest fits the boxes"


def _hole_sets(grid: Grid, corners: list[int], count: int) -> list[tuple[int, ...]]:
    """The sets of ``count`` corners to try, in the corners' order; two far apart."""
    if count == 1:
        return [(h,) for h in corners]
    return [
        (a, b)
        for j, b in enumerate(corners)
        for a in corners[:j]
        if apart(grid, a, b) and apart(grid, _across(grid, a), _across(grid, b))
    ]


def _refusal(game: Game, why: str) -> str:
    return f"hole-tree cannot play {game.board.name}: {why}; try --ai best"


def _diagonal(grid: Grid, hole: int) -> int:
    """The cell diagonal to a corner ``hole`` next to both its neighbours, if free, else -1.
    A corner: two free neighbours at right angles, each with one other free neighbour besides
    the hole and that cell, so that every cycle without the hole runs round that cell to them,
    and every cycle without that cell round the hole: the switch is there both ways."""
    adj = grid.adj[hole]
    if len(adj) != 2 or any(len(grid.adj[c]) != 3 for c in adj):
        return -1
    common = [c for c in grid.adj[adj[0]] if c in grid.adj[adj[1]] and c != hole]
    return common[0] if len(common) == 1 and grid.free[common[0]] else -1


def _wall_corner(grid: Grid, hole: int) -> int:
    """The cell diagonal to a ``hole`` with just two free neighbours, at right angles, if
    free, else -1: a corner of walls (or of the board) whose neighbours may have more ways.
    In a 3x3 box of the cut with the hole at its corner and that cell in its middle, each
    neighbour's only other way in the box is along its side, and no way of the middle leaves
    the box, so every cycle of the cut runs round the middle to them, and with the middle the
    hole, round the hole: the switch is there both ways, as at ``_diagonal``'s corners."""
    adj = grid.adj[hole]
    if len(adj) != 2:
        return -1
    common = [c for c in grid.adj[adj[0]] if c in grid.adj[adj[1]] and c != hole]
    return common[0] if len(common) == 1 else -1


def _across(grid: Grid, hole: int) -> int:
    """The cell a hole switches with: ``_diagonal``'s, else ``_wall_corner``'s (-1: none)."""
    diagonal = _diagonal(grid, hole)
    return diagonal if diagonal >= 0 else _wall_corner(grid, hole)


def _in_order(succ: list[int], start: int, skip: int = -1, then: int = -1) -> list[int]:
    """The cycle ``succ`` from ``start`` on; with ``skip``, that cell replaced by ``then``."""
    out, c = [start], start
    while True:
        c = succ[c]
        if c == start:
            return out
        out.append(then if c == skip else c)
