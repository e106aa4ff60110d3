"""Dialects by name: what a feed's ``dialect = "..."`` in ``alley.toml`` refers to.

A dialect class registers itself with :func:`register_dialect`; :func:`make_dialect` builds a
fresh instance for one feed.  Besides the built-in names, a dialect can come from a package
(entry point group ``alley_poker.dialects``) or be named as ``"module.path:ClassName"``.

>>> sorted(available_dialects())
['apf1', 'pinsetter-csv', 'scoresheet']
>>> make_dialect("apf1", source="scorer").source
'scorer'
>>> make_dialect("apf2")
Traceback (most recent call last):
...
drivers.dialects.UnknownDialect: unknown dialect 'apf2' (known: apf1, pinsetter-csv, scoresheet)
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any, TypeVar

from drivers.base import Dialect

ENTRY_POINT_GROUP = "alley_poker.dialects"

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


def available_dialects() -> list[str]:
    """Names of the registered dialects (entry points and import paths not included)."""
    _load_builtins()
    return list(_REGISTRY)


def dialect_class(name: str) -> type[Any]:
    """The class for ``name``: registered, an entry point, or ``"module:Class"``."""
    _load_builtins()
    if name in _REGISTRY:
        return _REGISTRY[name]
    for entry in entry_points(group=ENTRY_POINT_GROUP, name=name):
        return entry.load()
    if ":" in name:
        module_name, _, class_name = name.partition(":")
        try:
            return getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as exc:
            raise UnknownDialect(f"cannot load dialect {name!r}: {exc}") from None
    known = ", ".join(sorted(_REGISTRY))
    raise UnknownDialect(f"unknown dialect {name!r} (known: {known})")


def make_dialect(name: str, *, source: str = "feed", **options: Any) -> Dialect:
    """A new instance of dialect ``name`` for the feed called ``source``."""
    instance = dialect_class(name)(source=source, **options)
    if not isinstance(instance, Dialect):
        raise UnknownDialect(f"{name!r} does not implement the dialect interface "
                             "(name, source, parse)")
    return instance


def _load_builtins() -> None:
    # Imported here, not at the top: each built-in module imports this one to register itself.
    from drivers.dialects import apf1, pinsetter_csv, scoresheet  # noqa: F401
