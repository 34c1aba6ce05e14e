"""Every compiled module ships a ``.pyi`` stub (the package is marked ``py.typed``), and each stub
says what the module really holds: the same public functions, classes and constants, and each
function with the parameters (names, order, kinds, which have defaults) that the compiled
function reports through ``inspect.signature``."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import textsel._ext

EXT = Path(textsel._ext.__file__).resolve().parent
MODULES = sorted(p.stem for p in EXT.glob("*.pyx"))


def test_every_compiled_module_has_a_stub():
    assert MODULES and all((EXT / f"{name}.pyi").is_file() for name in MODULES)


def _stub(name):
    tree = ast.parse((EXT / f"{name}.pyi").read_text())
    functions, classes, constants = {}, set(), set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node.args
        elif isinstance(node, ast.ClassDef):
            classes.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            constants.add(node.target.id)
    return functions, classes, constants


def _public(module):
    functions, classes, constants = {}, set(), set()
    for attr, value in vars(module).items():
        if attr.startswith("_") or inspect.ismodule(value):
            continue
        if isinstance(value, type):
            if value.__module__ == module.__name__:
                classes.add(attr)
        elif callable(value):
            if getattr(value, "__module__", None) == module.__name__:
                functions[attr] = value
        elif not attr.startswith("np"):
            constants.add(attr)
    return functions, classes, constants


def _stub_parameters(args: ast.arguments):
    positional = args.posonlyargs + args.args
    n_defaults = len(args.defaults)
    out = []
    for i, a in enumerate(positional):
        out.append((a.arg, i >= len(positional) - n_defaults))
    for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        out.append((a.arg, default is not None))
    return out


@pytest.mark.parametrize("name", MODULES)
def test_each_stub_matches_the_compiled_module(name):
    module = importlib.import_module(f"textsel._ext.{name}")
    stub_functions, stub_classes, stub_constants = _stub(name)
    functions, classes, constants = _public(module)
    assert set(stub_functions) == set(functions), name
    assert stub_classes == classes, name
    assert stub_constants == constants, name
    for fname, func in functions.items():
        real = [
            (p.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(func).parameters.values()
        ]
        assert _stub_parameters(stub_functions[fname]) == real, f"{name}.{fname}"
