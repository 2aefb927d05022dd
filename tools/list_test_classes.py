#!/usr/bin/env python3
"""Prints `module.Class` for every class of the given test files that has a
test method (`def test_...`): the end-to-end tests ctest runs, one entry per
class, found rather than listed by hand (tests/CMakeLists.txt)."""
import ast
import pathlib
import sys

for name in sys.argv[1:]:
    path = pathlib.Path(name)
    tree = ast.parse(path.read_text(), filename=name)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(f, ast.FunctionDef) and f.name.startswith("test_") for f in node.body):
            print(f"{path.stem}.{node.name}")
