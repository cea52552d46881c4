"""The cell tree's tuning knobs (``TreeConfig``) and the unit its costs are counted in.

What each knob is worth, and the commands that measure it, are in docs/tuning.md, section
"Cell tree (`tree`, `best`)".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

STEP: Final = 1000  # the cost of one move; every penalty below is in thousandths of a move
FAR: Final = 1 << 60  # more than any cost or score


@dataclass(frozen=True, slots=True)
class TreeConfig:
    """Every tuning knob of the cell-tree solver; the defaults are the measured best."""

    # Tie-break costs of a move inside a block, into a new block, back along a tree edge.
    penalties: tuple[int, int, int] = (1, 1, 0)
    # Search toward the food with A*, bounded by the distance along the blocks' ways: the same
    # paths as Dijkstra, found sooner.
    astar: bool = True
    # How many more moves a path through the other move may take when the best path would cut
    # blocks off.
    slack: int = 2
    # The extra cost of passing a block the body has not reached (it closes that block's edge).
    shut: int = 1000
    # Choose between the two moves by playing each out until the snake eats.
    lookahead: bool = True
    # The weight of the mean distance to a free cell after eating, in a play-out's score.
    after_weight: int = 2000
    # The extra cost of entering a cell per free neighbour, on boards of at most hug_blocks
    # blocks: the path hugs the body and the walls and leaves the free space in one piece.
    hug: int = 300
    hug_blocks: int = 64
    # On boards of at most few_blocks blocks, a path that would cut blocks off is first planned
    # again with avoid_cost for passing each of them.
    few_blocks: int = 16
    avoid_cost: int = 20000
    # Other shut costs each play-out is tried with: shut_variants on boards of at most
    # variant_blocks blocks, wide_variants on larger ones.
    variant_blocks: int = 36
    shut_variants: tuple[int, ...] = (0, 3000, 10000)
    wide_variants: tuple[int, ...] = (0, 10000)
    # One more play-out whose way round a path that cuts blocks off chases the tail (which
    # opens those blocks again) instead of going into them first.
    chase: bool = True
    # Re-branching, on boards of more than few_blocks and at most rebranch_blocks blocks: the
    # move a kept route does not take is played out too; on boards of more than sparse_blocks
    # blocks only at every rebranch_every-th move of the route, and of more than sparser_blocks
    # at every sparser_every-th, to save time.
    rebranch_blocks: int = 256
    sparse_blocks: int = 36
    rebranch_every: int = 2
    sparser_blocks: int = 100
    sparser_every: int = 3
    # The late game, on boards of at most late_blocks blocks, once at most late_free cells
    # are free; its search for a shorter way gives up after late_nodes positions, and each
    # closure it tries after completion_nodes.
    late_free: int = 32
    late_blocks: int = 36
    late_nodes: int = 20000
    completion_nodes: int = 2000
    # The opening, on boards where at least opening_dead_ends percent of the blocks are dead
    # ends (one neighbouring block: the tree's cycle, and so the snake, goes into each one it
    # passes): straight to the food while the snake fills at most opening_percent of the free
    # cells, each way leaving an escape onto the blocks' ways that holds with the tail
    # opening_margin moves late.
    opening_dead_ends: int = 3
    opening_percent: int = 25
    opening_margin: int = 2
    # Nor on boards of fewer than opening_blocks blocks: there a quarter of the board is a few
    # cells, too few for an escape to leave room, and the escapes can take turns without eating.
    opening_blocks: int = 32

    def hug_on(self, blocks: int) -> int:
        """The hug cost on a board of ``blocks`` blocks."""
        return self.hug if blocks <= self.hug_blocks else 0

    def variants_on(self, blocks: int) -> tuple[int, ...]:
        """The shut costs a play-out is tried with, besides ``shut``, on a board of ``blocks``."""
        return self.shut_variants if blocks <= self.variant_blocks else self.wide_variants

    def rebranches_on(self, blocks: int) -> bool:
        """Whether a board of ``blocks`` blocks re-branches at all."""
        return self.few_blocks < blocks <= self.rebranch_blocks

    def rebranch_now(self, blocks: int, score: int) -> bool:
        """Whether to re-branch at the move of a route whose rest scores ``score``: at every
        move on boards of up to ``sparse_blocks`` blocks, else every ``rebranch_every``-th, and
        on boards of more than ``sparser_blocks`` every ``sparser_every``-th.

        ``score // STEP`` is not the moves left (the score adds the after-eating term, fixed
        for the route), but it falls by exactly one at each move of it (``Policy.take_route``
        takes STEP off), which is all "every n-th move" needs; where it starts is arbitrary."""
        if blocks <= self.sparse_blocks:
            return True
        every = self.rebranch_every if blocks <= self.sparser_blocks else self.sparser_every
        return (score // STEP) % every == 0

    def opening_length(self, blocks: int, dead_ends: int, free: int) -> int:
        """The longest snake that still plays the opening on a board of ``blocks`` blocks,
        ``dead_ends`` of them dead ends, and ``free`` free cells (0: no opening)."""
        if blocks < self.opening_blocks or 100 * dead_ends < self.opening_dead_ends * blocks:
            return 0
        return free * self.opening_percent // 100

    def late_game(self, blocks: int, free: int) -> bool:
        """Whether a board of ``blocks`` blocks with ``free`` free cells is in the late game."""
        return blocks <= self.late_blocks and free <= self.late_free
