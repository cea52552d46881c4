"""Many benchmark games, streamed: played here or in worker processes, their records in task
order, with only a bounded number of games in flight, so that a run of any length takes the
same memory."""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import signal
import threading
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Final

from termsnake.bench.games import BOT_INTERRUPT, GameRecord, GameTask, Kit, play_one
from termsnake.exits import CtrlC, Noted, leave_with_main, remembered, signals_noted
from termsnake.formats.text import printable, shorten
from termsnake.orphans import (
    WorkerDied,
    dead_worker,
    die_with,
    spawning,
    start_resource_tracker,
)
from termsnake.solvers import plugins

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.process import BaseProcess
    from multiprocessing.sharedctypes import Synchronized

# spawn, not fork: safe whatever threads the parent runs (tqdm's monitor, the pool's own).
START_METHOD = "spawn"
# Batches of games in flight per worker: enough to keep it busy while the parent waits for
# the oldest batch, few enough that the records waiting to be taken in order stay few.
IN_FLIGHT: Final = 4
MAX_BATCH: Final = 16  # games a worker plays per call: fewer round trips, yet steady progress
POLL: Final = 0.25  # seconds between looks at the moves the workers made
# Seconds the workers get to end once a signal stopped the run (a game's clean-up, an engine's
# log read to its end, then the worker's exit, WORKERS_GRACE): one still running is killed.
STOP_GRACE: Final = 3.0


class Watcher:
    """Who hears how the games go: ``done(n)`` as n games end (in any order), ``moves(total)``
    with the moves made so far by all games, finished or not."""

    def done(self, games: int) -> None:
        """``games`` more games ended."""

    def moves(self, total: int) -> None:
        """``total`` moves have been made so far."""


def records(
    tasks: Iterable[GameTask],
    total: int,
    jobs: int,
    watcher: Watcher,
    kit: Kit,
    *,
    singly: bool = False,
) -> Generator[GameRecord, None, None]:
    """Each of the ``total`` tasks' record, in task order, the games played with ``kit``'s
    boards and weights (sent once to each worker) in ``jobs`` processes if more than one,
    handed out in batches (one game at a time if ``singly``: each
    record comes back as soon as its game, and those before it, have ended). Close the
    iterator (``contextlib.closing``) to stop early: the games not started are dropped, those
    under way are waited for."""
    if jobs <= 1 or total <= 1:
        return _here(tasks, watcher, kit)
    workers = min(jobs, total)
    size = 1 if singly else batch_size(total, workers)
    return _in_workers(tasks, workers, size, watcher, kit)


def _here(
    tasks: Iterable[GameTask], watcher: Watcher, kit: Kit
) -> Generator[GameRecord, None, None]:
    """The tasks' records, their games played one after another in this process."""
    moves = 0

    def moved(n: int) -> None:
        nonlocal moves
        moves += n
        watcher.moves(moves)

    for task in tasks:
        record = play_one(task, kit, moved)
        watcher.done(1)
        yield record


