"""``NamedTuple`` for shmlint's value types: ``typing.NamedTuple`` to type checkers, and at run time the class
``collections.namedtuple`` makes from the class body's annotations, with the body's methods and docstring.

``typing.NamedTuple`` compiles every string annotation of every class as it defines it: for the fifty classes a
``shmlint check`` defines before it reads a file, about 15 ms on a machine where starting Python and importing
click and PyYAML takes 55. ``collections.namedtuple`` makes the same classes in about 6.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    #: what a class statement puts in its namespace that is not the class's own
    _STATEMENT = frozenset({"__module__", "__qualname__", "__orig_bases__"})

    class _Meta(type):
        """Makes ``class Name(NamedTuple)`` the ``collections.namedtuple`` class, as ``typing`` does."""

        def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
            fields = tuple(namespace.get("__annotations__", {}))
            defaults = tuple(namespace[field] for field in fields if field in namespace)
            if any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            cls = collections.namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            cls.__qualname__ = namespace["__qualname__"]
            for key, value in namespace.items():
                if key not in _STATEMENT and key not in fields:
                    setattr(cls, key, value)
            return cls

    NamedTuple = type.__new__(_Meta, "NamedTuple", (), {})
