#!/usr/bin/env python3
"""Checks that docs/ARCHITECTURE.md matches the tree, and that includes run one way.

1. Every folder of the tree that holds source files is named in
   docs/ARCHITECTURE.md (as `folder/`), and every folder it names exists.
2. No #include runs back up: a file includes only files of its own floor or
   of the floors below, in the order of FLOORS (lowest first). Folders on one
   line are side by side: neither includes the other.

Exits 1 naming each mismatch; run by ctest (architecture.check).
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = {".cpp", ".h", ".in", ".js", ".html", ".css", ".py", ".sh", ".cmake"}
SKIP = {"build", ".git", ".ci", "tables", "node_modules"}

# The floors, lowest first; a floor may include its own folder and those below.
FLOORS = [
    ["engine/base"],
    ["engine/game"],
    ["engine/sequences", "engine/quotients"],
    ["engine/solve"],
    ["engine/checks"],
    ["io/codec"],
    ["io"],
    ["service/request"],
    ["service"],
    ["play"],
    ["apps/server"],
    ["apps", "python", "mpi"],
    ["bench", "tests"],
]


def floor_of(folder):
    for level, names in enumerate(FLOORS):
        if folder in names:
            return level
    return None


def tree_files():
    """The files of the tree: git's (tracked, and new ones it does not ignore),
    or every file below the root outside a git checkout; never a build's."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
        paths = [pathlib.PurePosixPath(p) for p in out.splitlines()]
    except (OSError, subprocess.CalledProcessError):
        paths = [p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file()]
    return [p for p in paths if p.parts and p.parts[0] not in SKIP and not p.parts[0].startswith(".")
            and not p.parts[0].startswith("build") and (ROOT / p).is_file()]


def source_folders():
    return {str(p.parent) for p in tree_files() if p.suffix in SOURCE and len(p.parts) > 1}


def main():
    problems = []
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    named = set(re.findall(r"`([a-z][a-z0-9_/]*)/`", doc))
    folders = source_folders()
    for folder in sorted(folders):
        if folder not in named and not folder.startswith("tests/"):
            problems.append(f"docs/ARCHITECTURE.md does not name the folder {folder}/")
    for folder in sorted(named):
        if folder.startswith("build"):
            continue  # what a build makes, not a folder of the tree
        if not (ROOT / folder).is_dir():
            problems.append(f"docs/ARCHITECTURE.md names {folder}/, which does not exist")
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for rel in tree_files():
        path = ROOT / rel
        if path.suffix not in {".cpp", ".h"}:
            continue
        folder = str(rel.parent)
        mine = floor_of(folder)
        if mine is None:
            if folder.split("/")[0] != "tests":
                problems.append(f"{rel}: its folder {folder}/ is on no floor of tools/check_architecture.py")
            continue
        for target in include.findall(path.read_text(errors="replace")):
            theirs = floor_of(str(pathlib.PurePosixPath(target).parent))
            if theirs is None or not (ROOT / target).exists():
                continue  # a library's header, or one generated in the build
            beside = theirs == mine and str(pathlib.PurePosixPath(target).parent) != folder
            if theirs > mine or (beside and mine != len(FLOORS) - 1):
                problems.append(f"{rel}: includes {target}, which is above it or beside it")
    for p in problems:
        print(p)
    print(f"{len(folders)} source folders; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
