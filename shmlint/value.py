"""shmlint's immutable value types, cheap to define: every run defines them all before checking a file.

``NamedTuple``, for values that are tuples, without the cost of checking annotations at definition:

To type checkers this *is* ``typing.NamedTuple``. At run time a class written ``class Span(NamedTuple)`` becomes the
same ``collections.namedtuple`` that ``typing`` builds, with the class body's methods, properties and docstring,
but ``typing`` first validates every annotation twice, compiling each string annotation (all of them under
``from __future__ import annotations``) into a ``ForwardRef``: 120-210 µs a class where the tuple costs 75 µs.
shmlint defines about fifty such classes before checking a single file, so this was a quarter of a one-file
``check`` beyond starting Python. Nothing in shmlint reads the annotations at run time (they stay, as written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

_F = TypeVar("_F", bound="Frozen")

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


class Frozen:
    """The other immutable values: objects that keep derived values (``functools.cached_property``, which writes the
    instance's ``__dict__`` and so works here), where a tuple cannot. Fields are set once, through ``_init``;
    equality, hashing, ``repr`` and pickling go by ``FIELDS``; ``_replace`` makes a changed copy, as a tuple's
    does. What a frozen dataclass gives, without the millisecond or more it costs to define one."""

    FIELDS: ClassVar[tuple[str, ...]] = ()

    def _init(self, *values: object) -> None:
        for name, value in zip(self.FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: make a changed copy with _replace")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def _replace(self: _F, **changes: Any) -> _F:
        unknown = set(changes) - set(self.FIELDS)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        return type(self)(*(changes.get(name, getattr(self, name)) for name in self.FIELDS))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return type(self), self._values()
