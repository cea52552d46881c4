"""Solvers by name: the built-ins, those added with ``register``, plugins, and parametric names.

The table is explicit and lazy: a built-in is a "module:attr" string imported only when that
solver is asked for, and a plugin (entry-point group ``termsnake.solvers``) is imported only when
asked for or listed. Names with a prefix carry an argument: ``exec:COMMAND`` runs a bot as a
child process, ``neuro:PATH`` plays a weights file.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from termsnake.exits import users_signal
from termsnake.formats.text import shorten
from termsnake.solvers.base import Solver
from termsnake.solvers.enginetext import engine_words
from termsnake.solvers.plugins import (
    NAME_LIMIT,
    Plugin,
    PluginError,
    discover,
    name_problem,
    not_a_solver,
    quietly,
    warn,
    what,
)

Factory = Callable[[], Solver]

_BUILTIN: Final = "termsnake"
# name -> "module:attr" (imported when asked for) or a factory; filled by register() below.
_REGISTRY: dict[str, str | Factory] = {}
_SOURCES: dict[str, str] = {}
# prefix -> "module:attr" of a factory taking the rest of the name (and keyword options).
_PREFIXES: Final[dict[str, str]] = {
    "exec:": "termsnake.solvers.engine:EngineSolver",
    "neuro:": "termsnake.solvers.neuro:NeuroSolver",
}

# What each prefix takes, said when it is given nothing.
_ARGUMENTS: Final = {
    "exec:": "a command to run: exec:COMMAND, as in exec:./mybot",
    "neuro:": "a weights file: neuro:PATH",
}


def register(name: str, factory: str | Factory, *, source: str = "your code") -> None:
    """Make ``factory`` (a "module:attr" string, imported lazily, or a zero-argument callable
    returning a Solver) the solver called ``name``; ValueError if the name is taken."""
    key = name.strip().lower() if isinstance(name, str) else ""
    if problem := name_problem(key):  # as a plugin's name: skipped with this said
        raise ValueError(f"{problem}, not {name!r}")
    if isinstance(factory, str):
        usable = re.fullmatch(r"[\w.]+:[\w.]+", factory) is not None
    else:
        usable = callable(factory)
    if not usable:
        raise ValueError(f"a factory is a callable or 'module:attribute', not {factory!r}")
    if key in _REGISTRY:
        raise ValueError(f"there is already a solver called {key!r}")
    _REGISTRY[key] = factory
    _SOURCES[key] = source


# The built-ins that need an extra's packages, for `termsnake solvers` to say so.
_NEEDS: Final = {"neuro": ("numpy",)}

for _name, _target in {
    "best": "termsnake.solvers.best:BestSolver",
    "tree": "termsnake.solvers.celltree:TreeSolver",
    "replan": "termsnake.solvers.replan:ReplanSolver",
    "hole-cycle": "termsnake.solvers.holecycle:HoleCycleSolver",
    "hole-tree": "termsnake.solvers.holetree:HoleTreeSolver",
    "hamilton": "termsnake.solvers.hamilton:HamiltonSolver",
    "straight": "termsnake.solvers.straight:StraightSolver",
    "greedy": "termsnake.solvers.greedy:GreedySolver",
    "neuro": "termsnake.solvers.neuro:NeuroSolver",
    "bfs": "termsnake.solvers.shortest:BfsSolver",
    "astar": "termsnake.solvers.shortest:AStarSolver",
}.items():
    register(_name, _target, source=_BUILTIN)


@cache
def plugins() -> dict[str, Plugin]:
    """The advertised plugins (found once, not imported); clashes are warned about once."""
    return discover(set(_REGISTRY))


def loading(names: list[str], say: Callable[[str], None]) -> list[str]:
    """Those of ``names`` (built-ins, registered names, plugins) that load, in their order;
    ``say`` is told why for each that does not: a plugin that fails to import, ``neuro``
    where numpy is not installed. What a built-in needs (``_NEEDS``) is looked for, not
    imported: numpy loads when a game of neuro's is set up (``create``), and a numpy that is
    there but fails says so then."""
    found = []
    for name in names:
        problem = _problem(name)
        if problem is None:
            found.append(name)
        else:
            say(problem)
    return found


def _problem(name: str) -> str | None:
    """Why the solver ``name`` does not load, or None (a factory that fails is not tried).
    What the modules print meanwhile is dropped, as a plugin's is: the server says nothing
    before its "listening on" line, which scripts wait for."""
    factory = _REGISTRY.get(name)
    if name in _NEEDS:  # numpy's import is a large part of a server's start: only looked for
        missing = _not_installed(name)
        return None if missing is None else str(missing)
    try:
        if isinstance(factory, str):
            quietly(_load, factory, name)
        elif factory is None:
            plugins()[name].load()
    except PluginError as e:
        return str(e)
    except Exception as e:  # any failure of a module's import: a numpy that is broken too
        if (caught := users_signal(e)) is not None:
            raise caught from None  # a signal ends the command, as everywhere
        return str(e) if isinstance(e, ValueError) else f"{name} does not load: {what(e)}"
    return None


class NotInstalled(ValueError):
    """A solver's module needs a package that is not installed."""

    def __init__(self, name: str, package: str) -> None:
        how = "pip install 'termsnake[learn]'" if package in ("numpy", "gymnasium") else ""
        package = shorten(package, NAME_LIMIT)  # an ImportError's name: whatever was raised
        super().__init__(f"{name} needs {package}, which is not installed" + (how and f" ({how})"))
        self.short = f"needs {package}" + (how and f": {how}")  # in a list naming the solver


