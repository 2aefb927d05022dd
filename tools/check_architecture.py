#!/usr/bin/env python3
"""Checks that docs/ARCHITECTURE.md matches the tree, and that includes run one way.

1. Every folder of the tree that holds source files is named in
   docs/ARCHITECTURE.md (as `folder/`), and every folder it names exists.
2. No #include runs back up: a file includes only files of its own floor or
   of the floors below, in the order of FLOORS (lowest first). Folders on one
   line are side by side: neither includes the other. Beyond the floors, a
   few folders are kept apart (APART): the table format knows nothing of the
   solver, which reaches io only through the service floor.

3. The server's routes: every route the code adds (apps/server/*.cpp) is
   listed in docs/SERVER.md's API tables as `METHOD /api/...`, every route
   listed there exists, and every /api/ path the page (web/*.js) asks for
   exists.
4. Paths the docs name: every relative link of README.md and docs/*.md, and
   every `path` in backticks that starts with a folder of the tree, exists
   (`io/probe.{h,cpp}` names two files).
5. File names the comments name: every name of a source or doc file
   (`name.h`, `engine/game/rules.cpp`, `check_architecture.py`, ...) in a
   comment of the tree's code is a file of the tree (a bare name: one of that
   name anywhere; a path: that path, from the root or the commenting file's
   folder), or one of EXTERNAL.
6. No option spelling on the service floor: no string literal of service/
   holds a command-line option (`--force`, `--max-heap`); a message names an
   option by `mention` (engine/base/errors.h), and each front end words it
   (service/request/words.cpp, the one file of service/ that spells them).

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

# Folders whose files include nothing of the folders named, whatever the floors allow.
APART = {
    "io": ["engine/solve", "engine/checks"],
    "io/codec": ["engine/solve", "engine/checks", "engine/sequences", "engine/quotients"],
}


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


def check_routes(problems):
    code = {}
    for f in sorted((ROOT / "apps" / "server").glob("*.cpp")):
        for method, path in re.findall(r'route\(\s*"([A-Z]+)",\s*"(/api/[^"]*)"', f.read_text()):
            code[(method, path)] = f.name
    doc = (ROOT / "docs" / "SERVER.md").read_text()
    listed = set(re.findall(r"^\| `(GET|POST) (/api/[a-z/_]+)", doc, re.M))
    for method, path in sorted(set(code) - listed):
        problems.append(f"docs/SERVER.md does not list {method} {path} ({code[(method, path)]})")
    for method, path in sorted(listed - set(code)):
        problems.append(f"docs/SERVER.md lists {method} {path}, which no file of apps/server/ adds")
    paths = {p for _, p in code}
    for f in sorted((ROOT / "web").glob("*.js")):
        for path in re.findall(r'"(/api/[a-z/_]+)', f.read_text()):
            if path not in paths:
                problems.append(f"web/{f.name} asks for {path}, which the server does not answer")


# Files a comment may name that are not the tree's: other projects' headers.
EXTERNAL = {"mpi.h", "zstd.h", "hdf5.h", "H5public.h", "tbb.h", "pybind11.h"}
NAMED = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.(?:h|cpp|py|pyi|js|md|sh|cmake))(?![\w/])")
COMMENT = re.compile(r"//|(?:^|\s)#(?!\s*(?:include|pragma|define|if|ifdef|ifndef|endif|else|elif|undef)\b)")


def check_comment_names(problems):
    files = tree_files()
    names = {p.name for p in files}
    paths = {str(p) for p in files}
    for rel in files:
        if rel.suffix not in {".h", ".cpp", ".py", ".js", ".sh", ".cmake"} and rel.name != "CMakeLists.txt":
            continue
        for n, line in enumerate((ROOT / rel).read_text(errors="replace").splitlines(), 1):
            m = COMMENT.search(line)
            if not m:
                continue
            for name in NAMED.findall(line[m.start():]):
                if "/" in name:
                    found = name in paths or (ROOT / rel.parent / name).exists()
                else:
                    found = name in names or name in EXTERNAL
                if not found:
                    problems.append(f"{rel}:{n}: a comment names {name}, which is no file of the tree")


def check_option_spellings(problems):
    literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
    option = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
    for rel in tree_files():
        if rel.parts[0] != "service" or rel.suffix not in {".h", ".cpp"} or rel.name == "words.cpp":
            continue
        for n, line in enumerate((ROOT / rel).read_text().splitlines(), 1):
            code = line.split("//")[0] if not line.lstrip().startswith('"') else line
            for text in literal.findall(code):
                for spelled in option.findall(text):
                    problems.append(f"{rel}:{n}: spells the option {spelled}: say mention(Option::...)")


def check_doc_paths(problems):
    tops = {p.parts[0] for p in tree_files() if len(p.parts) > 1}
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for doc in docs:
        text = doc.read_text()
        rel = doc.relative_to(ROOT)
        names = [(target, doc.parent) for target in re.findall(r"\]\(([^)#\s]+)[^)]*\)", text)
                 if "://" not in target and not target.startswith("mailto:")]
        for token in re.findall(r"`([A-Za-z0-9_./{},*-]+)`", text):
            top = token.split("/")[0]
            placeholder = re.search(r"(^|/)[A-Z][A-Z_]+(/|$)", token)  # tests/fuzz/corpus/NAME/
            if "/" in token and top in tops and "*" not in token and not placeholder:
                names.append((token, ROOT))
        for target, base in names:
            m = re.match(r"(.*)\{([^}]*)\}(.*)", target)
            expanded = [m.group(1) + alt + m.group(3) for alt in m.group(2).split(",")] if m else [target]
            for t in expanded:
                if not (base / t.rstrip(".,:;")).exists():
                    problems.append(f"{rel} names {target}, which does not exist")


def main():
    problems = []
    check_routes(problems)
    check_doc_paths(problems)
    check_comment_names(problems)
    check_option_spellings(problems)
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
            elif str(pathlib.PurePosixPath(target).parent) in APART.get(folder, []):
                problems.append(f"{rel}: includes {target}, a folder {folder}/ is kept apart from")
    for p in problems:
        print(p)
    print(f"{len(folders)} source folders; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
