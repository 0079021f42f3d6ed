"""shmlint.value's NamedTuple behaves as typing.NamedTuple's classes do (it only defines them faster), and Frozen
objects are immutable values: equal by their fields, hashable, picklable, changed only by copy."""

from __future__ import annotations

import copy
import inspect
import pickle
import typing
from functools import cached_property

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.value import Frozen, NamedTuple


class Ours(NamedTuple):
    """A record."""

    name: str
    count: int = 0
    tags: tuple[str, ...] = ()

    def label(self) -> str:
        return f"{self.name}:{self.count}"


class Theirs(typing.NamedTuple):
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()


class Single(NamedTuple):
    value: int


VALUES = st.tuples(st.text(max_size=5), st.integers(), st.lists(st.text(max_size=3), max_size=3).map(tuple))


@given(values=VALUES, change=st.integers())
def test_our_named_tuples_behave_as_typings(values, change) -> None:
    ours, theirs = Ours(*values), Theirs(*values)
    assert tuple(ours) == tuple(theirs) and ours == theirs and hash(ours) == hash(theirs)
    assert repr(ours) == repr(theirs).replace("Theirs", "Ours")
    assert Ours(name=values[0], count=values[1], tags=values[2]) == ours
    assert ours._replace(count=change) == Ours(values[0], change, values[2])
    assert ours._asdict() == theirs._asdict()
    assert Ours._make(values) == ours
    assert pickle.loads(pickle.dumps(ours)) == ours and type(pickle.loads(pickle.dumps(ours))) is Ours
    assert copy.deepcopy(ours) == ours
    assert (ours.name, ours.count, ours.tags) == values


def test_the_class_reads_as_typings_does() -> None:
    assert Ours._fields == Theirs._fields
    assert Ours._field_defaults == Theirs._field_defaults
    assert Ours.__match_args__ == Theirs.__match_args__
    parameters = [(p.name, p.default, p.kind) for p in inspect.signature(Ours).parameters.values()]
    assert parameters == [(p.name, p.default, p.kind) for p in inspect.signature(Theirs).parameters.values()]
    assert Ours.__doc__ == "A record." and Ours("a", 2).label() == "a:2"
    assert Ours.__module__ == __name__ and Ours.__qualname__ == "Ours"
    assert Single(3) == (3,) and Single(value=4)._replace(value=5) == (5,)
    match Ours("x", 1):
        case Ours(name, count):
            assert (name, count) == ("x", 1)


def test_the_errors_are_typings() -> None:
    with pytest.raises(TypeError):
        Ours()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Ours("a", 1, (), "extra")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="unexpected field names"):
        Ours("a")._replace(other=1)
    with pytest.raises(AttributeError):
        Ours("a").name = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):

        class Bad(NamedTuple):  # a field without a default after one with a default
            first: int = 0
            second: int  # type: ignore[misc]


class Point(Frozen):
    FIELDS = ("x", "y")
    x: int
    y: int

    def __init__(self, x: int, y: int = 0) -> None:
        self._init(x, y)

    @cached_property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


def test_frozen_objects_are_immutable_values() -> None:
    point = Point(1, 2)
    assert point.norm == 3  # a derived value is kept
    with pytest.raises(AttributeError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y
    assert point == Point(1, 2) and hash(point) == hash(Point(1, 2)) and point != Point(2, 1)
    assert point._replace(y=7) == Point(1, 7) and point == Point(1, 2)
    with pytest.raises(TypeError):
        point._replace(z=1)
    again = pickle.loads(pickle.dumps(point))
    assert again == point and again.norm == 3
    assert repr(point) == "Point(x=1, y=2)"


def _kinds(base_str: type, base_int: type) -> tuple[type, type]:
    class Kind(base_str):  # type: ignore[valid-type,misc]
        """Kinds."""

        ALPHA = "alpha"
        BETA = "beta"

        def shout(self) -> str:
            return self.value.upper()

    class Level(base_int):  # type: ignore[valid-type,misc]
        LOW = 1
        HIGH = 3

        def doubled(self) -> int:
            return int(self) * 2

        @classmethod
        def strongest(cls) -> Level:
            return max(cls)

    return Kind, Level


def test_our_enums_are_the_enums_a_class_statement_makes() -> None:
    import enum

    from shmlint import value

    ours, theirs = _kinds(value.StrEnum, value.IntEnum), _kinds(enum.StrEnum, enum.IntEnum)
    for mine, reference in zip(ours, theirs, strict=True):
        assert type(mine) is type(reference)  # both enum.EnumType: isinstance, iteration, lookups as usual
        assert [(m.name, m.value, str(m), repr(m), format(m), hash(m)) for m in mine] == [
            (m.name, m.value, str(m), repr(m), format(m), hash(m)) for m in reference
        ]
    kind, level = ours
    assert kind("beta") is kind.BETA and kind["ALPHA"] == "alpha" and kind.ALPHA.shout() == "ALPHA"
    assert kind.__doc__ == "Kinds." and isinstance(kind.ALPHA, str) and isinstance(kind.ALPHA, enum.Enum)
    assert level.LOW < level.HIGH and max(level) is level.HIGH and level.strongest() is level.HIGH
    assert level.HIGH.doubled() == 6 and level(1) is level.LOW


def test_shmlints_enums_pickle_to_the_same_members() -> None:
    """Results cross process boundaries (the process pool): each member must come back as itself."""
    from shmlint.discover import FileKind
    from shmlint.model import ShmKind, Tier, WorkloadFormat
    from shmlint.severity import Severity

    for kind in (FileKind, ShmKind, Tier, WorkloadFormat, Severity):
        assert all(pickle.loads(pickle.dumps(member)) is member for member in kind)
