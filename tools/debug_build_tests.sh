#!/usr/bin/env bash
# Run the test suite against a debug build of the kernels (bounds checks, wraparound, C asserts),
# then restore the optimised build. Run it once per change to ext/.
set -uo pipefail
cd "$(dirname "$0")/.."
FTC_DEBUG=1 pip install -e . --no-deps --force-reinstall -q || exit 1
python -c "import engine._movegen as m, sys; print('debug build:', m.__file__)"
pytest -q "$@"
status=$?
pip install -e . --no-deps --force-reinstall -q || exit 1
exit $status
