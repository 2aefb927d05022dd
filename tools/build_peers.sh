#!/usr/bin/env bash
# Builds the two public sequence programs nimtb is raced against, from their
# own source, into DIR (default build/peers); never part of nimtb:
#
#   DIR/analyze  tczajka/octal-games' C++ analyser (old/src/analyze_exec.cc),
#                g++ -O2 as its Makefile does
#   DIR/ogsolve  beling/impartial-games' ogsolve (Rust), with Debian's rustc
#                and cargo, offline: crates-io points at Debian's registry
#                (apt-get install rustc cargo librust-clap-dev)
#
#   tools/build_peers.sh [--tczajka SRC] [--beling SRC] [DIR]
#
# SRC is a checkout or a bare git folder of the repository; without one it
# is cloned from GitHub. tools/bench_sequence.sh --peers DIR races them.
set -euo pipefail
cd "$(dirname "$0")/.."
TCZAJKA="" BELING="" DIR=build/peers
while (($#)); do
    case "$1" in
        --tczajka) TCZAJKA="$2"; shift 2 ;;
        --beling) BELING="$2"; shift 2 ;;
        -*) echo "usage: tools/build_peers.sh [--tczajka SRC] [--beling SRC] [DIR]" >&2; exit 2 ;;
        *) DIR="$1"; shift ;;
    esac
done
mkdir -p "$DIR"
DIR="$(realpath "$DIR")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Copies the folders given of repository SRC (checkout or git folder; empty:
# cloned from GitHub URL) into $work/NAME.
extract() {
    local name="$1" src="$2" url="$3"
    shift 3
    mkdir -p "$work/$name"
    if [[ -z "$src" ]]; then
        git clone --quiet --depth 1 "$url" "$work/$name.git"
        src="$work/$name.git"
    fi
    if [[ -d "$src/.git" || ! -d "$src/$1" ]]; then  # a repository: what HEAD holds
        git -C "$src" archive HEAD "$@" | tar -x -C "$work/$name"
    else
        for d in "$@"; do cp -r "$src/$d" "$work/$name/"; done
    fi
}

extract tczajka "$TCZAJKA" https://github.com/tczajka/octal-games old/src
srcs=()
for f in "$work"/tczajka/old/src/*.cc; do
    [[ $f == *_test.cc || $f == *_exec.cc ]] || srcs+=("$f")
done
g++ -O2 -std=c++11 -pthread -I"$work/tczajka/old/src" "$work/tczajka/old/src/analyze_exec.cc" \
    "${srcs[@]}" -o "$DIR/analyze"
echo "built $DIR/analyze (tczajka/octal-games old/src, g++ -O2)"

extract beling "$BELING" https://github.com/beling/impartial-games ogs ogsolve
cat >"$work/beling/Cargo.toml" <<'EOF'
[workspace]
members = ["ogs", "ogsolve"]
resolver = "2"
EOF
mkdir -p "$work/beling/.cargo"
cat >"$work/beling/.cargo/config.toml" <<'EOF'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
EOF
(cd "$work/beling" && RUSTC=/usr/bin/rustc CARGO_TARGET_DIR="$work/target" \
    /usr/bin/cargo build --quiet --release -p ogsolve)
cp "$work/target/release/ogsolve" "$DIR/ogsolve"
echo "built $DIR/ogsolve (beling/impartial-games, Debian's $(/usr/bin/rustc --version))"
