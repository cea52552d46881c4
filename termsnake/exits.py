"""The exit codes the commands share (the README's "Exit codes and errors"), the exception
that carries an ending signal to the code that exits with 128 + its number, the signal
handlers that raise it, and those that only note a signal for the code to raise it later;
``handlers_kept``, which puts back the handlers a plugin set as it loaded; and ``leave`` (and a
worker process's ``leave_with_main``): how the process ends once the command is done, when a
signal comes during Python's exit or a plugin's thread would hold it for ever.

Which block code runs in decides when an ending signal (Ctrl-C among them) raises: at once
in ``terminating`` (train); never in ``signals_held``, sent again at its end (a child starting,
modules loading); only at ``Noted.check`` in ``signals_noted`` (round a pool's waits, whose
locks an exception must not leave taken); at once and again as each bot call returns in
``signals_remembered`` (a plugin may swallow it). ``handlers_kept`` undoes a plugin's handlers.
"""

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import FrameType
from typing import Final

EXIT_OUTPUT: Final = 1  # the output could not be written (a full disk, a closed pipe)
EXIT_USAGE: Final = 2  # a bad argument, file or board, said in one line
EXIT_TERMINAL_GONE: Final = 1  # the terminal's input ended without a hang-up signal
EXIT_INTERRUPTED: Final = 130  # Ctrl-C, as a shell reports a process that SIGINT ended
THREADS_GRACE: Final = 2.0  # seconds the threads a plugin left running get to end at exit
# A worker process's: bench's table waits for the pool's workers to end (one still starting
# needs the semaphores the pool's end lets go of), so theirs is shorter.
WORKERS_GRACE: Final = THREADS_GRACE / 2

# The signals whose default would end the process with nothing cleaned up (the terminal left as
# the game set it, an engine's processes running; Ctrl-\ sends SIGQUIT): each ends it as
# SIGTERM does, the terminal restored, the score and the replay kept.
ENDING_SIGNALS: Final = (
    signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
    signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM,
)  # fmt: skip


class Terminated(Exception):
    """An ending signal arrived (SIGTERM, SIGHUP, ...): unwind, restore the terminal, exit
    128 + signal. Here, not in the terminal code, so that solvers' guards can let it pass."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Signalled(Terminated):
    """The Terminated termsnake raises for an ending signal that came (``raise_terminated``,
    and the code that raises one it noted): told apart from one a plugin raises itself, which
    is that bot's failure, as its SystemExit is."""


class CtrlC(KeyboardInterrupt):
    """The KeyboardInterrupt termsnake's SIGINT handlers raise (``ctrl_c``): a real Ctrl-C's,
    told apart from one a plugin raises itself, which is that bot's failure, as its SystemExit
    is."""


def ctrl_c(signum: int, frame: FrameType | None) -> None:
    """SIGINT's handler where Ctrl-C ends the command at once: Python's own, its exception
    marked as a Ctrl-C's."""
    raise CtrlC


