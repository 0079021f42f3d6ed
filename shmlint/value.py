"""shmlint's immutable value types, cheap to define: every run defines them all before checking a file.

``NamedTuple``, for values that are tuples. To type checkers this *is* ``typing.NamedTuple``; at run time a class
written ``class Span(NamedTuple)`` is the tuple class ``collections.namedtuple`` would make (the same ``__new__``
signature, field properties, ``_make``, ``_replace``, ``_asdict``, ``repr``, pickling), with the class body's
methods, properties and docstring. Built here because both library ways are slow to define: ``typing`` validates
every annotation twice, compiling each string annotation into a ``ForwardRef`` (120-210 µs a class), and
``collections.namedtuple`` compiles a new ``__new__`` from source for every class (75 µs). Here ``__new__`` is
compiled once per number of fields and renamed per class (``CodeType.replace``), and the other methods are shared:
about 15 µs a class. shmlint defines about fifty before checking a single file.

``StrEnum`` and ``IntEnum``: to type checkers the ``enum`` classes; at run time a class written
``class Tier(IntEnum)`` is made by ``enum._simple_enum``, the constructor the standard library uses for its own
enums (``re.RegexFlag``, ``http.HTTPStatus``) so that importing them stays cheap. The result is an ordinary enum
class (same members, values, order, methods, pickling), defined in half the time of a class statement on
``enum.StrEnum`` (80 against 170 µs for ten members); a run defines a dozen.

``Frozen``, for immutable objects that keep derived values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

_F = TypeVar("_F", bound="Frozen")

if TYPE_CHECKING:
    from enum import IntEnum as IntEnum
    from enum import StrEnum as StrEnum
    from typing import NamedTuple as NamedTuple
else:
    import enum
    import functools
    import sys
    import types
    from operator import itemgetter

    try:  # what collections.namedtuple uses for field properties, where the interpreter has it
        from _collections import _tuplegetter
    except ImportError:

        def _tuplegetter(index: int, doc: str) -> property:
            return property(itemgetter(index), doc=doc)

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

    @functools.cache
    def _new_code(count: int) -> types.CodeType:
        """``lambda _cls, _0, _1: _tuple_new(_cls, (_0, _1))`` compiled once for each number of fields."""
        names = ", ".join(f"_{index}" for index in range(count))
        source = f"lambda _cls, {names}: _tuple_new(_cls, ({names}{',' if count == 1 else ''}))"
        code: types.CodeType = eval(source, {"_tuple_new": tuple.__new__}).__code__
        return code

    def _make(cls: type, iterable: Any) -> Any:
        result = tuple.__new__(cls, iterable)
        if len(result) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
        return result

    def _replace(self: Any, /, **changes: Any) -> Any:
        result = self._make(map(changes.pop, self._fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return result

    def _repr(self: Any) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True))
        return f"{type(self).__name__}({fields})"

    def _asdict(self: Any) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    def _getnewargs(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    def _tuple_class(typename: str, fields: tuple[str, ...], defaults: tuple[Any, ...], module: str) -> type:
        new = types.FunctionType(
            _new_code(len(fields)).replace(co_varnames=("_cls", *fields)),
            {"_tuple_new": tuple.__new__, "__builtins__": {}},
            "__new__",
            defaults or None,
        )
        new.__qualname__ = f"{typename}.__new__"
        namespace: dict[str, Any] = {
            "__doc__": f"{typename}({', '.join(fields)})",
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": dict(zip(fields[len(fields) - len(defaults) :], defaults, strict=True)),
            "__new__": new,
            "_make": classmethod(_make),
            "_replace": _replace,
            "__repr__": _repr,
            "_asdict": _asdict,
            "__getnewargs__": _getnewargs,
            "__match_args__": fields,
            "__module__": module,
        }
        for index, name in enumerate(fields):
            namespace[name] = _tuplegetter(index, f"Alias for field number {index}")
        return type(typename, (tuple,), namespace)

    class _NamedTupleMeta(type):
        def __new__(mcls, typename: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
            if bases != (_NamedTupleBase,):
                raise TypeError(f"{typename}: a NamedTuple cannot have other bases (as with typing.NamedTuple)")
            annotations = namespace.get("__annotations__", {})
            fields = tuple(map(sys.intern, annotations))
            defaults = tuple(namespace[field] for field in fields if field in namespace)
            if any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
                raise TypeError(f"{typename}: a field without a default follows one with a default")
            cls = _tuple_class(typename, fields, defaults, namespace["__module__"])
            cls.__annotations__ = annotations
            cls.__qualname__ = namespace["__qualname__"]
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: cannot overwrite NamedTuple attribute {key}")
                if key not in _CLASS_KEYS and key not in annotations:
                    setattr(cls, key, value)
            return cls

    _NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    class _EnumMeta(type):
        """Makes the enum with ``enum._simple_enum`` from the class body, of the kind the base names."""

        kind: type

        def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
            if len(bases) != 1:
                raise TypeError(f"{name}: an enum here has exactly one base, StrEnum or IntEnum")
            plain = type(name, (), {key: value for key, value in namespace.items() if key != "__weakref__"})
            made: type = enum._simple_enum(mcls.kind)(plain)
            return made

    class _StrEnumMeta(_EnumMeta):
        kind = enum.StrEnum

    class _IntEnumMeta(_EnumMeta):
        kind = enum.IntEnum

    StrEnum = type.__new__(_StrEnumMeta, "StrEnum", (), {})
    IntEnum = type.__new__(_IntEnumMeta, "IntEnum", (), {})

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
