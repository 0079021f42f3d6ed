"""Console scripts a repository installs, read from its packaging files (never run): a guide's ``odtk train``
runs the module its entry point names (audit54a, NVIDIA/retinanet-examples: a shell opened in the image, then the
package's own command in the later steps)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.project.console_scripts import MAX_SETUP_TOKENS, console_scripts


def test_setup_py_literal_and_bound_name() -> None:
    literal = (
        "from setuptools import setup\nsetup(name='odtk', entry_points={'console_scripts': ['odtk=odtk.main:main']})\n"
    )
    assert console_scripts("setup.py", literal) == {"odtk": "odtk.main"}
    bound = (
        "import setuptools\n"
        "scripts = {'console_scripts': ['train-det = det.cli.train:run [gpu]', 'bad entry', 'x=not a module']}\n"
        "setuptools.setup(entry_points=scripts)\n"
    )
    assert console_scripts("setup.py", bound) == {"train-det": "det.cli.train"}
    lines = "setup(entry_points={'console_scripts': '''\n  a = pkg.a:main\n  b = pkg.b:main\n'''})\n"
    assert console_scripts("setup.py", lines) == {"a": "pkg.a", "b": "pkg.b"}


def test_setup_py_that_computes_its_entry_points_says_nothing() -> None:
    computed = "setup(entry_points=make_entry_points())\n"
    rebound = "e = {'console_scripts': ['a=p.a:m']}\ne = {}\nsetup(entry_points=e)\n"
    assert console_scripts("setup.py", computed) == {} == console_scripts("setup.py", rebound)
    assert console_scripts("setup.py", "setup(entry_points={'console_scripts': ['a=p.a:m']}") == {}  # no parse
    too_long = "x = [" + "1," * MAX_SETUP_TOKENS + "]\nsetup(entry_points={'console_scripts': ['a=p.a:m']})\n"
    assert console_scripts("setup.py", too_long) == {}


def test_setup_cfg_and_pyproject() -> None:
    cfg = "[metadata]\nname = det\n[options.entry_points]\nconsole_scripts =\n    det = det.main:main\n    det-eval = det.eval:main\n"
    assert console_scripts("setup.cfg", cfg) == {"det": "det.main", "det-eval": "det.eval"}
    pyproject = (
        '[project]\nname = "det"\n[project.scripts]\ndet = "det.main:main"\n'
        '[tool.poetry.scripts]\nserve = "det.serve:app"\nrich = {reference = "det.rich:main", type = "console"}\n'
    )
    assert console_scripts("pyproject.toml", pyproject) == {"det": "det.main", "serve": "det.serve", "rich": "det.rich"}
    assert console_scripts("pyproject.toml", "[project\nname=") == {}
    assert console_scripts("setup.cfg", "no section header\n") == {}
    assert console_scripts("Makefile", "det = det.main:main") == {}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["setup.py", "setup.cfg", "pyproject.toml"]), st.text(max_size=400))
def test_any_text_gives_a_mapping_of_names_to_modules(name: str, text: str) -> None:
    found = console_scripts(name, text)
    assert all(k and v and not v.startswith(".") for k, v in found.items())
