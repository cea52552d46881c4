"""Where bench and train play their games: how many worker processes ``--jobs`` gives, and the
note that it goes unused beside ``--scheduler`` (a Dask cluster's workers play them then)."""

from __future__ import annotations

import os
import sys


def processes(jobs: int | None) -> int:
    """The worker processes --jobs asks for: 1 if left out, one per CPU for 0, and never more
    than the CPUs, since CPU-bound games gain nothing from more processes than cores."""
    cpus = os.cpu_count() or 1
    return min(1 if jobs is None else jobs or cpus, cpus)


def note_jobs_unused(command: str, jobs: int | None, scheduler: str | None) -> None:
    """Say in one line that ``--jobs`` goes unused beside ``--scheduler``: DESIGN lets both be
    given, and the cluster's workers play the games."""
    if scheduler is not None and jobs is not None:
        print(
            f"termsnake {command}: note: --jobs is not used with --scheduler "
            "(the cluster's workers play the games)",
            file=sys.stderr,
        )