def _import_needed(name: str) -> None:
    """Import the packages the built-in ``name`` needs (``_NEEDS``); ValueError naming the
    solver if one is missing or fails as it loads, whatever it raises (a broken install's
    SystemExit too): its failure is the package's, not a fault of termsnake's to show a
    traceback for."""
    for package in _NEEDS.get(name, ()):
        try:
            # Quietly, as a plugin's module: what a broken package prints reaches no terminal
            # (a server's log), and its failure is said in one line.
            quietly(importlib.import_module, package)
        except ModuleNotFoundError as e:
            if e.name != package:
                raise ValueError(f"{name} does not load: {what(e)}") from None
            raise NotInstalled(name, package) from None
        except BaseException as e:
            if (caught := users_signal(e)) is not None:  # a signal ends the command
                raise caught from None
            raise ValueError(f"{name} does not load: {what(e)}") from None


def registered_names() -> list[str]:
    """The names registered in this process (the built-ins and ``register``'s), found
    without looking through the installed packages for plugins."""
    return sorted(_REGISTRY)


def known_names() -> list[str]:
    """Every plain name ``create`` accepts: built-ins, registered solvers and plugins."""
    return sorted({*_REGISTRY, *plugins()})


def _unknown(name: str) -> ValueError:
    prefixes = ", ".join(f"{p}..." for p in _PREFIXES)
    # A plugin's name comes from another package: shown escaped, as `termsnake solvers` does.
    known = ", ".join(shorten(n, NAME_LIMIT) for n in known_names())
    return ValueError(f"unknown solver {name!r}; known solvers: {known} (and {prefixes})")


def resolve_name(name: str) -> str:
    """The canonical form of a solver name; ValueError listing the known ones if unknown."""
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            if not name[len(prefix) :].strip():
                raise ValueError(f"{prefix} needs {_ARGUMENTS[prefix]}")
            if prefix == "exec:":  # refused here, before any game, as a name not known is
                engine_words(name[len(prefix) :])
            return name
    key = name.strip().lower()
    if key not in _REGISTRY and key not in plugins():
        raise _unknown(name)
    return key


def _load(target: str, name: str) -> Callable[..., Any]:
    """The factory ``target`` names; ValueError naming the solver ``name`` if it cannot load."""
    module_name, _, attr = target.partition(":")
    _import_needed(name)
    try:
        module = importlib.import_module(module_name)
    except RuntimeError as e:
        if (caught := users_signal(e)) is not None:  # a signal, wrapped by Python 3.11
            raise caught from None
        raise
    except ImportError as e:
        if e.name is None or e.name.startswith("termsnake"):
            raise
        raise NotInstalled(name, e.name) from None
    try:
        factory: Callable[..., Any] = getattr(module, attr)
    except AttributeError:
        raise ValueError(f"{module_name} has no {attr!r}, which {target!r} names") from None
    return factory


def create(
    name: str, *, engine_timeout: float | None = None, engine_logs: str | None = None
) -> Solver:
    """A fresh solver by name; ValueError (listing the known names) if there is none, or if a
    plugin cannot be loaded or made (a plugin plays behind its guard: ``plugins.Guarded``),
    or if what a name's factory made is no solver. An ``exec:`` engine gets the move time
    limit and log folder."""
    key = resolve_name(name)
    for prefix, target in _PREFIXES.items():
        if key.startswith(prefix):
            arg, make = key[len(prefix) :], _load(target, prefix.rstrip(":"))
            if prefix != "exec:":
                return make(arg)  # type: ignore[no-any-return]
            limit = {} if engine_timeout is None else {"move_timeout": engine_timeout}
            return make(arg, log_dir=engine_logs, **limit)  # type: ignore[no-any-return]
    factory = _REGISTRY.get(key)
    if factory is None:
        try:
            return plugins()[key].make()
        except PluginError as e:
            raise ValueError(str(e)) from None
    return _checked((_load(factory, key) if isinstance(factory, str) else factory)(), key)


def _checked(made: object, key: str) -> Solver:
    """``made``, the solver ``key``'s factory made; ValueError if it is none, as the command
    line says of a plugin's: a factory of ``register``'s may return anything."""
    if problem := not_a_solver(made):
        raise ValueError(f"solver {key!r} made {problem}")
    return made  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Listing:
    """One row of ``termsnake solvers``: a name, where it comes from, and whether it loads."""

    name: str
    source: str
    problem: str = ""


def _not_installed(name: str) -> NotInstalled | None:
    """What says that a package the built-in ``name`` needs is not installed, or None: looked
    for, not imported, so that the list and a server's start stay quick."""
    for package in _NEEDS.get(name, ()):
        if importlib.util.find_spec(package) is None:
            return NotInstalled(name, package)
    return None


def _short(missing: NotInstalled | None) -> str:
    return "" if missing is None else missing.short


def listing() -> list[Listing]:
    """Every plain solver name with its source; plugins are imported to check they load (a
    broken one is warned about and listed with its problem)."""
    rows = [Listing(name, _SOURCES[name], _short(_not_installed(name))) for name in _REGISTRY]
    for name, plugin in plugins().items():
        try:
            plugin.load()
        except PluginError as e:
            warn(str(e), "listed as not loading")  # not skipped: the list says so
            rows.append(Listing(name, plugin.source, "does not load"))
            continue
        rows.append(Listing(name, plugin.source))
    return sorted(rows, key=lambda r: r.name)
