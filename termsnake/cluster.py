"""Running games on an existing Dask cluster (the `cluster` extra: dask.distributed)."""

from __future__ import annotations

import re
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, TypeVar

from termsnake import __version__
from termsnake.exits import users_signal
from termsnake.formats.text import shorten

if TYPE_CHECKING:
    from distributed import Client

CONNECT_TIMEOUT: Final = 3.0
# A run with no worker for this long can make no progress: it stops instead of waiting for ever.
NO_WORKERS_TIMEOUT = 20.0
POLL: Final = 0.25  # seconds between looks at the games under way
LOOK_EVERY: Final = 1.0  # seconds between asking the scheduler how many workers it has
# The form `dask scheduler` prints: a host name, an IPv4 or a bracketed IPv6 address, a port.
ADDRESS: Final = re.compile(r"tcp://(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")

T = TypeVar("T")
R = TypeVar("R")


class ClusterError(Exception):
    """The scheduler could not be reached or used; the message says which and why."""


class DataLost(ClusterError):
    """The workers holding what ``share`` sent have all gone, and the games that needed it
    with them (those that had ended too: their results were there): share it again."""


def check_address(address: str) -> str:
    """``address`` if it has the form ``tcp://HOST:PORT``; ClusterError saying so if not (other
    schemes need a security setup that termsnake does not make)."""
    match = ADDRESS.fullmatch(address)
    if match is None or not 0 < int(address.rpartition(":")[2]) < 65536:
        raise ClusterError(
            f"--scheduler wants tcp://HOST:PORT (as `dask scheduler` prints it), "
            f"not '{shorten(address)}'"  # not !r: it would escape shorten's escapes again
        )
    host = address[len("tcp://") :].rpartition(":")[0].removesuffix(".")  # a name may end in .
    # What DNS allows a name: no resolver takes more (Python's raised, and Dask said that what
    # answered there was no scheduler).
    if not host.startswith("[") and (
        len(host) > 253 or not all(0 < len(label) <= 63 for label in host.split("."))
    ):
        raise ClusterError(f"--scheduler: '{shorten(host)}' is not a host name")
    return address


