"""What sessions share: players' names, the games in progress (to watch), the scores and the
key presets players chose."""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from termsnake.core.game import Game
from termsnake.core.speed import DEFAULT_SPEED
from termsnake.formats.scores import ScoreStore
from termsnake.serve.keymemory import FILE_NAME, KeyMemory
from termsnake.serve.limits import MAX_PLAYER_NAME
from termsnake.serve.trouble import Trouble


@dataclass(frozen=True)
class Live:
    """A game in progress as it stands: who plays, where, a copy of the game (never the live
    game itself), its speed and whether it is paused. Each move, pause or change of speed
    replaces it whole."""

    who: str
    level: str
    game: Game
    speed: float = DEFAULT_SPEED
    paused: bool = False
    # The pages drawn of this state, by terminal size: every watcher of that size shares one.
    pages: dict[tuple[int, int], list[str]] = field(default_factory=dict, compare=False)


class Hub:
    """The server's shared state, safe to use from every session's thread."""

    def __init__(self, scores: ScoreStore, key_presets: KeyMemory | None = None) -> None:
        self.scores = scores
        # Beside the scores unless given: a server's data are in one place.
        self.key_presets = (
            key_presets if key_presets is not None else KeyMemory(scores.path.with_name(FILE_NAME))
        )
        self.score_trouble = Trouble()  # what went wrong keeping a score, said in the log once
        self._lock = threading.Lock()
        self._names: set[str] = set()
        self._live: dict[int, Live] = {}
        self._watchers: dict[int, set[Callable[[], None]]] = {}
        self._ids = itertools.count(1)

    def give_up_saving_at(self, deadline: float) -> None:
        """The server is stopping: a score or a key preset waits for its file's lock, held by
        another program, until ``deadline`` (``time.monotonic``) at most, and is then said in
        the log as not kept (once, as the files' other trouble)."""
        for store in (self.scores, self.key_presets):
            store.cutoff.give_up_at(deadline, "was still locked as the server stopped")

    def claim_name(self, wanted: str) -> str:
        """A printable name no other session has, made from the ssh user name."""
        base = re.sub(r"[^A-Za-z0-9_.-]+", "", wanted)[:MAX_PLAYER_NAME] or "player"
        with self._lock:
            for n in itertools.count(1):
                name = base if n == 1 else f"{base[: MAX_PLAYER_NAME - len(str(n)) - 1]}-{n}"
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
            self._live[live_id] = Live(who, level, game.copy(history=False))
            return live_id

    def publish(self, live_id: int, game: Game, speed: float, paused: bool) -> None:
        """The game moved, or its speed or pause changed: watchers see the new state, and are
        woken to draw it."""
        copy = game.copy(history=False)  # watchers draw the board; the past is the player's
        with self._lock:
            live = self._live.get(live_id)
            if live is None:
                return
            self._live[live_id] = Live(live.who, live.level, copy, speed, paused)
            wake = list(self._watchers.get(live_id, ()))
        for w in wake:
            w()

    def end(self, live_id: int) -> None:
        """The game is over and gone from the list; its watchers are woken to see that."""
        with self._lock:
            self._live.pop(live_id, None)
            wake = list(self._watchers.get(live_id, ()))
        for w in wake:
            w()

    def watch(self, live_id: int, wake: Callable[[], None]) -> None:
        """Call ``wake`` after every move of game ``live_id``, and when it ends."""
        with self._lock:
            self._watchers.setdefault(live_id, set()).add(wake)

    def unwatch(self, live_id: int, wake: Callable[[], None]) -> None:
        """Stop calling ``wake`` for game ``live_id``."""
        with self._lock:
            watchers = self._watchers.get(live_id, set())
            watchers.discard(wake)
            if not watchers:
                self._watchers.pop(live_id, None)

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
