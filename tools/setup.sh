#!/usr/bin/env bash
# Sets nimtb up on a fresh Debian 12 machine, then runs the main job or the tests.
#
#   tools/setup.sh run    install what is missing, build, solve the default table, query it,
#                         and install `import nimtb` into .venv
#   tools/setup.sh test   install what is missing, build, run the whole test suite (ctest)
#   tools/setup.sh install  only install what is missing
#
# Idempotent: packages already installed are not touched and the build is incremental.
set -euo pipefail

cd "$(dirname "$0")/.."
MODE="${1:-}"
if [[ "$MODE" != run && "$MODE" != test && "$MODE" != install ]]; then
    echo "usage: tools/setup.sh run|test|install" >&2
    exit 2
fi

PACKAGES=(
    g++ cmake make ninja-build pkg-config
    libtbb-dev libboost-program-options-dev libhdf5-dev hdf5-tools zlib1g-dev libdeflate-dev libblosc-dev libsnappy-dev libzstd-dev liblz4-dev
    nlohmann-json3-dev libfmt-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    python3-h5py python3-numpy hdf5-filter-plugin hdf5-filter-plugin-blosc-serial
    libcpp-httplib-dev pybind11-dev python3-dev python3-pytest python3-setuptools python3-pip python3-venv
    python3-matplotlib python3-mypy
    chromium chromium-driver python3-selenium
    openmpi-bin libopenmpi-dev
    clang libclang-rt-14-dev
)

# 1. Install only the Debian packages that are missing.
missing=()
for p in "${PACKAGES[@]}"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
    echo "setup: installing ${missing[*]}" >&2
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [[ "$MODE" == install ]]; then
    exit 0
fi

# 2. Configure once, build incrementally.
if [[ ! -f build/CMakeCache.txt ]]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build build -j"$(nproc)" >&2

# 3. The job.
if [[ "$MODE" == test ]]; then
    # The browser tests' accessibility checker (axe-core), pinned by tests/browser/package-lock.json.
    if ! command -v npm >/dev/null; then
        SUDO=""
        if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
        $SUDO apt-get update -qq
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >&2
    fi
    if [[ ! -f tests/browser/node_modules/axe-core/axe.min.js ]]; then
        (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >&2)
    fi
    exec ctest --test-dir build --output-on-failure -j"$(nproc)"
fi
# The main job: solve the default preset (once) and answer a query from it.
./build/apps/nimtb --version
table=tables/nim-normal-k3-h15.h5
if [[ ! -f "$table" ]]; then
    ./build/apps/nimtb solve --preset default
fi
./build/apps/nimtb query "$table" "3 4 5"
# `import nimtb` as a package, in .venv (Debian's Python with its numpy and h5py).
if [[ ! -x .venv/bin/python ]]; then /usr/bin/python3 -m venv --system-site-packages .venv; fi
.venv/bin/pip install --no-build-isolation --no-index -q . >&2
echo "setup: Python: .venv/bin/python -c 'import nimtb; print(nimtb.Table(\"$table\"))'" >&2
echo "setup: to play in a browser, run ./build/apps/nimtb serve and open http://127.0.0.1:8080/" >&2
