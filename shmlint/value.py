"""``NamedTuple`` for shmlint's immutable value types, without the cost of checking annotations at definition.

To type checkers this *is* ``typing.NamedTuple``. At run time a class written ``class Span(NamedTuple)`` becomes the
same ``collections.namedtuple`` that ``typing`` builds, with the class body's methods, properties and docstring,
but ``typing`` first validates every annotation twice, compiling each string annotation (all of them under
``from __future__ import annotations``) into a ``ForwardRef``: 120-210 µs a class where the tuple costs 75 µs.
shmlint defines about fifty such classes before checking a single file, so this was a quarter of a one-file
``check`` beyond starting Python. Nothing in shmlint reads the annotations at run time (they stay, as written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    #: what the class statement itself puts in a namespace; the rest (methods, properties, the docstring) is copied
    _CLASS_KEYS = frozenset({"__module__", "__qualname__", "__annotations__", "__orig_bases__"})
    #: what the tuple itself must keep (typing refuses the same names)
    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
        }
    )

    class _NamedTupleMeta(type):
        def __new__(mcls, typename: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
            if bases != (_NamedTupleBase,):
                raise TypeError(f"{typename}: a NamedTuple cannot have other bases (as with typing.NamedTuple)")
            annotations = namespace.get("__annotations__", {})
            defaults = [namespace[field] for field in annotations if field in namespace]
            cls = collections.namedtuple(typename, annotations, defaults=defaults, module=namespace["__module__"])
            cls.__annotations__ = annotations
            cls.__qualname__ = namespace["__qualname__"]
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: cannot overwrite NamedTuple attribute {key}")
                if key not in _CLASS_KEYS and key not in annotations:
                    setattr(cls, key, value)
            return cls

    _NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    def NamedTuple(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("shmlint.value.NamedTuple is a base class only: write class Name(NamedTuple)")

    NamedTuple.__mro_entries__ = lambda bases: (_NamedTupleBase,)