def pressed(e: KeyboardInterrupt) -> bool:
    """Whether ``e`` is a Ctrl-C's, not one code raised itself: it is a ``CtrlC``, or was raised
    while one was handled; or Python's own handler, which marks nothing, holds SIGINT here (a
    program that did not start as the ``termsnake`` command), where no one can tell."""
    return after_ctrl_c(e) or (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


def after_ctrl_c(e: BaseException) -> bool:
    """Whether ``e`` is a real Ctrl-C's ``CtrlC``, or was raised while one was handled."""
    return isinstance(came_first(e), CtrlC)


def came_first(e: BaseException) -> CtrlC | Signalled | None:
    """The real Ctrl-C's ``CtrlC`` or ending signal's ``Signalled`` that ``e`` is, or was raised
    while handling (its cause, its context, theirs...), if any: the latest."""
    seen: set[int] = set()
    link: BaseException | None = e
    while link is not None and id(link) not in seen:
        if isinstance(link, CtrlC | Signalled):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None


def users_signal(e: BaseException) -> KeyboardInterrupt | Terminated | None:
    """The Ctrl-C or ending signal ``e`` carries, or None: ``e`` itself, or the cause of the
    RuntimeError Python 3.11 wraps it in when it came while a module made a dataclass
    (``__set_name__``), which must end the command all the same."""
    if isinstance(e, KeyboardInterrupt | Terminated):
        return e
    if isinstance(e, RuntimeError) and isinstance(e.__cause__, KeyboardInterrupt | Terminated):
        return e.__cause__
    return None


Handler = Callable[[int, FrameType | None], None]


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """The ending signals that come while the body runs (a child process being started,
    modules loading) are noted, then sent again once it is done, to the handlers that were
    there. Raised at once, a handler's exception could land in ``subprocess.Popen`` after the
    fork (the child, known to no one, ran on), or in a callback of the import machinery,
    which prints "Exception ignored" and drops it (the command ran on)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are handled in the main thread: none is raised here
        return
    came: list[int] = []
    held: dict[int, Handler] = {
        s: lambda signum, frame: came.append(signum)
        for s in ENDING_SIGNALS
        if callable(signal.getsignal(s))
    }
    try:
        with signal_handlers(held):
            yield
    finally:
        for signum in dict.fromkeys(came):
            signal.raise_signal(signum)


def ignore_more_hangups(signum: int) -> None:
    """After a first SIGHUP the terminal is gone, and a closing window sends another: ignore
    the rest, so the score and the replay are saved before the process ends."""
    if signum == signal.SIGHUP:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


def raise_terminated(signum: int, frame: FrameType | None) -> None:
    """A signal handler: raise Terminated, as Signalled (once a hang-up came, more are
    ignored)."""
    ignore_more_hangups(signum)
    raise Signalled(signum)


def heard(signals: Iterable[int] = ENDING_SIGNALS) -> list[int]:
    """Those of ``signals`` not ignored already: one ignored as termsnake started stays so, as
    the one who started it asked (nohup's SIGHUP: the command outlives the terminal it was
    started from; the SIGINT and SIGQUIT a shell's ``&`` ignores)."""
    return [s for s in signals if signal.getsignal(s) is not signal.SIG_IGN]


def hear(signals: Iterable[int]) -> None:
    """Those of ``signals`` ignored as the command started end it from now on, as ``loaded``
    set the others to, to the process's last moment: serve's Ctrl-C, which a shell's ``&``
    ignored, ends its exit too (``leave``), which a plugin's atexit handler may hold."""
    for s in signals:
        if signal.getsignal(s) is signal.SIG_IGN:
            signal.signal(s, ctrl_c if s == signal.SIGINT else raise_terminated)


def loaded(held: Iterable[int], came: Sequence[int]) -> None:
    """Once the ``termsnake`` command has loaded, with the ending signals ``held`` (all but
    those ignored) only noted meanwhile: from now on Ctrl-C raises CtrlC (a KeyboardInterrupt)
    and the others Terminated, until a command sets its own handlers; the first that came
    (``came``) is raised now."""
    for s in held:
        signal.signal(s, ctrl_c if s == signal.SIGINT else raise_terminated)
    if came:
        ignore_more_hangups(came[0])
        raise CtrlC if came[0] == signal.SIGINT else Signalled(came[0])


def terminating() -> contextlib.AbstractContextManager[None]:
    """A block in which every ending signal but SIGINT (a KeyboardInterrupt, as ever) raises
    Terminated, those ignored (``heard``) left so: a command without a terminal of its own
    (train) ends as at Ctrl-C, and ``nohup termsnake train ... &`` runs on. Bench's games, which
    a plugin plays, note them too (``signals_remembered``)."""
    return signal_handlers({s: raise_terminated for s in heard() if s != signal.SIGINT})


@contextlib.contextmanager
def signal_handlers(handlers: Mapping[int, Handler]) -> Iterator[None]:
    """``handlers`` (signal -> handler) installed for the block, the earlier ones put back
    after it, but for SIGHUP once a hang-up has set it to be ignored."""
    previous = {}
    try:
        for s, h in handlers.items():
            previous[s] = signal.getsignal(s)  # first: one installed is put back, whatever comes
            signal.signal(s, h)
        yield
    finally:
        for s, handler in previous.items():
            if s != signal.SIGHUP or signal.getsignal(s) is not signal.SIG_IGN:
                signal.signal(s, handler)


@contextlib.contextmanager
def handlers_kept() -> Iterator[None]:
    """The ending signals' handlers put back as they were once the block ends, however it
    ends: a plugin may set its own as it loads (Ctrl-C ignored), and Ctrl-C must still end
    termsnake, the next plugin's hanging import too. A hang-up that ends the block leaves
    more ignored, as ``raise_terminated`` set them."""
    if threading.current_thread() is not threading.main_thread():
        yield  # no other thread can set a handler
        return
    before = {s: signal.getsignal(s) for s in ENDING_SIGNALS}
    try:
        yield
    except BaseException as e:
        came = users_signal(e)
        if isinstance(came, Signalled) and came.signum == signal.SIGHUP:  # not a plugin's own
            del before[signal.SIGHUP]
        raise
    finally:
        for s, handler in before.items():
            if handler is not None and signal.getsignal(s) is not handler:  # None: not Python's
                signal.signal(s, handler)


class Noted:
    """The first ending signal (Ctrl-C among them) that came while ``signals_noted`` (or
    ``signals_remembered``) held."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        self.signum: int | None = None
        self.hung_up = False

    def note(self, signum: int, frame: FrameType | None) -> None:
        """A signal handler: note the signal, raise nothing, and wake the code waiting."""
        # More hang-ups are ignored only once the block ends: a worker process started in it
        # would inherit SIGHUP ignored, and outlive the bench's hang-up.
        self.hung_up = self.hung_up or signum == signal.SIGHUP
        if self.signum is None:
            self.signum = signum
        self._wake()

    def check(self) -> None:
        """Raise what the signal noted asks for: KeyboardInterrupt for Ctrl-C, Terminated for
        the others; nothing if none came."""
        if self.signum == signal.SIGINT:
            raise CtrlC
        if self.signum is not None:
            raise Signalled(self.signum)


@contextlib.contextmanager
def signals_noted(wake: Callable[[], None]) -> Iterator[Noted]:
    """A block in which Ctrl-C and the other ending signals are noted, not raised wherever the
    main thread is: the block raises them at the moments it chooses (``Noted.check``); ``wake``
    is called as one comes, to end its wait. One raised at once could land in a library's
    code between its taking a lock and its ``try``, and that lock stayed taken. Whatever the
    block ends with, a signal noted is raised at its end, in place of any other exception."""
    noted = Noted(wake)
    if threading.current_thread() is not threading.main_thread():  # no signals come here
        yield noted
        return
    # One ignored stays so: Ctrl-C, for a command a shell started in the background.
    held = heard()
    try:
        try:
            with signal_handlers({s: noted.note for s in held}):
                yield noted
        finally:
            if noted.hung_up:
                ignore_more_hangups(signal.SIGHUP)
    except BaseException as e:
        if users_signal(e) is None:
            noted.check()
        raise
    noted.check()


# The notes of the ``signals_remembered`` blocks under way, innermost last.
_remembering: list[Noted] = []


@contextlib.contextmanager
def signals_remembered() -> Iterator[Noted]:
    """A block in which Ctrl-C and the other ending signals raise at once, as ``loaded`` set
    them to (a plugin's import that hangs is ended), and are noted too, for the code to raise
    the first again (``Noted.check``) where its exception may have been lost: raised in a
    weakref callback (the import machinery's, as a module loads) or a ``__del__``, Python
    drops it (its "Exception ignored" is left out here), as a library's ``except Exception``
    does, or makes an error of its own of it (numpy's ImportError as it loads), and the command
    ran on (after a hang-up, deaf to more). The block's end raises it again too, in place of
    whatever else it ended with; the RuntimeError Python 3.11 wraps one in is unwrapped. One
    ignored as the block starts (``heard``) stays so. A bot's call asks for the note as it
    returns (``check_remembered``)."""
    noted = Noted(wake=lambda: None)
    if threading.current_thread() is not threading.main_thread():  # no signals come here
        yield noted
        return

    def note_and_raise(signum: int, frame: FrameType | None) -> None:
        noted.note(signum, frame)
        if signum == signal.SIGINT:
            ctrl_c(signum, frame)
        raise_terminated(signum, frame)

    try:
        with signal_handlers({s: note_and_raise for s in heard()}), remembered(noted):
            yield noted
    except BaseException as e:
        came = users_signal(e)
        if came is None:
            noted.check()
        elif came is not e:  # a traceback, where a signal ends the command in one line
            raise came from None
        raise
    noted.check()


@contextlib.contextmanager
def remembered(noted: Noted) -> Iterator[None]:
    """A block in which ``noted``, which the caller's handlers note in, is raised as each of a
    bot's calls returns (``check_remembered``), and Python says nothing of a signal's exception
    it drops: ``signals_remembered`` with handlers of one's own (a bench worker's)."""
    try:
        _remembering.append(noted)  # in the try: a signal may raise just after it
        with _dropped_unsaid():
            yield
    finally:
        if noted in _remembering:
            _remembering.remove(noted)


def check_remembered() -> None:
    """Raise the first signal a ``signals_remembered`` block under way has noted, if one has
    (``Noted.check``): asked as each of a bot's calls returns, however it returns, as the bot
    may have lost its exception (its own ``except Exception``, a weakref callback or a
    ``__del__`` of its) and gone on as if none came. Only in the main thread, the one that
    handles signals: a server's bot in a thread of its own plays on."""
    if threading.current_thread() is threading.main_thread():
        for noted in _remembering:  # the outer ones' came first
            noted.check()


@contextlib.contextmanager
def _dropped_unsaid() -> Iterator[None]:
    """A block in which Python does not print "Exception ignored" and a traceback for a
    signal's exception it drops (``CtrlC``, ``Signalled``): ``signals_remembered`` raises it
    again, to end the command in one line."""
    said = sys.unraisablehook

    def unless_a_signals(unraisable: "sys.UnraisableHookArgs") -> None:
        if not isinstance(unraisable.exc_value, CtrlC | Signalled):
            said(unraisable)

    sys.unraisablehook = unless_a_signals
    try:
        yield
    finally:
        sys.unraisablehook = said


def leave(code: int) -> None:
    """Set the process to end with ``code`` once the command is done, whatever runs in Python's
    exit: a signal there ends it at once in one line and 128 + n (a handler raising it would
    only print "Exception ignored"), and a thread a plugin started that never ends (Python's
    exit would wait for it for ever, deaf to every signal) gets a grace, then the process
    ends without it, its output flushed. Threads that end as Python exits (an idle thread
    pool's) and the atexit handlers run as ever."""
    for s in heard():
        signal.signal(s, _end_at_once)
    if _exit_would_wait():
        threading.Thread(target=_end_after_grace, args=(code,), daemon=True).start()


def leave_with_main(code: int) -> None:
    """``leave``'s grace in a worker process of a pool, which ends as its main thread does, not
    through termsnake's ``main``: once that thread is done, the rest of its exit (a thread a
    plugin started that never ends, a plugin's atexit handler that never returns) gets
    WORKERS_GRACE, then the process ends with ``code``. The pool's shutdown, which waits for its
    workers to end, waited for ever. Its signals are the pool's, left as they are."""
    threading.Thread(target=_leave_after_main, args=(code,), daemon=True).start()


def _leave_after_main(code: int) -> None:
    # Python's exit has the main thread done before it waits for the others and then runs the
    # atexit handlers: this daemon thread runs on through both. No one is there to interrupt
    # them (the pool's workers take Ctrl-C only in a game), so the grace is not only for threads.
    threading.main_thread().join()
    _end_after_grace(code, WORKERS_GRACE)


def _exit_would_wait() -> bool:
    """A thread Python's exit would wait for (not a daemon) runs beside the main one."""
    return any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate())


def _end_at_once(signum: int, frame: FrameType | None) -> None:
    said = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    with contextlib.suppress(Exception):  # a hang-up's terminal may be gone
        print(f"termsnake: {said}", file=sys.stderr)
    _end(EXIT_INTERRUPTED if signum == signal.SIGINT else 128 + signum)


def _end_after_grace(code: int, grace: float = THREADS_GRACE) -> None:
    time.sleep(grace)
    _end(code)


def _end(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # gone, or closed by a reader that went away
            stream.flush()
    os._exit(code)
