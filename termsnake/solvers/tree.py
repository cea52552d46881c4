"""Cell-tree solver: a Hamiltonian cycle around a spanning tree of 2x2 blocks, re-planned each move.

The board is cut into 2x2 blocks. Inside a block the snake always turns the same way round
(it "drives on one side"), so each cell has two possible moves: the default move that stays in
the block, or the cross move into the neighbouring block. Any spanning tree of the blocks turns
this into one Hamiltonian cycle (the walk around the tree). The snake's body fixes one tree edge
per body cell: present (the body crossed it) or absent (the body turned inside the block). The
solver keeps the invariant "some spanning tree agrees with every body cell", which means the
body is an arc of a Hamiltonian cycle, so following that cycle is always safe. Each move it plans
the shortest path to the food in the two-moves-per-cell graph, then takes its first step only if
the invariant still holds after it (an exact check on the block graph); otherwise it takes the
other move, which then must keep it (the witness tree's own move is always one of the two).

Look-ahead: where both moves keep the tree, each is played out on a copy of the solver's mirror
of the body until the snake eats (the policy above, without look-ahead), and the route that eats
sooner, counting the mean distance to a free cell afterwards, is kept to; every step of it is
checked again live. Each move is also played out with other costs for passing by a block the
body has not reached (a move's worth: none, 3 or 10 on 12x12 and smaller; none or 10 on larger
boards), and the best route of all is kept.
On mid-sized boards, at each step of that route (every second step on 20x20, to save time) the
move it does not take is played out too, and the snake switches to it if it scores better than
the rest of the route.

Late game, on boards of up to ``endgame_blocks`` blocks: once at most ``endgame_free`` cells are
free, the snake leaves the blocks behind. It follows the tree's last witness cycle, and at each
food looks for a shorter way to it after which the body still closes into a Hamiltonian cycle
(any cycle, not only the blocks'); if it finds one, it takes it and then follows that new cycle.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from itertools import islice, pairwise

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import Solver, SolverUnavailable
from termsnake.solvers.endgame import closing_path
from termsnake.solvers.grid import grid_of

_D, _U, _L, _R = Direction.DOWN, Direction.UP, Direction.LEFT, Direction.RIGHT
# (x % 2, y % 2) -> (default move inside the block, cross move out of it), for both turnings.
_TURNS: tuple[dict[tuple[int, int], tuple[Direction, Direction]], ...] = (
    {(0, 0): (_D, _L), (0, 1): (_R, _D), (1, 1): (_U, _R), (1, 0): (_L, _U)},
    {(0, 0): (_R, _U), (1, 0): (_D, _R), (1, 1): (_L, _D), (0, 1): (_U, _L)},
)
_STEP = 1000  # the cost of one move; penalties are in the same unit
_FAR = 1 << 60
_ARROWS: dict[Direction, str] = {_U: "^", _D: "v", _L: "<", _R: ">"}


def span(
    ends: list[tuple[int, int]], blocks: int, state: list[int]
) -> tuple[list[int], list[bool], int] | None:
    """Kruskal over the block graph: every edge of state 1 (forced), then those of state -1
    (allowed). The union-find parents, which edges were taken and how many; None if forced
    edges loop."""
    parent = list(range(blocks))
    taken = [False] * len(ends)
    joins = 0
    allowed = []
    for e, s in enumerate(state):
        if s == 1:
            a, b = ends[e]
            while parent[a] != a:  # find, inlined as below
                parent[a] = parent[parent[a]]
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a == b:
                return None
            parent[a] = b
            taken[e] = True
            joins += 1
        elif s == -1:
            allowed.append(e)
    for e in allowed:
        a, b = ends[e]
        while parent[a] != a:  # find, inlined: this loop is hot
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
            taken[e] = True
            joins += 1
    return parent, taken, joins


def spread(start: int, links: Sequence[Sequence[int]], step: int, unreached: int) -> list[int]:
    """Cell -> ``step`` times its number of links from ``start``, breadth first (``unreached``
    where there is no way)."""
    far = [unreached] * len(links)
    far[start] = 0
    queue = deque([start])
    while queue:
        c = queue.popleft()
        k = far[c] + step
        for d in links[c]:
            if far[d] == unreached:
                far[d] = k
                queue.append(d)
    return far


def pred_of(dflt: list[int], cross: list[int]) -> list[list[int]]:
    """Cell -> the cells whose default or cross move enters it."""
    pred: list[list[int]] = [[] for _ in dflt]
    for c, (d, x) in enumerate(zip(dflt, cross, strict=True)):
        if d >= 0:
            pred[d].append(c)
        if x >= 0:
            pred[x].append(c)
    return pred


@dataclass(slots=True)
class BlockGrid:
    """The two-moves-per-cell graph of a board cut into 2x2 blocks, for one turning."""

    board: Board
    points: list[Point]  # cell index -> point (index = y * width + x)
    dflt: list[int]  # cell -> its default (in-block) successor, -1 for walls
    cross: list[int]  # cell -> its cross successor, -1 if none
    turns: list[tuple[Direction, Direction] | None]  # cell -> (default, cross) move, None: wall
    cedge: list[int]  # cell -> the block edge its cross move uses, -1 if none
    block: list[int]  # cell -> its block, -1 for walls
    ends: list[tuple[int, int]]  # edge -> its two blocks
    adj: list[list[tuple[int, int]]]  # block -> (edge, other block)
    blocks: list[int]  # the free blocks
    block_free: list[bool]  # block -> whether it is free
    cells_of: list[list[int]]  # block -> its cells (none for walls)
    pred: list[list[int]]  # cell -> the cells whose default or cross move enters it
    ways: list[tuple[int, ...]]  # cell -> its default and cross successors that exist
    crossing: list[tuple[int, ...]]  # cell -> its cross successor, if any

    def index(self, p: Point) -> int:
        """The cell index of a point."""
        return p.y * self.board.width + p.x


def build_grid(board: Board, turning: int, offset: tuple[int, int] = (0, 0)) -> BlockGrid | str:
    """The block graph of ``board`` for turning 0 or 1, or why the board cannot be cut so.

    ``offset`` shifts the blocks: with (1, 1) the first block starts at (-1, -1), which suits
    boards framed by a wall.
    """
    w, h = board.width, board.height
    ox, oy = offset
    if board.wrap and (w % 2 or h % 2):
        return f"the board wraps and is {w}x{h}; the cell tree needs even sides"
    if board.wrap:
        bw, bh = w // 2, h // 2
    else:
        bw, bh = (w + ox + 1) // 2, (h + oy + 1) // 2
    n = w * h
    points = [Point(i % w, i // w) for i in range(n)]
    members: dict[int, list[Point]] = {}
    for p in board.free_cells:
        bx = ((p.x + ox) % w) // 2 if board.wrap else (p.x + ox) // 2
        by = ((p.y + oy) % h) // 2 if board.wrap else (p.y + oy) // 2
        members.setdefault(by * bw + bx, []).append(p)
    block = [-1] * n
    for b, cells in members.items():
        if len(cells) != 4:
            return f"the 2x2 block at {min(cells)} is part wall; the cell tree needs whole blocks"
        for p in cells:
            block[p.y * w + p.x] = b
    dflt, cross, cedge = [-1] * n, [-1] * n, [-1] * n
    moves: list[tuple[Direction, Direction] | None] = [None] * n
    keys: dict[tuple[int, Direction], int] = {}
    ends: list[tuple[int, int]] = []
    turns = _TURNS[turning]
    for i, p in enumerate(points):
        if block[i] < 0:
            continue
        d_dir, c_dir = moves[i] = turns[((p.x + ox) % 2, (p.y + oy) % 2)]
        q = board.step(p, d_dir)
        assert q is not None
        dflt[i] = q.y * w + q.x
        q = board.step(p, c_dir)
        if q is None or block[q.y * w + q.x] < 0 or block[q.y * w + q.x] == block[i]:
            continue
        j = q.y * w + q.x
        # One key per edge, seen from its left or upper block, so both cells crossing it share it.
        key = (block[i], c_dir) if c_dir in (_R, _D) else (block[j], c_dir.opposite)
        if key not in keys:
            keys[key] = len(ends)
            ends.append((block[i], block[j]))
        e = keys[key]
        cross[i], cedge[i] = j, e
    adj: list[list[tuple[int, int]]] = [[] for _ in range(bw * bh)]
    for e, (a, b) in enumerate(ends):
        adj[a].append((e, b))
        adj[b].append((e, a))
    blocks = sorted({b for b in block if b >= 0})
    return BlockGrid(
        board,
        points,
        dflt,
        cross,
        moves,
        cedge,
        block,
        ends,
        adj,
        blocks,
        [b in set(blocks) for b in range(bw * bh)],
        [[c for c in range(n) if block[c] == b] for b in range(bw * bh)],
        pred_of(dflt, cross),
        [tuple(d for d in (dflt[c], cross[c]) if d >= 0) for c in range(n)],
        [(x,) if x >= 0 else () for x in cross],
    )


class TreeSolver:
    """The strongest solver: a cell-tree Hamiltonian cycle re-planned toward the food each move."""

    name = "tree"
    # Tie-break costs, in thousandths of a step: a move inside a block, into a new block, back
    # along a tree edge.
    penalties: tuple[int, int, int] = (1, 1, 0)
    # Whether the planner searches toward the food with A*, bounded below by the distance along
    # the blocks' ways with no body in the way. 20x20 seed 1: a third fewer instructions, and
    # the same games as Dijkstra on 6x6 to 20x20 (38 seeds) and 8x8 x 300.
    astar = True
    # How many more moves a path through the other move may take when the best path would cut
    # blocks off; the extra cost of passing a block the body has not reached (it closes that
    # block's edge). 20x20, seeds 1-200: 11,014.3 steps; slack 4: 11,011.1; shut 500: 11,050.8;
    # shut 2000: 11,158.0.
    slack = 2
    shut = 1000
    # Whether to choose between the two moves by playing each out to the food; the weight of
    # the mean distance to a free cell after eating in that choice (thousandths). 20x20, seeds
    # 1-200: 11,014.3 steps; weight 1000: 11,014.9; none: 11,178.4 (at 0.7 times the time);
    # counting the fewest moves to each cell (a breadth-first search) instead of the moves of
    # the planner's cheapest paths: 11,064.2, or 11,126.7 at weight 3000 (0.8 times the time).
    lookahead = True
    after_weight = 2000
    # The extra cost of entering a cell per free neighbour (thousandths of a step), on boards of
    # at most hug_blocks blocks: hugging the body helped on 8x8 (484 steps, 487 without) but
    # not on 20x20 (11,439, 11,026 without), 10-300 games each. 300 rather than 400: 8x8 x 300
    # games, seeds 1, 301, 601: 481.2, 482.5, 484.0 (400: 482.3, 483.4, 485.9; 250: 482.0,
    # 482.2, 483.7; 200: 483.1, 482.5, 484.5), a difference within the noise (about 2 steps).
    hug = 300
    hug_blocks = 64
    # On boards of at most few_blocks blocks (8x8 and smaller), a path that would cut blocks
    # off is first re-planned with a cost of avoid_cost for passing by each block it cut off;
    # on boards of at most variant_blocks blocks (12x12 and smaller), each play-out is also
    # tried with these shut costs, and the best route of all is kept. Together on 8x8 x 300
    # games: 482.3 steps (484.6 without). The shut costs alone on 12x12 x 60 games, seeds 1,
    # 61, 121, 181: 1898.8, 1903.8, 1909.8, 1895.1 (without: 1895.4, 1940.8, 1921.9, 1911.0);
    # the re-plan did worse there (1923.9 against 1895.4 at seed 1). The shut costs on 20x20
    # too, seeds 1-600: 10,930.2 steps (11,015.7 without), at 0.47 ms a move in one run; only
    # the 10000 one, seeds 1-200: 11,049.3 (11,007.2 without); only the 3000 one: 11,095.2.
    # Shut cost 0 won 141 of the 152 choices the variants won in a 20x20 game (most of them
    # while the snake was short): alone, seeds 1-600 gave 10,964.2; with 10000 (wide_variants,
    # on boards of more than variant_blocks blocks), 10,921.4 (1-400: 10,905.3; 401-600:
    # 10,953.5). Bench runs taken in turn: 0.28 ms a move without them, 0.39 to 0.43 with 0
    # alone, 0.42 to 0.44 with 0 and 10000.
    few_blocks = 16
    variant_blocks = 36
    shut_variants: tuple[int, ...] = (0, 3000, 10000)
    wide_variants: tuple[int, ...] = (0, 10000)
    avoid_cost = 20000
    # On boards of more than few_blocks and at most rebranch_blocks blocks (12x12), at each move
    # of a route chosen by play-outs where the other move keeps the tree too, that move is
    # played out as well (with the plain shut cost) and taken if it scores below the rest of
    # the route. 12x12 x 60 games, seeds 1, 61, 121, 181: 1864.7, 1869.8, 1903.8, 1881.5 steps
    # (without: 1898.8, 1903.8, 1909.8, 1895.1). Not on 8x8 (seeds 1, 301 x 300 games: 482.8,
    # 484.4, without 482.3, 483.4). On boards of more than sparse_blocks blocks (20x20), only at
    # every rebranch_every-th move of the route (the score drops by one step a move). 20x20,
    # seeds 1-200 and 201-360: every 2nd move 11,014.3 and 10,983.1 steps at about 1 ms a move;
    # every 4th 11,210.1 and 11,132.6 at about 0.6 ms; never 11,296.0 and 11,305.6 at 0.3 ms
    # (timings of the planner before A*). At every move, seeds 1-200: 11,035.9 (se 34) at
    # about 1.6 times the time of every 2nd move; committing the re-branching play-outs to
    # their detours instead of re-planning at each move of them: 11,117.2 at 2/3 the time.
    # With wide_variants it takes only 2% of the play-outs it makes (20x20 seed 2), but never
    # re-branching, seeds 1-200: 11,113.0 (10,911.0 every 2nd move) at about 2/3 the time.
    rebranch_blocks = 100
    sparse_blocks = 36
    rebranch_every = 2
    # Late game (see the module's docstring) once at most endgame_free cells are free, on
    # boards of at most endgame_blocks blocks; a search for the shorter way gives up after
    # endgame_nodes positions. 8x8 x 300 games, seeds 1 and 301: 474.1 and 472.4 steps
    # (without: 481.2 and 482.5; 16 cells: 477.9 and 40: 473.8, seeds 1-100 against 472.4 for
    # 32); 6x6 x 100: 175.8 (188.6). 12x12 x 60: 1863.6 (1862.0 without), at little cost. Not
    # on 20x20: x 30, 11,042.8 (11,044.0 without; 48 or 60 cells no better), and its searches
    # took up to 15% of the time of a game: there it starts too late to matter.
    endgame_free = 32
    endgame_blocks = 36
    endgame_nodes = 20000

    def __init__(self) -> None:
        self._grid: BlockGrid | None = None
        self._occ: list[int] = []  # cell -> serial number while in the body, else -1
        self._body: deque[int] = deque()  # the body as cell indexes, head first
        self._serial = 0  # serial number of the head
        self._last: list[int] = []  # block -> serial of the body cell that last entered it
        # Edge -> the serial of the youngest body cell whose move fixed it, and how (1 across,
        # 0 not); the constraint holds while that cell is body (older serials have left).
        self._fixed: list[int] = []
        self._fixed_by: list[int] = []
        self._seen: list[int] = []  # BFS marks (generation numbers)
        self._gen = 0
        self._follow: list[int] | None = None  # a fixed cycle to follow when re-planning stalls
        self._inner: Solver | None = None  # what plays boards the cell tree cannot cut
        self._commit: deque[int] = deque()  # cells of a route chosen by look-ahead
        self._commit_score = -1  # the look-ahead score of the rest of that route, -1 if none
        self._nbrs: list[list[int]] = []  # cell -> free cells next to it
        self._hug = 0  # the hug cost on this board
        self._ring: list[int] | None = None  # late game: cell -> next cell of the cycle followed
        self._lane: deque[int] = deque()  # late game: the moves of a shorter way to the food
        self._searched = -1  # late game: the step at which the food last searched for appeared
        self._toward: tuple[int, list[int]] = (-1, [])  # food -> A* bound of each cell
        self._open: list[int] = []  # the cells that are not wall
        # The last path planned to the food: the head's serial then, the path, and its cut check.
        self._kept: tuple[int, list[int], list[int] | None] = (-1, [], None)
        # Food -> each cell's distance from it along the blocks' ways, and the sums of the
        # nearest distances (the first k for each k).
        self._spread: tuple[int, list[int], list[int]] = (-1, [], [])

    @property
    def engine(self) -> str:
        """What plays this board: ``cell-tree``, or the solver it fell back to."""
        return "cell-tree" if self._inner is None else self._inner.name

    # -- set-up and keeping in step with the game ---------------------------------------------

    def setup(self, game: Game) -> None:
        """Cut the board into blocks and check the start body fits some Hamiltonian cycle."""
        self._inner = None
        self._follow = None
        self._commit.clear()
        self._ring = None
        self._lane.clear()
        self._searched = -1
        reasons = []
        # 1. Every way of cutting the board into 2x2 blocks, both ways round.
        for offset in ((0, 0), (1, 1), (1, 0), (0, 1)):
            for turning in (0, 1):
                grid = build_grid(game.board, turning, offset)
                if isinstance(grid, str):
                    reasons.append(grid)
                    break
                self._grid = grid
                self._toward = (-1, [])  # bounds belong to one grid
                self._spread = (-1, [], [])
                self._kept = (-1, [], None)
                self._open = [c for c in range(len(grid.points)) if grid.block[c] >= 0]
                self._seen = [0] * len(grid.points)
                self._nbrs = self._neighbours(grid)
                self._hug = self.hug if len(grid.blocks) <= self.hug_blocks else 0
                self._sync(game, force=True)
                why = self._check_state()
                if why is None:
                    return
                reasons.append(why)
        self._grid = None
        # 2. No cell tree fits: a Hamiltonian cycle rebuilt around each food; on an odd open
        # board (no cycle) one through all cells but a moving hole; else greedy.
        from termsnake.solvers.greedy import GreedySolver
        from termsnake.solvers.holecycle import HoleCycleSolver
        from termsnake.solvers.replan import ReplanSolver

        inners: tuple[Solver, ...] = (ReplanSolver(), HoleCycleSolver(), GreedySolver())
        for inner in inners:
            try:
                inner.setup(game)
            except SolverUnavailable as exc:
                reasons.append(str(exc))
                continue
            self._inner = inner
            return
        raise SolverUnavailable(f"no cell tree fits this board: {reasons[0]}; try --ai greedy")

    @staticmethod
    def _neighbours(g: BlockGrid) -> list[list[int]]:
        """Cell -> the free cells next to it."""
        out: list[list[int]] = [[] for _ in g.points]
        for c, p in enumerate(g.points):
            if g.block[c] < 0:
                continue
            for d in (_U, _D, _L, _R):
                q = g.board.step(p, d)
                if q is not None and g.block[g.index(q)] >= 0:
                    out[c].append(g.index(q))
        return out

    def _sync(self, game: Game, *, force: bool = False) -> None:
        """Bring the body mirror up to date: one step of incremental work, or a rebuild."""
        g = self._grid
        assert g is not None
        w = g.board.width
        body = self._body
        head = game.head.y * w + game.head.x
        if not force and body and head != body[0]:
            last = body[0]
            if g.dflt[last] == head or g.cross[last] == head:
                self._advance(head, grow=len(body) < game.length)
                tail = game.tail
                if len(body) == game.length and body[-1] == tail.y * w + tail.x:
                    return
        if not force and body and head == body[0] and len(body) == game.length:
            return
        # Rebuild from the game's body.
        n = len(g.points)
        self._occ = [-1] * n
        self._last = [-(1 << 30)] * len(g.adj)
        self._fixed = [-(1 << 30)] * len(g.ends)
        self._fixed_by = [-1] * len(g.ends)
        cells = [p.y * w + p.x for p in game.body]
        self._body = deque(cells)
        length = len(cells)
        self._serial = length
        for i, c in enumerate(cells):
            self._occ[c] = length - i
            self._last[g.block[c]] = max(self._last[g.block[c]], length - i)
            if i:
                e = g.cedge[c]
                if e >= 0 and self._fixed[e] < length - i:
                    self._fixed[e] = length - i
                    self._fixed_by[e] = 1 if cells[i - 1] == g.cross[c] else 0

    def _advance(self, head: int, *, grow: bool) -> None:
        """Move the mirror's head to ``head`` (a move along the blocks' ways); the tail stays if
        the snake grows."""
        g = self._grid
        assert g is not None
        last = self._body[0]
        self._serial += 1
        self._occ[head] = self._serial
        self._last[g.block[head]] = self._serial
        e = g.cedge[last]
        if e >= 0:
            self._fixed[e] = self._occ[last]
            self._fixed_by[e] = 1 if head == g.cross[last] else 0
        self._body.appendleft(head)
        if not grow:
            self._occ[self._body.pop()] = -1

    def _check_state(self) -> str | None:
        """Why no spanning tree agrees with the body, or None if one does."""
        g = self._grid
        assert g is not None
        for s, c in pairwise(self._body):  # each body cell (c) and the cell it moved to (s)
            if s != g.dflt[c] and s != g.cross[c]:
                return f"the body at {g.points[c]} turns against the block's way round"
            e = g.cedge[c]
            if e >= 0 and self._fixed_by[e] != (1 if s == g.cross[c] else 0):
                return "two body cells disagree on a block edge"
        if not self._tree_possible(self._edge_states()):
            return "the body cuts the blocks apart or closes a loop"
        return None

    # -- constraints -----------------------------------------------------------------------

    def _edge_states(self) -> list[int]:
        """Edge -> 1 in the tree, 0 not, -1 free, as the body's cells fix them."""
        tail_serial = self._serial - len(self._body) + 1
        return [
            v if s >= tail_serial else -1 for s, v in zip(self._fixed, self._fixed_by, strict=True)
        ]

    def _tree_possible(self, state: list[int]) -> bool:
        """Whether a spanning tree holds every edge of state 1 and none of state 0."""
        g = self._grid
        assert g is not None
        # 1. The forced edges must not close a loop; 2. the edges not forbidden must join
        # every block.
        spanned = span(g.ends, len(g.adj), state)
        # Edges join only free blocks: a tree over them all takes one edge fewer than blocks.
        return spanned is not None and spanned[2] == len(g.blocks) - 1

    def _edge_now(self, e: int, keep: int) -> int:
        """The body's constraint on edge ``e`` from cells of rank > keep: 1, 0 or -1 (none)."""
        tail_serial = self._serial - len(self._body) + 1
        return self._fixed_by[e] if self._fixed[e] - tail_serial > keep else -1

    def _move_keeps_tree(self, target: int, eats: bool) -> bool:
        """Exact check: after the head moves to ``target``, some spanning tree still fits."""
        g = self._grid
        assert g is not None
        head = self._body[0]
        e0 = g.cedge[head]
        if e0 < 0:
            return True  # no new constraint; dropping the tail only relaxes
        v0 = 1 if target == g.cross[head] else 0
        keep = -1 if eats else 0  # the tail's constraint goes unless the snake eats
        now = self._edge_now(e0, keep)
        if now >= 0:
            return now == v0
        a, b = g.ends[e0]
        if v0 == 1:
            # A new tree edge must not join two blocks the forced edges already join. Those are
            # the crossings of the body's cells of rank > keep, a run of cells ending at the
            # head: they join just the blocks that run passes through, the head's among them.
            # So the edge closes a loop if and only if the run passes through its other block.
            other = b if a == g.block[head] else a
            return self._last[other] <= self._serial - len(self._body) + 1 + keep
        # A forbidden edge must not cut the blocks the other edges still join.
        return self._joined(a, b, keep, skip=e0)

    def _joined(self, a: int, b: int, keep: int, *, skip: int) -> bool:
        """Whether blocks a and b meet over edges not forbidden (``skip`` aside)."""
        g = self._grid
        assert g is not None
        self._gen += 1
        gen = self._gen
        seen = self._seen
        seen[a] = gen
        # Breadth first: a and b are neighbours, so an open way round is usually a few blocks.
        queue = deque([a])
        fixed, fixed_by, adj = self._fixed, self._fixed_by, g.adj
        newer = self._serial - len(self._body) + 1 + keep
        while queue:
            x = queue.popleft()
            for e, y in adj[x]:
                if e == skip or seen[y] == gen or (fixed[e] > newer and not fixed_by[e]):
                    continue  # skipped, seen, or forbidden by the body (_edge_now, inlined)
                if y == b:
                    return True
                seen[y] = gen
                queue.append(y)
        return False

    # -- choosing a move -------------------------------------------------------------------

    def next_direction(self, game: Game) -> Direction:
        """Plan the shortest cell-tree path to the food and take its first step if it is safe."""
        if self._inner is not None:
            return self._inner.next_direction(game)
        if self._ring is None:
            self._sync(game)
            g = self._grid
            assert g is not None
            blocks = len(g.blocks)
            if blocks > self.endgame_blocks or 4 * blocks - game.length > self.endgame_free:
                choice = self._choose(self._food_index(game), game.since_food, game)
                return self._direction(self._body[0], choice)
            self._ring = self._witness_cycle()
        return self._late_move(game, self._ring)

    def _late_move(self, game: Game, ring: list[int]) -> Direction:
        """A late-game move: along a shorter way to the food if one is planned, else ``ring``.

        Once per food it searches for a way shorter than the ring's after which the body
        closes into a Hamiltonian cycle; if found, the ring becomes that cycle.
        """
        cells = grid_of(game.board)
        head = cells.index(game.head)
        appeared = game.steps - game.since_food
        if not self._lane and game.food is not None and self._searched != appeared:
            self._searched = appeared
            food = cells.index(game.food)
            ahead, c = 0, head
            while c != food:
                c = ring[c]
                ahead += 1
            body = [cells.index(p) for p in game.body]
            found = closing_path(cells, body, food, ahead - 1, self.endgame_nodes)
            if found is not None:
                moves, cycle = found
                for a, b in pairwise([*cycle, cycle[0]]):
                    ring[a] = b
                self._lane.extend(moves)
        nxt = self._lane.popleft() if self._lane else ring[head]
        move = cells.direction(head, nxt)
        assert move is not None
        return move

    def _choose(self, food: int, since_food: int, game: Game | None) -> int:
        """The cell to move to next, with the food at ``food`` (-1: none), ``since_food`` moves
        after the last one eaten; the mirror must be in step with the game. Without ``game`` (a
        play-out's), no move is played out."""
        g = self._grid
        assert g is not None
        head = self._body[0]
        options = [c for c in (g.dflt[head], g.cross[head]) if c >= 0 and self._occ[c] < 0]
        # 1. Re-planning is a heuristic; after a lap without food, follow a fixed cycle.
        if since_food > len(g.blocks) * 4 and self._follow is None:
            self._follow = self._witness_cycle()
        if self._follow is not None:
            if since_food == 0:
                self._follow = None
            else:
                return self._follow[head]
        # 2. A route chosen earlier: keep to it while every step stays safe.
        commit = self._commit
        if commit:
            c = commit.popleft()
            if c in options and self._move_keeps_tree(c, c == food):
                score = self._commit_score
                self._commit_score = score - 1000
                if (
                    game is not None
                    and score >= 0
                    and c != food
                    and len(options) == 2
                    and self._rebranch_now(score)
                ):
                    # On mid-sized boards, play out the move the route does not take too.
                    other = options[0] if options[1] == c else options[1]
                    alt = self._rebranch(game, other, food, score)
                    if alt is not None:
                        commit.clear()
                        commit.extend(alt[0][1:])
                        self._commit_score = alt[1] - 1000
                        return other
                return c
            commit.clear()
        # 3. The shortest path to the food in the two-moves-per-cell graph.
        order = list(options)
        first, route = self._first_step(food)
        if first in order:
            order.sort(key=lambda c: c != first)
        elif first == -2 and len(order) == 2:
            order.reverse()
        safe: list[int] = []
        for c in order:
            if self._move_keeps_tree(c, c == food):
                safe.append(c)
                if not self.lookahead:
                    break  # a play-out takes the first safe move
        if not safe:
            raise AssertionError("the cell tree lost its spanning tree")  # pragma: no cover
        # 4. The plan ignores what the body will look like after eating: play both moves out
        # (each then following this same policy) and keep the one that eats sooner, counting
        # also how far, on average, a free cell is from there. The winner's route is kept to
        # until the food, so this costs two routes' work per food, not per move.
        if self.lookahead and game is not None and len(safe) == 2:
            best: list[int] | None = None
            best_score = _FAR
            variants = self._variants()
            for c in safe:
                for shut, hug in variants:
                    out = self._rollout(game, c, len(g.points) * 2, shut, hug, best_score)
                    if out is not None and out[1] < best_score:
                        best, best_score = out
            if best is not None:
                self._commit.extend(best[1:])
                self._commit_score = best_score - 1000
                return best[0]
        # 5. A path that cuts nothing off stays the shortest as the snake walks it: keep to it
        # rather than search again each move.
        if route and route[0] == safe[0]:
            self._commit.extend(route[1:])
            self._commit_score = -1
        return safe[0]

    def _rebranch_now(self, score: int) -> bool:
        """Whether to play out the other move at this move of a route scoring ``score``: at
        every move on boards of up to ``sparse_blocks`` blocks, else every ``rebranch_every``-th."""
        g = self._grid
        assert g is not None
        return len(g.blocks) <= self.sparse_blocks or (score // _STEP) % self.rebranch_every == 0

    def _rebranch(
        self, game: Game, other: int, food: int, score: int
    ) -> tuple[list[int], int] | None:
        """The play-out from ``other`` (the move a kept route does not take) and its score, if
        the board has more than ``few_blocks`` and at most ``rebranch_blocks`` blocks, ``other``
        keeps the tree, and the play-out scores below ``score`` (the rest of the route's)."""
        g = self._grid
        assert g is not None
        if not self.few_blocks < len(g.blocks) <= self.rebranch_blocks:
            return None
        if not self._move_keeps_tree(other, other == food):
            return None
        out = self._rollout(game, other, len(g.points) * 2, self.shut, self._hug, score)
        return out if out is not None and out[1] < score else None

    def _variants(self) -> list[tuple[int, int]]:
        """The (shut cost, hug cost) pairs each play-out is tried with on this board."""
        g = self._grid
        assert g is not None
        more = self.shut_variants if len(g.blocks) <= self.variant_blocks else self.wide_variants
        return [(self.shut, self._hug)] + [(s, self._hug) for s in more]

    def _rollout(
        self, game: Game, first: int, limit: int, shut: int, hug: int, bound: int = _FAR
    ) -> tuple[list[int], int] | None:
        """The moves this policy (without look-ahead, with ``shut`` as its shut cost) makes from
        ``first`` until it eats, and their score: 1000 a move, plus ``after_weight`` times the
        mean distance to a free cell.

        None if it takes ``limit`` moves or more, or the game ends otherwise. The play-out
        moves only its own mirror of the body, by the rules of ``game`` (which it leaves alone).
        """
        sim = TreeSolver.__new__(TreeSolver)
        sim._grid = self._grid
        sim._occ = list(self._occ)
        sim._body = deque(self._body)
        sim._serial = self._serial
        sim._last = list(self._last)
        sim._fixed = list(self._fixed)
        sim._fixed_by = list(self._fixed_by)
        sim._seen = self._seen  # shared, with the generation counter handed back below
        sim._gen = self._gen
        sim._follow = None
        sim._nbrs = self._nbrs
        sim._toward = self._toward  # the same food: the bounds carry over (read only)
        sim._open = self._open
        sim._kept = (-1, [], None)
        sim._hug = hug
        sim._inner = None
        sim._commit = deque()
        sim._commit_score = -1
        sim.lookahead = False
        sim.shut = shut
        route = [first]
        cell = first
        cells = grid_of(game.board)
        food = self._food_index(game)
        since_food = game.since_food
        toward = self._bound_to(food) if food >= 0 else []
        # No play-out scores less than its moves plus the least its after-eating term can be
        # (unless it stalls first, which ends it without that term).
        floor = 0
        if self.after_weight and food >= 0 and game.since_food + limit < game.stall_limit:
            floor = self._after_floor(food, len(self._open) - len(self._body) - 1)
        try:
            # Every chosen move keeps the tree, so none is fatal; the play-out ends when the
            # snake eats (and the game is won if the snake then fills the board) or stalls.
            while True:
                if cell == food:
                    sim._advance(cell, grow=True)
                    over = len(sim._body) >= game.board.size
                    break
                since_food += 1
                if since_food >= game.stall_limit:
                    over = True
                    break
                # No route eats in fewer moves than the distance to the food along the blocks'
                # ways with no body in the way (or, without A*, walls aside).
                ahead = toward[cell] // _STEP if toward else cells.distance(cell, food)
                if len(route) >= limit or _STEP * (len(route) + ahead) + floor >= bound:
                    return None  # too long, or it cannot score below ``bound``
                sim._advance(cell, grow=False)
                cell = sim._choose(food, since_food, None)
                route.append(cell)
            score = 1000 * len(route)
            if not over and self.after_weight:
                after = self._after_term(sim, food, bound - score)
                if after is None:
                    return None  # it cannot score below ``bound``
                score += after
        finally:
            self._gen = sim._gen
        return route, score

    def _after_term(self, sim: TreeSolver, food: int, limit: int) -> int | None:
        """``after_weight`` times the mean number of moves (x 1000), in the simulated state just
        after eating at ``food``, to reach a free cell (one out of reach counts as many moves as
        the board has cells); None as soon as that is sure to be ``limit`` or more."""
        occ = sim._occ
        free = [c for c in self._open if occ[c] < 0]
        if not free:
            return 0
        if limit <= 0:
            return None
        weight, count = self.after_weight, len(free)
        need = -(-1000 * limit // weight)  # the least mean (x 1000) whose term reaches limit
        cap = -(-need * count // 1000)  # the least sum of moves with that mean
        far = self._spread_from(food)[0]
        reach = sim._moves_to_cells(far, sum(far[c] for c in free), cap)
        if reach is None:
            return None
        n = len(occ)
        return self._weighted_mean(sum(k if k >= 0 else n for k in (reach[c] for c in free)), count)

    def _weighted_mean(self, total: int, count: int) -> int:
        """``after_weight`` times the mean ``total / count`` (thousandths, rounded down, as the
        after-eating term counts it; it grows with ``total``)."""
        return self.after_weight * (1000 * total // count) // 1000

    def _after_floor(self, food: int, free: int) -> int:
        """The least after-eating term (``_after_term``) of a play-out that eats at ``food``
        leaving ``free`` cells free.

        No way from there is shorter than along the blocks' ways with no body in the way, so
        the mean over any ``free`` cells is at least that of the ``free`` nearest ones."""
        if free <= 0:
            return 0
        return self._weighted_mean(self._spread_from(food)[1][free], free)

    def _spread_from(self, food: int) -> tuple[list[int], list[int]]:
        """Cell -> its distance from ``food`` along the blocks' ways with no body in the way (the
        board's cell count if none), and k -> the sum of the k nearest (cached per food)."""
        if self._spread[0] != food:
            g = self._grid
            assert g is not None
            far = spread(food, g.ways, 1, len(g.points))
            sums = [0]
            for k in sorted(far[c] for c in self._open if c != food):
                sums.append(sums[-1] + k)
            self._spread = (food, far, sums)
        return self._spread[1], self._spread[2]

    def _moves_to_cells(
        self, far: list[int] | None = None, low: int = 0, cap: int = _FAR
    ) -> list[int] | None:
        """Cell -> the number of moves along the planner's cheapest path to it from the head
        (-1: none). The same search as ``_plan`` with no goal, in a leaner loop: it runs over
        the whole board once per play-out, and the costs must stay the same as ``_plan``'s (see
        the comments there; a test holds the two to the same move counts).

        With ``far`` (cell -> at most its number of moves) and ``low`` (the sum of ``far`` over
        the free cells), None as soon as the sum of the moves to the free cells is sure to
        reach ``cap``."""
        g = self._grid
        assert g is not None
        occ, fixed, fixed_by, last = self._occ, self._fixed, self._fixed_by, self._last
        ways, crossing, cross, cedge, block = g.ways, g.crossing, g.cross, g.cedge, g.block
        step_same, step_new, step_back = (_STEP + p for p in self.penalties)
        shut, hug, nbrs = self.shut, self._hug, self._nbrs
        head = self._body[0]
        tail_serial = self._serial - len(self._body) + 1
        n = len(occ)
        far = far or [0] * n
        done = [False] * n
        best = [_FAR] * n
        steps = [-1] * n
        best[head] = steps[head] = 0
        heap = [head]
        while heap:
            c = heappop(heap) % n
            if done[c]:
                continue
            done[c] = True
            cost = best[c]
            t = steps[c]
            if occ[c] < 0:
                low += t - far[c]  # a free cell's moves are known: the sum's floor rises
                if low >= cap:
                    return None
            lim = t + tail_serial
            t += 1
            e = cedge[c]
            v = fixed_by[e] if e >= 0 and fixed[e] > lim else -1
            cc = cross[c]
            for d in ways[c] if v != 1 else crossing[c]:
                if done[d] or occ[d] >= lim:
                    continue
                if d != cc:
                    nc = cost + step_same
                    if v == -1 and cc >= 0 and last[block[cc]] <= lim:
                        nc += shut
                elif v == 1:
                    nc = cost + step_back
                elif v == 0 or last[block[d]] > lim:
                    continue
                else:
                    nc = cost + step_new
                if hug:
                    for q in nbrs[d]:
                        if occ[q] < 0:
                            nc += hug
                if nc < best[d]:
                    best[d] = nc
                    steps[d] = t
                    heappush(heap, nc * n + d)
        return steps

    def _first_step(self, food: int) -> tuple[int, list[int]]:
        """The first cell of a good path: to the food, or to blocks it would cut off first.

        -1 if there is no plan, -2 if the only plan found would break the tree; the list is the
        whole path to the food (without the head) when it cuts nothing off, else empty. While
        the head walks along the last path to the food, the rest of it is taken again without
        a new search.
        """
        g = self._grid
        assert g is not None
        if food < 0:
            return -1, []
        goal = [False] * len(g.points)
        goal[food] = True
        bound = self._bound_to(food)
        head = self._body[0]
        serial, path, cut = self._kept
        if serial == self._serial - 1 and len(path) > 2 and path[1] == head and path[-1] == food:
            # The head took the first move of the last plan: the rest of it stands in for a new
            # search, which finds that same rest nearly always (20x20 seed 1: 9,221 times out
            # of 9,239). Eating at its end leaves the same body, so its cut check stands too.
            # Taking the rest: 20x20 seeds 1-200, 11,007.2 steps (11,014.3 searching each
            # time) at two thirds of the instructions.
            path = path[1:]
        else:
            found = self._plan(goal, bound=bound)
            if found is None or len(found) < 2:
                self._kept = (-1, [], None)
                return -1, []
            # 3. If the tree cannot survive the whole path, see which blocks it cuts off.
            path, cut = found, self._path_cuts(found)
        self._kept = (self._serial, path, cut)
        if cut == []:
            return path[1], path[1:]
        # 4. The best path that starts with the other move may keep the tree whole, if it is
        # at most ``slack`` moves longer (it takes at least the distance from there).
        other = g.cross[head] if path[1] == g.dflt[head] else g.dflt[head]
        longest = len(path) + self.slack
        if (
            other >= 0
            and self._occ[other] < 0
            and (not bound or 2 + bound[other] // _STEP <= longest)
        ):
            path2 = self._plan(goal, other, bound=bound)
            if path2 is not None and len(path2) <= longest and self._path_cuts(path2) == []:
                return other, []
        if cut is None:
            return -2, []
        # 5. On small boards: the best path that enters the blocks it would cut off as it
        # passes them, if that path cuts nothing off.
        if len(g.blocks) <= self.few_blocks:
            avoid = [False] * len(g.adj)
            for b in cut:
                avoid[b] = True
            path3 = self._plan(goal, avoid=avoid, bound=bound)
            if path3 is not None and len(path3) >= 2 and self._path_cuts(path3) == []:
                return path3[1], []
        # 6. Visit the blocks the path would cut off first (join them to the tree).
        goal[food] = False
        occ = self._occ
        for b in cut:
            for c in g.cells_of[b]:
                goal[c] = occ[c] < 0
        detour = self._plan(goal)
        if detour is None or len(detour) < 2:
            return -2, []
        return detour[1], []

    def _bound_to(self, food: int) -> list[int]:
        """Cell -> a lower bound on the cost of a plan from it to ``food``: 1000 times its
        distance there along the blocks' ways with no body in the way (cached per food)."""
        if self.astar and self._toward[0] != food:
            g = self._grid
            assert g is not None
            self._toward = (food, spread(food, g.pred, _STEP, _FAR))
        return self._toward[1] if self.astar else []

    def _path_cuts(self, path: list[int]) -> list[int] | None:
        """The blocks cut off once the snake has eaten at the end of ``path`` (none: []), or
        None if the path disagrees with the body or with itself, or closes a loop of tree edges.

        This is the spanning-tree question of ``_tree_possible`` for the edge states after
        eating, answered along the walk instead of over every edge. The cells that constrain
        edges then are one walk: the body's cells that are still body, ending at the head, then
        the path. Its cross moves are the forced edges, so they join exactly the blocks the walk
        passes through (W), and they close a loop if and only if a cross move on a new edge
        enters a block already passed. Every constrained edge has a block of W at one end (a
        cell constrains only its own block's edge), so the blocks outside W meet over free
        edges, and a group of them is cut off if and only if each of its edges to W is
        forbidden.
        """
        g = self._grid
        assert g is not None
        cross, cedge, block, adj = g.cross, g.cedge, g.block, g.adj
        fixed, fixed_by, last = self._fixed, self._fixed_by, self._last
        body = self._body
        # Serial numbers above this are still body, with their constraints, after eating.
        newer = self._serial - len(body) + len(path) - 2
        # When the path is longer than the body, its first cells are no longer body either.
        drop = max(0, len(path) - 1 - len(body))
        a = path[drop]
        # The path's first block and those it enters over new tree edges; with the blocks of
        # the body's run (``last`` above ``newer``), they make W.
        walked = {block[a]}
        mine: dict[int, int] = {}  # edge -> the path's constraint on it
        for b in islice(path, drop + 1, None):
            e = cedge[a]
            if e >= 0:
                v = 1 if b == cross[a] else 0
                if fixed[e] > newer:
                    if fixed_by[e] != v:
                        return None  # the body holds this edge the other way
                elif e in mine:
                    if mine[e] != v:
                        return None  # the path holds it both ways
                else:
                    mine[e] = v
                    if v:
                        d = block[b]
                        if last[d] > newer or d in walked:
                            return None  # a new tree edge into a block passed: a loop
                        walked.add(d)
            a = b
        # Before the path, some tree fitted the whole body, so a group cut off now has an edge
        # the path forbids: look for groups only from there. A group's search stops at its
        # first edge to W that is not forbidden, or at a block an earlier search (which must
        # have found one) marked.
        seen = self._seen
        first_gen = self._gen + 1
        cut: list[int] = []
        for e, v in mine.items():
            if v:
                continue
            for u in g.ends[e]:
                if last[u] > newer or u in walked or seen[u] >= first_gen:
                    continue
                self._gen += 1
                gen = self._gen
                seen[u] = gen
                group = [u]
                joined = False
                k = 0
                while k < len(group) and not joined:
                    for f, y in adj[group[k]]:
                        if last[y] > newer or y in walked:
                            if not (fixed[f] > newer and not fixed_by[f]) and mine.get(f, 1):
                                joined = True  # an edge to W that nothing forbids
                                break
                        elif seen[y] < first_gen:
                            seen[y] = gen
                            group.append(y)
                        elif seen[y] != gen:
                            joined = True  # a block of a group found joined already
                            break
                    k += 1
                if not joined:
                    cut += group
        return cut

    def _food_index(self, game: Game) -> int:
        food = game.food
        return -1 if food is None else food.y * game.board.width + food.x

    def _direction(self, a: int, b: int) -> Direction:
        g = self._grid
        assert g is not None
        turns = g.turns[a]
        if turns is not None and b == g.dflt[a]:
            return turns[0]
        if turns is not None and b == g.cross[a]:
            return turns[1]
        pa, pb = g.points[a], g.points[b]  # a late-game move off the blocks' ways
        for d in (_U, _D, _L, _R):
            if g.board.step(pa, d) == pb:
                return d
        raise AssertionError("cells are not adjacent")  # pragma: no cover

    def _plan(
        self,
        goal: list[bool],
        first: int = -1,
        avoid: list[bool] | None = None,
        bound: list[int] | None = None,
    ) -> list[int] | None:
        """Cheapest path from the head (through ``first`` if given) to a goal cell.

        With ``avoid`` (block -> bool), passing by one of those blocks without entering it costs
        ``avoid_cost`` more. With ``bound`` (cell -> a lower bound on its cost to the goal), the
        search is A*.

        Body cells count as free once the tail has left them, a body cell's edge constraint
        holds until then, and a cross move may not enter a block the body still holds (that
        would close a loop in the tree), unless it retraces a tree edge.
        """
        g = self._grid
        assert g is not None
        occ, fixed, fixed_by, cross, cedge, block, last = (
            self._occ,
            self._fixed,
            self._fixed_by,
            g.cross,
            g.cedge,
            g.block,
            self._last,
        )
        head = self._body[0]
        tail_serial = self._serial - len(self._body) + 1
        step_same, step_new, step_back = (_STEP + p for p in self.penalties)
        ways, crossing = g.ways, g.crossing
        shut = self.shut
        avoid_cost = self.avoid_cost
        hug = self._hug
        nbrs = self._nbrs
        self._gen += 1
        gen = self._gen
        seen = self._seen  # cells settled
        n = len(occ)
        # A* when ``bound`` is given. Heap keys are (cost + bound) * n + cell: one int orders
        # as the pair would.
        h = bound or [0] * n
        best = [_FAR] * n
        prev = [-1] * n
        steps = [-1] * n
        best[head] = steps[head] = 0
        heap = [head]
        while heap:
            c = heappop(heap) % n
            if seen[c] == gen:
                continue
            seen[c] = gen
            if goal[c]:
                path = [c]
                while prev[path[-1]] >= 0:
                    path.append(prev[path[-1]])
                path.reverse()
                return path
            cost = best[c]
            t = steps[c]
            lim = t + tail_serial  # serial numbers above this are still body at time t
            t += 1
            # The body's constraint on this cell's edge while it lasts (rank > t).
            e = cedge[c]
            v = fixed_by[e] if e >= 0 and fixed[e] > lim else -1
            cc = cross[c]
            for d in ways[c] if v != 1 else crossing[c]:
                if seen[d] == gen or occ[d] >= lim or (c == head and first >= 0 and d != first):
                    continue  # settled, still under the body on arrival, or not ``first``
                if d == cc:
                    if v == 1:
                        step = step_back  # retracing a tree edge
                    elif v == 0 or last[block[d]] > lim:
                        continue  # a forbidden edge, or a loop into the body's blocks
                    else:
                        step = step_new
                else:
                    step = step_same
                    if v == -1 and e >= 0:
                        if last[block[cc]] <= lim:
                            step += shut  # passing by a block the body has not reached
                        if avoid is not None and avoid[block[cc]]:
                            step += avoid_cost  # passing by a block the path would cut off
                nc = cost + step
                if hug:
                    # Prefer cells with few free neighbours: the path hugs the body and the
                    # walls and leaves the free space in one piece.
                    for q in nbrs[d]:
                        if occ[q] < 0:
                            nc += hug
                if nc < best[d]:
                    to_go = h[d]
                    if to_go < _FAR:
                        best[d] = nc
                        prev[d] = c
                        steps[d] = t
                        heappush(heap, (nc + to_go) * n + d)
        return None

    def _ring_overlay(self, game: Game, ring: list[int]) -> dict[Point, str]:
        """The late game's cycle (after the planned way to the food, if any), as arrows."""
        cells = grid_of(game.board)
        out: dict[Point, str] = {}
        c = cells.index(game.head)
        for nxt in self._lane:
            out[cells.points[c]] = _ARROWS[self._direction(c, nxt)]
            c = nxt
        while not game.occupied(cells.points[c]) or not out:
            out[cells.points[c]] = _ARROWS[self._direction(c, ring[c])]
            c = ring[c]
        return out

    def _witness_cycle(self) -> list[int]:
        """The successor of every cell on one Hamiltonian cycle that agrees with the body."""
        g = self._grid
        assert g is not None
        spanned = span(g.ends, len(g.adj), self._edge_states())
        assert spanned is not None  # the body always fits some tree (the invariant)
        tree = spanned[1]
        return [
            (g.cross[c] if g.cedge[c] >= 0 and tree[g.cedge[c]] else g.dflt[c])
            for c in range(len(g.points))
        ]

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The current witness cycle, as arrows on the head and on the cells not yet covered."""
        if self._inner is not None:
            return self._inner.overlay(game)
        if self._grid is None or game.over:
            return {}
        if self._ring is not None:
            return self._ring_overlay(game, self._ring)
        self._sync(game)
        g = self._grid
        nxt = self._witness_cycle()
        out: dict[Point, str] = {}
        head = self._body[0]
        for c, p in enumerate(g.points):
            if g.block[c] >= 0 and (self._occ[c] < 0 or c == head):
                out[p] = _ARROWS[self._direction(c, nxt[c])]
        return out
