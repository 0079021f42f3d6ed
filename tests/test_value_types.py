"""shmlint's value types behave as values: they cross the process pool (pickling) as themselves, cannot be changed
in place, and a changed copy is made whole again (a source's line table, a configuration's matchers)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.model import ShmKind, Tier, WorkloadFormat
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
    last = len(changed.line_starts)
    assert changed.position(len(other)) == (last, len(other) - changed.line_starts[-1] + 1)
    again = pickle.loads(pickle.dumps(changed))
    assert again == changed and again.line_starts == changed.line_starts and again.newline == changed.newline


def test_a_source_cannot_be_changed_in_place() -> None:
    source = SourceText("a.yaml", "a: 1\n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        source.text = "b: 2\n"  # type: ignore[misc]
    assert source.encode() == b"a: 1\n" and hash(source) == hash(SourceText("a.yaml", "a: 1\n"))


def test_extended_signals_match_what_they_were_extended_with() -> None:
    """A changed copy builds its own matchers; equality and hashing go by the lists alone."""
    built_in = Signals()
    extended = dataclasses.replace(
        built_in,
        gpu_resources=(*built_in.gpu_resources, "example.com/accel"),
        torch_images=(*built_in.torch_images, r"(^|/)corp/trainer$"),
    )
    assert extended.is_gpu_resource("example.com/accel") and not built_in.is_gpu_resource("example.com/accel")
    assert extended.is_torch_image("corp/trainer:1") and not built_in.is_torch_image("corp/trainer:1")
    assert extended.configured and not built_in.configured
    assert built_in == Signals() and hash(built_in) == hash(Signals()) and extended != built_in
    again = pickle.loads(pickle.dumps(extended))
    assert again == extended and again.is_torch_image("corp/trainer:1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        built_in.torch_images = ()  # type: ignore[misc]