def batch_size(total: int, workers: int) -> int:
    """Games per call of a worker: several batches a worker over the run, at most MAX_BATCH."""
    return max(1, min(MAX_BATCH, total // (workers * IN_FLIGHT * 2)))


def _in_workers(
    tasks: Iterable[GameTask], workers: int, size: int, watcher: Watcher, kit: Kit
) -> Generator[GameRecord, None, None]:
    """The tasks' records in task order, their games played in ``workers`` processes in
    batches of ``size``, at most IN_FLIGHT batches a worker handed out at once."""
    ended: queue.SimpleQueue[Future[list[GameRecord]] | None] = queue.SimpleQueue()
    # A signal is raised only here, between steps: raised inside the pool's own code it could
    # leave a future's lock taken, and the pool's shutdown then waited for it for ever.
    with signals_noted(wake=lambda: ended.put(None)) as came:
        # Here, not with the module: a run played in this process (--jobs 1) needs none of it.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        start_resource_tracker()  # before the first semaphore (the lock of moves) starts it
        context = multiprocessing.get_context(START_METHOD)
        # Every worker's moves so far, in shared memory: the progress line's count.
        moves = context.Value("q", 0)
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_worker_init,
            initargs=(moves, os.getpid(), kit),
        )
        flight = _Flight(pool, ended)
        pending = iter(tasks)
        batches = iter(lambda: list(itertools.islice(pending, size)), [])
        try:
            while True:
                came.check()
                while len(flight.futures) < workers * IN_FLIGHT:
                    batch = next(batches, None)
                    if batch is None:
                        break
                    came.check()  # no worker started after a signal: it would miss it
                    flight.submit(batch, spawns=flight.submitted < workers)
                if not flight.futures:
                    break
                for future in flight.wait(POLL):
                    if future.exception() is None:
                        watcher.done(len(future.result()))
                # Read without its lock: no wait here that a signal, only noted, could not end.
                watcher.moves(moves.get_obj().value)
                for record in flight.taken():
                    came.check()
                    yield record
        except GeneratorExit:  # the caller stopped early: drop the games not started
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        except BrokenProcessPool:  # the pool has ended the other workers already
            # One died of a signal sent to the group: a worker started just after it never had
            # it, and is stopped as at Ctrl-C instead of playing its games out.
            if came.signum is not None:
                _stop(pool, multiprocessing.active_children())
            pool.shutdown(wait=True, cancel_futures=True)
            raise WorkerDied(_died(dead_worker(flight.started), flight.lost(), kit)) from None
        except BaseException:
            # Ctrl-C, or a signal that ended the run (SIGTERM): the workers stop their games as
            # a Ctrl-C stops them, letting go of their engines, and the games not started are
            # dropped.
            _stop(pool, multiprocessing.active_children())
            raise
        # The workers are waited for: one still starting when the run ends rebuilds ``moves``'s
        # semaphore, which is gone once this process lets go of it. A plugin's thread that never
        # ends no longer holds them (the grace _worker_init gives them).
        pool.shutdown()


class _Flight:
    """The batches handed to the workers and not yet taken back, oldest first. ``ended``
    hears of each as it ends (and of a signal, as None)."""

    def __init__(
        self,
        pool: ProcessPoolExecutor,
        ended: queue.SimpleQueue[Future[list[GameRecord]] | None],
    ) -> None:
        self.pool = pool
        self.ended = ended
        self.futures: deque[Future[list[GameRecord]]] = deque()
        # Ended (the watcher is told) and not yet taken back: ``taken`` takes them in task
        # order, each once the batches before it have ended too.
        self.ended_not_taken: set[Future[list[GameRecord]]] = set()
        self.batch_of: dict[Future[list[GameRecord]], list[GameTask]] = {}
        self.started: set[BaseProcess] = set()  # to tell how one died
        self.submitted = 0

    def submit(self, batch: list[GameTask], *, spawns: bool) -> None:
        """Hand ``batch`` out; ``spawns`` if that starts a worker."""
        with spawning(spawns):
            future = self.pool.submit(_play_in_worker, batch)
        if spawns:
            import multiprocessing  # loaded by _in_workers, as the pool started

            self.started.update(multiprocessing.active_children())
        future.add_done_callback(self.ended.put)
        self.futures.append(future)
        self.batch_of[future] = batch
        self.submitted += 1

    def wait(self, timeout: float) -> list[Future[list[GameRecord]]]:
        """The batches that ended since the last call, after up to ``timeout`` seconds of
        waiting for one (less if a signal comes)."""
        try:
            came = [self.ended.get(timeout=timeout)]
        except queue.Empty:
            return []
        with contextlib.suppress(queue.Empty):
            while True:
                came.append(self.ended.get_nowait())
        ended = [f for f in came if f is not None]
        self.ended_not_taken.update(ended)
        return ended

    def taken(self) -> Iterator[GameRecord]:
        """The records of the oldest batches that have ended, in order, taken out of flight."""
        while self.futures and self.futures[0] in self.ended_not_taken:
            played = self.futures[0].result()  # kept in flight if it raises: its games were lost
            head = self.futures.popleft()
            self.ended_not_taken.discard(head)
            del self.batch_of[head]
            yield from played

    def lost(self) -> list[GameTask]:
        """The games of the batches under way or lost when a worker died."""
        return [t for f in self.futures if not f.done() or f.exception() for t in self.batch_of[f]]


def _died(said: str, lost: list[GameTask], kit: Kit) -> str:
    """What a worker's death is said as: ``said`` (how it died), and the games under way then
    (the one that killed it, if a game did, among them)."""
    if not lost:
        return said

    def where(task: GameTask) -> str:
        level = kit.levels.get(task.spec)
        return f"{shorten(task.solver)} on {printable(level.name if level else task.spec.value)}"

    first, last = lost[0], lost[-1]
    if where(first) != where(last):
        span = f"{where(first)} seed {first.seed} to {where(last)} seed {last.seed}"
        return f"{said} during the games from {span}"
    seeds = f"seed {first.seed}" if first is last else f"one of seeds {first.seed} to {last.seed}"
    return f"{said} during {where(first)} ({seeds})"


def _stop(pool: ProcessPoolExecutor, workers: list[BaseProcess]) -> None:
    """Stop the workers' games as Ctrl-C stops them, each letting go of its engine, and the
    pool, the games not started dropped; kill the workers still running after STOP_GRACE. A
    plugin's move may take the Ctrl-C (its own ``except``) and go on, and the worker leaves a
    second one to the first's clean-up: the pool's shutdown waited for that move, however
    long, with every signal only noted."""
    for worker in workers:
        if worker.pid is not None:
            with contextlib.suppress(OSError):  # it has just ended
                os.kill(worker.pid, signal.SIGINT)
    # In a thread of its own: the main one waits for it with a time limit, which the
    # shutdown's own wait for its workers has not.
    ending = threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True})
    ending.start()
    ending.join(STOP_GRACE)
    if ending.is_alive():
        for worker in workers:
            worker.kill()  # its engines die with it (die_with_parent)
        ending.join()


