"""Running games on an existing Dask cluster (the `cluster` extra: dask.distributed)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:
    from distributed import Client

CONNECT_TIMEOUT: Final = 5.0

T = TypeVar("T")
R = TypeVar("R")


class ClusterError(Exception):
    """The scheduler could not be reached or used; the message says which and why."""


@contextmanager
def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Iterator[Client]:
    """A client of the scheduler at ``address``; ClusterError within ``timeout`` seconds if it
    cannot be reached."""
    try:
        from distributed import Client  # the cluster extra, imported only when asked for
    except ImportError:
        raise ClusterError(
            "--scheduler needs the cluster extra: pip install 'termsnake[cluster]'"
        ) from None
    try:
        client = Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        reason = " ".join(str(e).split()) or type(e).__name__
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
    try:
        yield client
    finally:
        client.close()


def map_on(client: Client, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``fn`` over ``items`` on the cluster, results in the order of ``items`` (so the numbers
    are those of a local run)."""
    futures = client.map(fn, items, pure=False)
    results: list[R] = client.gather(futures)
    return results
