"""The type stubs name every public name of the native module, and the package's `__all__`
names only what exists."""

import ast
import pathlib

import digifinex
from digifinex import _native


def stub_names():
    path = pathlib.Path(digifinex.__file__).with_name("_native.pyi")
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names, tree


def test_every_native_name_has_a_stub():
    names, _ = stub_names()
    public = {n for n in dir(_native) if not n.startswith("_")} | {"__version__"}
    assert public <= names, public - names


def test_every_native_method_has_a_stub():
    _, tree = stub_names()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in ("Client", "Sim", "Stream", "FeedConsumer", "Bot", "Report"):
            stubbed = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
            native = {n for n in dir(getattr(_native, node.name)) if not n.startswith("_")}
            assert native <= stubbed, (node.name, native - stubbed)


def test_all_exists():
    for name in digifinex.__all__:
        assert hasattr(digifinex, name), name
