"""Named registries: rule sets, consumer variants, properties, branch rules.

Names are the stable ids the CLI, vectors and reports use. Registering one
name twice is a programming error; looking up an unknown name is a user error
that lists the known names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from spec.errors import UnknownName

T = TypeVar("T")

__all__ = ["Registry"]


class Registry(Generic[T]):
    def __init__(self, kind: str, loader: Callable[[], None] | None = None) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._loader = loader
        self._loaded = loader is None

    def _ensure(self) -> None:
        if not self._loaded:
            self._loaded = True
            assert self._loader is not None
            self._loader()

    def register(self, name: str, item: T) -> T:
        self._ensure()
        if name in self._items:
            raise ValueError(f"{self.kind} '{name}' is registered twice")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        self._ensure()
        try:
            return self._items[name]
        except KeyError:
            raise UnknownName(self.kind, name, list(self._items)) from None

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return name in self._items

    def names(self) -> list[str]:
        self._ensure()
        return list(self._items)

    def __iter__(self) -> Iterator[T]:
        self._ensure()
        return iter(list(self._items.values()))