def check_scheduler(address: str) -> str:
    """``address`` if it has the form ``tcp://HOST:PORT`` and the cluster extra is installed;
    ClusterError saying which is wrong if not. bench and train call it with their other checks
    of the arguments, so that a missing extra is one line, before the note on --jobs."""
    check_address(address)
    try:
        import distributed  # noqa: F401  # the cluster extra, imported only when asked for
    except ImportError:
        raise ClusterError(
            "--scheduler needs the cluster extra: pip install 'termsnake[cluster]'"
        ) from None
    return address


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own log lines silenced: what goes wrong is said in one line by the caller."""
    import logging  # here: bench and train load this module for every run; distributed has it

    drop = logging.Filter("-no logger has this name-")
    loggers = [logging.getLogger("distributed")] + [
        logging.getLogger(name)
        for name in list(logging.root.manager.loggerDict)
        if name.startswith("distributed.")
    ]
    handlers = {h for logger in loggers for h in logger.handlers}
    for handler in handlers:
        handler.addFilter(drop)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(drop)


@contextmanager
def connect(address: str, timeout: float | None = None) -> Iterator[Client]:
    """A client of the scheduler at ``address`` (``tcp://HOST:PORT``); ClusterError within
    ``timeout`` seconds if it cannot be reached. The client is closed on every way out."""
    check_scheduler(address)
    from distributed import Client
    from distributed.versions import VersionMismatchWarning

    # Dask's table of the packages that differ between here and the workers: what matters,
    # termsnake's version and numpy, is said in a line of termsnake's where it matters (a
    # worker without numpy does not fail bench's other bots). A filter for the process, not
    # for this block: the warning comes from the client's own thread, at each reconnection.
    warnings.filterwarnings("ignore", category=VersionMismatchWarning)
    wait = CONNECT_TIMEOUT if timeout is None else timeout

    class _Client(Client):
        def start(self, **kwargs: Any) -> None:
            # Closed here, while its event loop runs: left to __del__ at exit, a client that
            # failed to start hangs the exit for seconds and prints a traceback.
            try:
                # Dask's timeout covers the connection, not the handshake after it: a server
                # that accepts and says nothing would hold the start for ever.
                super().start(callback_timeout=2 * wait, **kwargs)
            except BaseException:
                self.close()
                raise

    with _quiet_dask():
        try:
            client = _Client(address, timeout=f"{wait}s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            reason = _reason(e)
            shown = shorten(address)
            raise ClusterError(f"cannot reach the Dask scheduler at {shown}: {reason}") from None
        except Exception as e:  # what a server that is no Dask scheduler answers makes Dask raise
            _pass_on_signal(e)
            raise ClusterError(
                f"cannot use {shorten(address)}: what answers there is not a Dask scheduler"
            ) from None
        try:
            yield client
        finally:
            client.close()


def _reason(e: BaseException) -> str:
    """Dask's message for ``e`` on one line (it may span several, or be empty: then its type),
    for the one line a ClusterError is."""
    return " ".join(str(e).split()) or type(e).__name__


def _pass_on_signal(e: Exception) -> None:
    """Raise the signal ``e`` carries (SIGTERM: Terminated, an Exception) if it does: it ends
    the run as the command says, not as a failure of the cluster's."""
    came = users_signal(e)
    if came is not None:
        raise came from None


@contextmanager
def _dropped() -> Iterator[None]:
    """Any exception dropped, but a signal's."""
    try:
        yield
    except Exception as e:
        _pass_on_signal(e)


def share(client: Client, value: Any) -> Any:
    """``value`` sent once to every worker the cluster has (one that joins later fetches it
    from another), and the future that stands for it: pass it to ``map_on`` as many times as
    wanted, the value itself is not sent again. ClusterError if the cluster has no worker for
    NO_WORKERS_TIMEOUT seconds, or loses it or its scheduler meanwhile."""
    _first_worker(client)  # scattering to a cluster with none fails at once
    _same_termsnake(client)
    # On every worker, so that losing some of them loses no data (a list of one: a dict or a
    # list alone would be scattered piecewise).
    try:
        return client.scatter([value], broadcast=True, hash=False)[0]
    except Exception as e:  # the workers or the scheduler lost meanwhile
        _pass_on_signal(e)
        reason = _reason(e)
        raise ClusterError(f"cannot send the games' data to the Dask cluster: {reason}") from None


def map_on(
    client: Client,
    fn: Callable[..., R],
    items: Sequence[T],
    done: Callable[[int], None] | None = None,
    **shared: Any,
) -> list[R]:
    """``fn`` over ``items`` on the cluster (each call also given ``shared``: futures from
    ``share``), results in the order of ``items`` (so the numbers are those of a local run);
    ``done(n)`` as n more end. ClusterError if the scheduler is lost, if the cluster has no
    worker for NO_WORKERS_TIMEOUT seconds, or if the games keep killing their workers;
    DataLost if ``shared`` was lost with its workers (every game goes with it)."""
    _same_termsnake(client)
    futures = client.map(fn, items, pure=False, **shared)
    try:
        _wait_all(client, futures, done)
        results: list[R] = client.gather(futures)
    except ClusterError:
        raise
    except Exception as e:  # a worker killed by a game over and over, the scheduler lost
        _pass_on_signal(e)
        if any(f.cancelled() for f in futures):  # the shared data, lost once the games ended
            raise _data_lost(client) from None
        reason = _reason(e)
        raise ClusterError(
            f"the games on the Dask cluster failed: {shorten(reason, 200)}"
        ) from None
    finally:
        with _dropped():  # a client already closed has nothing to cancel
            client.cancel(futures)
    return results


# The workers each client has found to have this termsnake: each is asked once.
_CHECKED: weakref.WeakKeyDictionary[Client, set[str]] = weakref.WeakKeyDictionary()


def _same_termsnake(client: Client) -> None:
    """ClusterError if a worker not asked yet has no termsnake or another version: what is
    sent is termsnake's functions and data, which such a worker reads outside any task (one
    without termsnake then closed, and train said 20 s later that the cluster had no worker;
    bench's line was Dask's ModuleNotFoundError). Asked by name, so that the question reads
    without termsnake: a worker lost meanwhile is said where the games are waited for."""
    import importlib.metadata  # here: bench and train load this module for every run

    seen = _CHECKED.setdefault(client, set())
    found: dict[str, object] = {}
    with _dropped():
        new = sorted(set(client.scheduler_info(n_workers=-1)["workers"]) - seen)
        if new:
            version = importlib.metadata.version
            found = client.run(version, "termsnake", workers=new, on_error="return")
    for address, theirs in sorted(found.items()):
        _check_version(address, theirs)
    seen.update(found)


def _check_version(address: str, theirs: object) -> None:
    """ClusterError unless ``theirs``, what the worker at ``address`` said is its version of
    termsnake, is this one's."""
    import importlib.metadata

    if isinstance(theirs, importlib.metadata.PackageNotFoundError):
        raise ClusterError(
            f"the Dask worker at {shorten(address)} has no termsnake: install termsnake "
            f"{__version__} on every worker"
        )
    if isinstance(theirs, str) and theirs != __version__:
        raise ClusterError(
            f"the Dask worker at {shorten(address)} has termsnake {shorten(theirs)}, not "
            f"{__version__} as here: install the same version on every worker"
        )


def _data_lost(client: Client) -> DataLost:
    address = getattr(client.scheduler, "address", "?")
    return DataLost(f"the Dask cluster at {address} lost its workers and their data")


def _lost(address: str) -> ClusterError:
    return ClusterError(f"lost the connection to the Dask scheduler at {address}")


def _no_workers(address: str) -> ClusterError:
    return ClusterError(
        f"the Dask cluster at {address} has had no worker for {NO_WORKERS_TIMEOUT:g} s: "
        "the games cannot go on"
    )


def _first_worker(client: Client) -> None:
    """Until the cluster has a worker; ClusterError, as ``_wait_all`` says it, if it loses
    its scheduler or has none for NO_WORKERS_TIMEOUT seconds."""
    address = getattr(client.scheduler, "address", "?")
    began = time.monotonic()
    while True:
        if client.status != "running":
            raise _lost(address)
        with _dropped():  # a lost scheduler: said on the next look
            if client.scheduler_info(n_workers=0).get("n_workers", 0):
                return
        if time.monotonic() - began > NO_WORKERS_TIMEOUT:
            raise _no_workers(address)
        time.sleep(POLL)


def _wait_all(client: Client, futures: list[Any], done: Callable[[int], None] | None) -> None:
    """Until every future has ended, telling ``done`` of them; ClusterError if none can."""
    address = getattr(client.scheduler, "address", "?")
    # Woken by the futures' own callbacks: distributed.wait with a timeout leaves its waiters
    # behind on every call, and a long run would pile them up.
    ended = threading.Event()
    for future in futures:
        future.add_done_callback(lambda _: ended.set())
    left = list(futures)
    alone_since: float | None = None
    looked = time.monotonic()
    while left:
        ended.wait(POLL)
        ended.clear()
        now = [f for f in left if not f.done()]
        if done is not None and len(now) < len(left):
            done(len(left) - len(now))
        left = now
        if client.status != "running":
            raise _lost(address)
        if any(f.cancelled() for f in futures):
            raise _data_lost(client)
        if not left or time.monotonic() - looked < LOOK_EVERY:
            continue
        looked = time.monotonic()
        if client.scheduler_info(n_workers=0).get("n_workers", 0):
            alone_since = None
        elif alone_since is None:
            alone_since = looked
        elif looked - alone_since > NO_WORKERS_TIMEOUT:
            raise _no_workers(address)
