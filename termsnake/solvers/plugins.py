"""Solvers from other packages: the `termsnake.solvers` entry-point group, read lazily."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP: Final = "termsnake.solvers"


@dataclass(frozen=True, slots=True)
class Plugin:
    """One advertised solver: its name, where it points, and the distribution that ships it."""

    name: str
    target: str
    source: str
    entry: EntryPoint

    def load(self) -> Callable[[], Any]:
        """Import the factory; PluginError (one line, naming the plugin) if that fails."""
        try:
            factory = self.entry.load()
        except Exception as e:  # a broken plugin must not take termsnake down
            msg = f"{self.describe()} failed to import: {type(e).__name__}: {e}"
            raise PluginError(" ".join(msg.split())) from None
        if not callable(factory):
            raise PluginError(f"{self.describe()} is not callable")
        return factory  # type: ignore[no-any-return]

    def describe(self) -> str:
        """``plugin 'name' (target, from dist)`` for messages."""
        return f"plugin {self.name!r} ({self.target}, from {self.source})"


class PluginError(Exception):
    """A plugin could not be used; the message names it and says why, in one line."""


def warn(message: str) -> None:
    """One warning line on stderr (a broken plugin is skipped; the rest work)."""
    print(f"termsnake: warning: {message}; skipped", file=sys.stderr)


def discover(builtin: Collection[str]) -> dict[str, Plugin]:
    """Every advertised plugin by name, without importing any; clashes are warned and skipped.

    A name that a built-in solver already has, or that two distributions both claim, is
    skipped with a warning, so the same name means the same solver on every machine.
    """
    # Imported here: importlib.metadata takes a tenth of termsnake's start, and a game with a
    # built-in solver never reads it.
    from importlib.metadata import entry_points

    found: dict[str, list[Plugin]] = {}
    for ep in entry_points(group=GROUP):
        dist = ep.dist
        source = f"{dist.name} {dist.version}" if dist is not None else "an unknown package"
        name = ep.name.strip().lower()
        found.setdefault(name, []).append(Plugin(name, ep.value, source, ep))
    plugins: dict[str, Plugin] = {}
    for name, claims in sorted(found.items()):
        if name in builtin or name.startswith("exec:"):
            warn(f"{claims[0].describe()} has the name of a built-in solver")
        elif len({c.source for c in claims}) > 1:
            sources = ", ".join(sorted(c.source for c in claims))
            warn(f"plugin name {name!r} is claimed by more than one package ({sources})")
        else:
            plugins[name] = claims[0]
    return plugins