# The rest runs in the worker processes, one game at a time, with this state of theirs.
# Whether the worker is inside a game (``play_one``): only there does a Ctrl-C raise at once
# (``_worker_sigint``); outside, and while the moves' lock is held, it is only noted.
_in_game = False
# The worker's Ctrl-C, once one has come. Its exception may be lost (raised in the import
# machinery's weakref callback as the game's modules or a plugin load, or taken by a plugin's
# own ``except``), and a Ctrl-C after it is a second, left to the first's clean-up: each
# plugin call raises it again as it returns (``check_remembered``), not only the next count
# of moves.
_came = Noted(wake=lambda: None)
_moves: Synchronized[int] | None = None  # every worker's moves so far (the parent's ``moves``)
_kit = Kit({})  # the boards and weights the games are played with, sent once (``_worker_init``)


def _worker_init(moves: Synchronized[int], parent: int, kit: Kit) -> None:
    # Ctrl-C reaches the whole process group: a worker stops the game it plays (the parent
    # then cancels the rest) but ignores it while idle, where it would only print a traceback.
    global _moves, _kit
    _moves, _kit = moves, kit
    die_with(parent)  # a bench killed outright (SIGKILL) took no worker with it
    leave_with_main(0)  # a plugin's thread that never ends held its exit, and the pool's end
    plugins.quiet_warnings()  # the parent warned once already; --jobs 2 said each three times
    signal.signal(signal.SIGINT, _worker_sigint)
    # As in a spawned worker, not the parent's handler a forked one inherits: the pool ends
    # the other workers by SIGTERM when one dies, and how that one died is told apart by it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _worker_sigint(signum: int, frame: FrameType | None) -> None:
    # A second one (the terminal's, then the parent's) must not cut short the first's clean-up.
    first = not _interrupted()
    _came.note(signum, frame)
    if _in_game and first:
        raise CtrlC


def _interrupted() -> bool:
    return _came.signum is not None


def _add_moves(n: int) -> None:
    """Add ``n`` moves of this worker's game to the count all workers share (the progress
    line's); in a game, raise CtrlC once a Ctrl-C has come (only noted while the lock is held)."""
    global _in_game
    if _moves is None:
        return
    # A Ctrl-C is only noted while the lock is held, then raised: the lock's __enter__ and
    # __exit__ are Python code, and one raised in them left it taken, so that the other worker,
    # telling its last moves as its own Ctrl-C stopped its game, waited for it for ever.
    playing, _in_game = _in_game, False
    try:
        with _moves.get_lock():
            _moves.get_obj().value += n
    finally:
        _in_game = playing
    if playing and _interrupted():  # it came meanwhile (or is being raised already)
        raise CtrlC


def _play_in_worker(batch: list[GameTask]) -> list[GameRecord]:
    """A worker's call: the records of ``batch``'s games, in order. A KeyboardInterrupt a bot
    raised itself loses that game (BOT_INTERRUPT); a real Ctrl-C ends the batch."""
    global _in_game
    played = []
    with remembered(_came):
        for task in batch:
            try:
                # Before the check: a Ctrl-C between the two was only noted, and the game
                # played out.
                _in_game = True
                if _interrupted():  # a game queued before the parent could cancel it
                    raise CtrlC
                played.append(play_one(task, _kit, _add_moves))
            except KeyboardInterrupt:
                if _interrupted():  # a Ctrl-C: _worker_sigint noted it
                    raise
                played.append(GameRecord(error=BOT_INTERRUPT))
            finally:
                _in_game = False
    return played
