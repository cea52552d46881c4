#!/usr/bin/env python3
"""A termsnake-engine/1 bot in plain Python: the shortest way to the food, when it is safe.

Run it with `termsnake --ai "exec:python3 examples/engines/greedy_engine.py"`. It reads one JSON
object a line on stdin and answers one a line on stdout, as DESIGN.md's engine protocol says.
"""

import json
import sys
from collections import deque

STEPS = {"U": (0, -1), "D": (0, 1), "L": (-1, 0), "R": (1, 0)}


class Board:
    """The walls and size of the board, and the one step rule (wrap or not)."""

    def __init__(self, info):
        self.width, self.height, self.wrap = info["width"], info["height"], info["wrap"]
        self.walls = {
            (x, y) for y, row in enumerate(info["rows"]) for x, c in enumerate(row) if c == "#"
        }

    def step(self, cell, move):
        x, y = cell[0] + STEPS[move][0], cell[1] + STEPS[move][1]
        if self.wrap:
            return x % self.width, y % self.height
        if 0 <= x < self.width and 0 <= y < self.height:
            return x, y
        return None

    def open_moves(self, cell, blocked):
        for move in STEPS:
            nxt = self.step(cell, move)
            if nxt is not None and nxt not in self.walls and nxt not in blocked:
                yield move, nxt


def first_move_to(board, start, goal, blocked):
    """The first move of a shortest path from start to goal, or None (breadth-first search)."""
    first = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            return first[cell]
        for move, nxt in board.open_moves(cell, blocked):
            if nxt not in first:
                first[nxt] = first[cell] or move
                queue.append(nxt)
    return None


def room(board, start, blocked):
    """How many cells can be reached from start."""
    seen, todo = {start}, [start]
    while todo:
        for _, nxt in board.open_moves(todo.pop(), blocked):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen)


def choose(board, body, food):
    """Toward the food if the head keeps room for the body there; else the roomiest move."""
    # The tail moves on before the head arrives, but the neck is never free.
    blocked = set(list(body)[:-1]) | set(list(body)[1:2])
    move = first_move_to(board, body[0], tuple(food), blocked) if food else None
    options = list(board.open_moves(body[0], blocked))
    if move is not None:
        head = board.step(body[0], move)
        if room(board, head, blocked | {body[0]}) >= len(body):
            return move
    if not options:
        return "U"  # every way is shut: the game is lost whatever we answer
    return max(options, key=lambda option: room(board, option[1], blocked | {body[0]}))[0]


def main():
    game = json.loads(sys.stdin.readline())
    board = Board(game["board"])
    body = deque(tuple(p) for p in game["body"])
    print(json.dumps({"name": "greedy-engine"}), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if "end" in message:
            break
        food = message["food"]
        move = choose(board, body, food)
        print(json.dumps({"move": move}), flush=True)
        head = board.step(body[0], move)
        if head is None:
            continue  # off the board or into a wall: the game is over, and the next line says so
        body.appendleft(head)
        if food is None or list(head) != food:
            body.pop()  # no food eaten: the tail moves on


if __name__ == "__main__":
    main()
