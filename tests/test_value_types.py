"""shmlint's value types behave as values (its NamedTuple classes as ``typing``'s): they cross the process pool (pickling) as themselves, cannot be changed
in place, and a changed copy is made whole again (a source's line table, a configuration's matchers)."""

from __future__ import annotations

import pickle
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.model import ShmKind, Tier, WorkloadFormat
from shmlint.named_tuple import NamedTuple
from shmlint.severity import Severity
from shmlint.signals import Signals
from shmlint.source import SourceText


def test_enums_pickle_to_the_same_members() -> None:
    """Results cross process boundaries (the process pool): each member must come back as itself."""
    for kind in (FileKind, ShmKind, Tier, WorkloadFormat, Severity):
        assert all(pickle.loads(pickle.dumps(member)) is member for member in kind)


TEXTS = st.text(alphabet="ab\r\n", max_size=30)


@given(text=TEXTS, other=TEXTS)
def test_a_source_with_other_text_is_located_by_that_text(text: str, other: str) -> None:
    source = SourceText("a.yaml", text, "utf-16-le", b"\xff\xfe")
    changed = source.with_text(other)
    assert (changed.path, changed.encoding, changed.bom) == ("a.yaml", "utf-16-le", b"\xff\xfe")
    assert changed == SourceText("a.yaml", other, "utf-16-le", b"\xff\xfe")
    assert changed.line_starts == SourceText("a.yaml", other).line_starts
    source.position(len(text))  # worked out for the old text: a copy made by ``_replace`` works its own out
    assert source._replace(text=other).line_starts == changed.line_starts
    last = len(changed.line_starts)
    assert changed.position(len(other)) == (last, len(other) - changed.line_starts[-1] + 1)
    again = pickle.loads(pickle.dumps(changed))
    assert again == changed and again.line_starts == changed.line_starts and again.newline == changed.newline


def test_a_source_cannot_be_changed_in_place() -> None:
    source = SourceText("a.yaml", "a: 1\n")
    with pytest.raises(AttributeError):
        source.text = "b: 2\n"  # type: ignore[misc]
    assert source.encode() == b"a: 1\n" and hash(source) == hash(SourceText("a.yaml", "a: 1\n"))


def test_extended_signals_match_what_they_were_extended_with() -> None:
    """A changed copy builds its own matchers; equality and hashing go by the lists alone."""
    built_in = Signals()
    built_in.is_gpu_resource("example.com/accel")  # the matchers made: a changed copy makes its own
    extended = built_in._replace(
        gpu_resources=(*built_in.gpu_resources, "example.com/accel"),
        torch_images=(*built_in.torch_images, r"(^|/)corp/trainer$"),
    )
    assert extended.is_gpu_resource("example.com/accel") and not built_in.is_gpu_resource("example.com/accel")
    assert extended.is_torch_image("corp/trainer:1") and not built_in.is_torch_image("corp/trainer:1")
    assert extended.configured and not built_in.configured
    assert built_in == Signals() and hash(built_in) == hash(Signals()) and extended != built_in
    again = pickle.loads(pickle.dumps(extended))
    assert again == extended and again.is_torch_image("corp/trainer:1")
    with pytest.raises(AttributeError):
        built_in.torch_images = ()  # type: ignore[misc]


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


VALUES = st.tuples(st.text(max_size=5), st.integers(), st.lists(st.text(max_size=3), max_size=3).map(tuple))


@given(values=VALUES, change=st.integers())
def test_shmlints_named_tuples_behave_as_typings(values: tuple, change: int) -> None:
    ours, theirs = Ours(*values), Theirs(*values)
    assert ours == theirs and hash(ours) == hash(theirs) and repr(ours) == repr(theirs).replace("Theirs", "Ours")
    assert ours._replace(count=change) == Ours(values[0], change, values[2]) and ours._asdict() == theirs._asdict()
    assert pickle.loads(pickle.dumps(ours)) == ours and type(pickle.loads(pickle.dumps(ours))) is Ours
    assert Ours._fields == Theirs._fields and Ours._field_defaults == Theirs._field_defaults
    assert Ours.__doc__ == "A record." and Ours("a", 2).label() == "a:2" and Ours.__qualname__ == "Ours"
    with pytest.raises(AttributeError):
        ours.name = "b"  # type: ignore[misc]


def test_a_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError):

        class Bad(NamedTuple):
            first: int = 0
            second: int  # type: ignore[misc]
