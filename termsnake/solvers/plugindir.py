"""The working directory of the plugins' calls: theirs while they run, termsnake's between
them (the relative paths the user gave name what they named), and theirs again at exit, for
their atexit handlers. Called by ``plugins.quietly`` under its lock, as the calls begin and end."""

from __future__ import annotations

import atexit
import contextlib
import os


class _Where:
    ours: str | None = None  # termsnake's working directory, put back as the calls end
    theirs: str | None = None  # the one the plugins last left, where their next call runs
    handlers = -1  # atexit's count of handlers when _exit_in_theirs was last registered


def enter() -> None:
    """As the first of the plugins' calls at once begins: go to the folder they last left."""
    _Where.ours = _working_directory()
    if _Where.theirs is not None and _Where.ours is not None:
        _change_to(_Where.theirs)


def leave() -> None:
    """As the last ends: note where the plugins' calls left the working directory, and go back
    to termsnake's."""
    ours = _Where.ours
    if ours is None:  # it had been removed: there is nothing to go back to
        return
    here = _working_directory()
    _Where.theirs = here if here != ours else None
    if here != ours:
        _change_to(ours)
        _exit_in_theirs_first()


def _exit_in_theirs_first() -> None:
    """Have ``_exit_in_theirs`` run before every atexit handler registered so far (atexit runs
    the last registered first): registered again only if one has been since."""
    if atexit._ncallbacks() != _Where.handlers:
        atexit.unregister(_exit_in_theirs)
        atexit.register(_exit_in_theirs)
        _Where.handlers = atexit._ncallbacks()


def _exit_in_theirs() -> None:
    """At exit, go to the working directory the plugins last left: their atexit handlers are
    their last calls, and a relative path in one (its stats written to its own folder) named a
    file in the user's folder once termsnake went back to its own after each call."""
    if _Where.theirs is not None:
        _change_to(_Where.theirs)


def _working_directory() -> str | None:
    """The working directory, or None if it has been removed."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _change_to(folder: str) -> None:
    """Go to ``folder``, if it is still there to go to."""
    with contextlib.suppress(OSError):
        os.chdir(folder)
