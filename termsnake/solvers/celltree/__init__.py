"""The cell-tree solver (``tree``): a Hamiltonian cycle around a spanning tree of 2x2 blocks.

Modules, from the top: ``solver`` (TreeSolver), ``lookahead`` (a move: the policy's steps,
its play-outs, re-branching), ``policy`` (the policy's state and steps), ``planner`` (the one
path search and its cost model), ``spanning`` (does a tree still fit?), ``mirror`` (the body on the
blocks), ``distances`` (per-food distance maps), ``blocks`` (the board cut into blocks),
``tiling`` (boards the 2x2 blocks do not fit, cut into 2x3 and 3x2 blocks too), ``notched``
(blocks that are boxes less walls) and ``walls`` (which walls a notched box may ring), ``opening``
(a short snake off the blocks, on boards with dead ends), ``late`` (the late game off the
blocks) and ``config`` (the tuning knobs).

Names: here ``grid`` is the board cut into blocks (``blocks.BlockGrid``: each cell's two moves,
its block, the blocks' neighbours); the board's plain cell graph (``solvers.grid.Grid``, from
``grid_of``) is called ``cells``. Cells are indexes ``y * width + x`` in both.
"""

from termsnake.solvers.celltree.config import TreeConfig
from termsnake.solvers.celltree.solver import TreeSolver

__all__ = ["TreeConfig", "TreeSolver"]
