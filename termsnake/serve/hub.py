"""What sessions share: players' names, the games in progress (to watch) and the scores."""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass

from termsnake.core.game import Game
from termsnake.formats.scores import ScoreStore

MAX_NAME = 16


@dataclass
class Live:
    """A game in progress that others may watch: who plays, where, and its latest state."""

    who: str
    level: str
    game: Game  # a copy, replaced after every move; never the live game itself
    over: bool = False


class Hub:
    """The server's shared state, safe to use from every session's thread."""

    def __init__(self, scores: ScoreStore) -> None:
        self.scores = scores
        self._lock = threading.Lock()
        self._names: set[str] = set()
        self._live: dict[int, Live] = {}
        self._ids = itertools.count(1)

    def claim_name(self, wanted: str) -> str:
        """A printable name no other session has, made from the ssh user name."""
        base = re.sub(r"[^A-Za-z0-9_.-]+", "", wanted)[:MAX_NAME] or "player"
        with self._lock:
            for n in itertools.count(1):
                name = base if n == 1 else f"{base[: MAX_NAME - len(str(n)) - 1]}-{n}"
                if name not in self._names:
                    self._names.add(name)
                    return name
        raise AssertionError("unreachable")

    def release_name(self, name: str) -> None:
        """The session that had ``name`` has left."""
        with self._lock:
            self._names.discard(name)

    def start(self, who: str, level: str, game: Game) -> int:
        """Show a new game to watchers; its id."""
        with self._lock:
            live_id = next(self._ids)
            self._live[live_id] = Live(who, level, game.copy())
            return live_id

    def publish(self, live_id: int, game: Game) -> None:
        """The game moved: watchers see the new state."""
        copy = game.copy()
        with self._lock:
            live = self._live.get(live_id)
            if live is not None:
                live.game = copy
                live.over = game.over

    def end(self, live_id: int) -> None:
        """The game is over and gone from the list."""
        with self._lock:
            self._live.pop(live_id, None)

    def watchable(self) -> list[tuple[int, str]]:
        """The games in progress: id and a label, oldest first."""
        with self._lock:
            return [
                (i, f"{v.who} on {v.level}, length {v.game.length}")
                for i, v in sorted(self._live.items())
            ]

    def look(self, live_id: int) -> Live | None:
        """The latest state of a game in progress, or None once it is gone."""
        with self._lock:
            return self._live.get(live_id)
