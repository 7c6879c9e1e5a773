#!/usr/bin/env bash
# ctest's entry to pytest: runs python/tests with the build tree's module.
# Usage: run_pytest.sh PYTHON VERSION MODULE_DIR TEST_DIR
#   PYTHON      the interpreter the module was built for; VERSION its major.minor
#   MODULE_DIR  the folder holding the gemmlab package (<build>/python)
# Exits 77 (ctest: skipped) where that interpreter is missing, is another version, or has no
# pytest: a build carried to another machine (scripts/check-python.sh builds the module for the
# GPU machine's own Python). Under CI=true a missing pytest is a failure.
set -uo pipefail
py=$1 version=$2 module_dir=$3 tests=$4
if [[ ! -x $py ]]; then
  echo "skipped: $py (the interpreter this module was built for) is not on this machine"
  exit 77
fi
have=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [[ $have != "$version" ]]; then
  echo "skipped: $py is Python $have here; the module was built for $version"
  exit 77
fi
if ! "$py" -c 'import pytest' 2>/dev/null; then
  echo "pytest is not installed for $py (Debian: python3-pytest)"
  [[ -n ${CI:-} ]] && exit 1
  exit 77
fi
export PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}"
cd "$tests" || exit 1
exec "$py" -m pytest -p no:cacheprovider -v -rs "$tests"
