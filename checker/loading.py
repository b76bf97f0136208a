"""Resolving ``NAME`` or ``path/to/file.py`` to a registered definition.

A user file is ordinary Python that builds definitions with the rule
language; it is imported in isolation (no package edits needed). Any problem
while importing it becomes one ``InvalidInput`` naming ``file:line``, and
so does an import that does not finish within ``IMPORT_SECONDS`` (an endless
loop at module level would otherwise hang the command silently).
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from spec.errors import DcpcheckError, InvalidInput, RuleLanguageError, UnknownName
from spec.registry import Registry

T = TypeVar("T")

__all__ = ["import_user_file", "looks_like_path", "resolve", "resolve_many", "source_of"]

_counter = itertools.count()
_loaded: dict[Path, ModuleType] = {}
# Each definition loaded from a file, by id: the definition (which keeps the id unique) and
# how a command line names it again (``source_of``).
_sources: dict[int, tuple[object, str]] = {}
IMPORT_SECONDS = float(os.environ.get("DCPCHECK_IMPORT_SECONDS", "30"))


class _TooSlow(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise ``_TooSlow`` in the block after ``seconds`` (main thread only: elsewhere,
    e.g. on a Spark executor's worker thread, no limit applies)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def looks_like_path(text: str) -> bool:
    """Whether ``text`` names a file (``my_client.py``, ``dir/x.py:NAME``), not a name."""
    return text.endswith(".py") or "/" in text or text.split(":")[0].endswith(".py")


def import_user_file(path: Path) -> ModuleType:
    """Import ``path`` once per process; errors become file:line messages."""
    resolved = path.resolve()
    if resolved in _loaded:
        return _loaded[resolved]
    if not path.exists():
        raise InvalidInput(str(path), "no such file")
    if path.is_dir():
        raise InvalidInput(str(path), "is a directory, expected a .py file")
    name = f"dcpcheck_user_{next(_counter)}_{path.stem.replace('-', '_')}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise InvalidInput(str(path), "cannot be imported as Python (expected a .py file)")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        with _time_limit(IMPORT_SECONDS):
            module_spec.loader.exec_module(module)
    except _TooSlow:
        del sys.modules[name]
        raise InvalidInput(
            str(path),
            f"importing it took more than {IMPORT_SECONDS:g} s (an endless loop at module "
            "level?); a definitions file should only build definitions",
        ) from None
    except SyntaxError as exc:
        del sys.modules[name]
        where = f"{exc.filename or path}:{exc.lineno}" if exc.lineno else str(path)
        raise InvalidInput(where, f"syntax error: {exc.msg}") from None
    except RuleLanguageError as exc:
        del sys.modules[name]
        where = exc.where or _line_in(path, exc)
        raise RuleLanguageError(where, exc.message) from None
    except DcpcheckError:
        del sys.modules[name]
        raise
    except Exception as exc:  # a user file can raise anything; report it in one line
        del sys.modules[name]
        raise InvalidInput(_line_in(path, exc), f"{type(exc).__name__}: {exc}") from None
    _loaded[resolved] = module
    return module


def _line_in(path: Path, exc: BaseException) -> str:
    """``path:line`` of the deepest traceback frame inside ``path``."""
    target = path.resolve()
    where = str(path)
    for frame in traceback.extract_tb(exc.__traceback__):
        try:
            if Path(frame.filename).resolve() == target:
                where = f"{path}:{frame.lineno}"
        except OSError:
            continue
    return where


def resolve_many(
    registry: Registry[T], kind_type: type[T], text: str, argument: str = ""
) -> list[T]:
    """``NAME`` from the registry, or every ``kind_type`` defined in a file.

    ``FILE.py:NAME`` picks one definition (by its ``name``) from a file.
    ``argument`` names what the user typed (``--target``, ``BASE``) in errors.
    """
    if text in registry or not looks_like_path(text):
        try:
            return [registry.get(text)]
        except UnknownName as exc:
            raise exc.at(argument) if argument else exc from None
    path_text, _, wanted = text.partition(".py:")
    path = Path(path_text + ".py" if wanted else text)
    module = import_user_file(path)
    builtins = list(registry)
    found = [
        v
        for v in vars(module).values()
        if isinstance(v, kind_type) and not any(v is b for b in builtins)
    ]
    unique: list[T] = []
    for item in found:
        if not any(item is u for u in unique):
            unique.append(item)
    if wanted:
        unique = [u for u in unique if getattr(u, "name", None) == wanted]
        if not unique:
            raise InvalidInput(str(path), f"defines no {registry.kind} named '{wanted}'")
    for item in unique:
        name = getattr(item, "name", None)
        if name in registry:
            raise InvalidInput(
                str(path), f"{registry.kind} '{name}' is a built-in name; give yours another name"
            )
        problems: list[str] = getattr(item, "problems", lambda: [])()
        if problems:
            label = getattr(item, "name", "") or type(item).__name__
            raise InvalidInput(str(path), f"{registry.kind} {label!r}: {problems[0]}")
    if not unique:
        raise InvalidInput(
            str(path),
            f"defines no {kind_type.__name__}; a {registry.kind} file assigns one at module level "
            f"(see docs/)",
        )
    for item in unique:
        named = text if wanted or len(unique) == 1 else f"{text}:{getattr(item, 'name', '')}"
        _sources[id(item)] = (item, named)
    return unique


def source_of(definition: object, name: str) -> str:
    """How a command line names ``definition`` again: ``name`` if it is built in, else the
    file it was loaded from as the user gave it (``FILE.py``, or ``FILE.py:NAME`` when the
    file defines several), so a reproduce line pasted where the command ran runs the same
    definition (``dcpcheck check --consumer my_client.py ...``)."""
    found = _sources.get(id(definition))
    return found[1] if found is not None and found[0] is definition else name


def resolve(registry: Registry[T], kind_type: type[T], text: str, argument: str = "") -> T:
    items = resolve_many(registry, kind_type, text, argument)
    if len(items) > 1:
        names = ", ".join(str(getattr(i, "name", "?")) for i in items)
        raise InvalidInput(
            text, f"defines {len(items)} {registry.kind} ({names}); pick one with {text}:NAME"
        )
    return items[0]
