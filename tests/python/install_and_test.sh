#!/usr/bin/env bash
# Installs the package from the source tree into a new venv (VENV, the one
# argument) as the README says, then runs the module's suite against that
# install: the module must come from the venv, not from the build folder.
set -euo pipefail
venv="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-build-isolation --no-index -q "$root"
away="$(mktemp -d)"  # nowhere near build/python
trap 'rm -rf "$away"' EXIT
cd "$away"
unset PYTHONPATH
NIMTB_INSTALLED="$venv" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python"
