"""The type stubs (profdb/__init__.pyi) name what the module has, and
every public callable has a docstring."""
import ast
import os

import profdb


def stub_tree():
    path = os.path.join(os.path.dirname(profdb.__file__), "__init__.pyi")
    with open(path) as f:
        return ast.parse(f.read())


def test_stub_names_exist():
    tree = stub_tree()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            assert hasattr(profdb, node.name), node.name
        if isinstance(node, ast.ClassDef):
            cls = getattr(profdb, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    assert hasattr(cls, item.name), "%s.%s" % (node.name, item.name)
                if isinstance(item, ast.AnnAssign):
                    assert item.target.id in getattr(cls, "_fields", ()) or \
                        hasattr(cls, item.target.id), "%s.%s" % (node.name, item.target.id)


def test_public_surface_is_in_the_stubs_and_documented():
    tree = stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    for name in profdb.__all__:
        assert name in stubbed, name
        assert getattr(profdb, name).__doc__, name
    db_stub = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Database")
    for item in db_stub.body:
        if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
            assert getattr(profdb.Database, item.name).__doc__, item.name
