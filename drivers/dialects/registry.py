"""The dialects' register: a dialect class registers itself here, by its ``name``.

Kept apart from :mod:`drivers.dialects` (which finds a dialect by name and loads the built-in
ones), so a built-in dialect registering itself does not import the module that imports it.
"""

from __future__ import annotations

from typing import Any, TypeVar

_REGISTRY: dict[str, type[Any]] = {}

DialectClass = TypeVar("DialectClass", bound=type)


class UnknownDialect(ValueError):
    """A dialect name that no registered class, entry point or import path provides."""


def register_dialect(cls: DialectClass) -> DialectClass:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{cls.__qualname__} needs a class attribute 'name' to be registered")
    existing = _REGISTRY.get(name)
    if existing is not None and existing is not cls:
        raise ValueError(f"dialect name {name!r} is already taken by {existing.__qualname__}")
    _REGISTRY[name] = cls
    return cls


def registered() -> dict[str, type[Any]]:
    """The registered dialect classes by name (a copy)."""
    return dict(_REGISTRY)
