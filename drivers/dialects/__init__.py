"""Dialects by name: what a feed's ``dialect = "..."`` in ``alley.toml`` refers to.

A dialect class registers itself with :func:`register_dialect` (:mod:`.registry`);
:func:`make_dialect` builds a fresh instance for one feed.  Besides the built-in names, a
dialect can come from a package (entry point group ``alley_poker.dialects``) or be named as
``"module.path:ClassName"``.

>>> sorted(available_dialects())
['apf1', 'pinsetter-csv', 'scoresheet']
>>> make_dialect("apf1", source="scorer").source
'scorer'
>>> make_dialect("apf2")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
drivers.dialects.registry.UnknownDialect: unknown dialect 'apf2' (known: apf1, pinsetter-csv, ...)
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from drivers.base import Dialect
from drivers.dialects.registry import UnknownDialect, register_dialect, registered

__all__ = ["UnknownDialect", "available_dialects", "dialect_class", "make_dialect",
           "register_dialect"]

ENTRY_POINT_GROUP = "alley_poker.dialects"


def available_dialects() -> list[str]:
    """Names of the registered dialects (entry points and import paths not included)."""
    _load_builtins()
    return list(registered())


def dialect_class(name: str) -> type[Any]:
    """The class for ``name``: registered, an entry point, or ``"module:Class"``."""
    _load_builtins()
    known = registered()
    if name in known:
        return known[name]
    for entry in entry_points(group=ENTRY_POINT_GROUP, name=name):
        return entry.load()
    if ":" in name:
        module_name, _, class_name = name.partition(":")
        try:
            return getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as exc:
            raise UnknownDialect(f"cannot load dialect {name!r}: {exc}") from None
    raise UnknownDialect(f"unknown dialect {name!r} (known: {', '.join(sorted(known))})")


def make_dialect(name: str, *, source: str = "feed", **options: Any) -> Dialect:
    """A new instance of dialect ``name`` for the feed called ``source``."""
    instance = dialect_class(name)(source=source, **options)
    if not isinstance(instance, Dialect):
        raise UnknownDialect(f"{name!r} does not implement the dialect interface "
                             "(name, source, parse)")
    return instance


def _load_builtins() -> None:
    # On first use rather than at import: a process with no feed never loads a dialect.
    from drivers.dialects import apf1, pinsetter_csv, scoresheet  # noqa: F401
